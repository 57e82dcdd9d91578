import Foundation
import Strata
import StrataTestSupport
import Testing

/// Loading in the background: state, progress, migration through the migrator, what contexts
/// see before the stores are ready, cancellation, and a caller that is never blocked.
@Suite struct ContainerLoadingTests {
    /// A v1 SQLite store with `count` notes, and its URL.
    private func v1Store(notes count: Int = 5) throws -> StoreURL {
        let url = try StoreURL.parse("sqlite:\(TemporaryDirectory().url.appendingPathComponent("notes.sqlite").path)")
        try seedNotes(at: url, model: NotesModel.v1, count: count)
        return url
    }

    private func container(_ url: StoreURL, migrator: (any StoreMigrating)?, stack: ContainerStackStyle = .threeTier)
        -> PersistentContainer
    {
        PersistentContainer(
            name: "Notes", versionedModel: NotesModel.versioned, storeDescriptions: [StoreDescription(url: url)],
            stack: stack, migrator: migrator, environment: [:])
    }

    @Test func aStoreOfAnOlderVersionIsMigratedOffTheCallersThreadAndOpened() async throws {
        let url = try v1Store()
        let migrator = TestMigrator()
        let container = container(url, migrator: migrator)
        try await container.loadPersistentStores()
        #expect(container.state == .ready)
        #expect(migrator.calls.values == ["needsMigration", "migrateStore"])
        #expect(!migrator.threads.values.isEmpty && !migrator.threads.values.contains(0))
        #if os(Linux)
            // On Darwin the loader gets the utility quality of service instead of a nice value.
            #expect(
                migrator.niceValues.values.allSatisfy { $0 > currentNiceValue() },
                "the loader runs at a lower priority than its caller")
        #endif
        #expect(try container.loadedStores[0].metadata().modelVersionIdentifier == "v2")
        let pinned = try await container.viewContext.perform {
            try container.viewContext.fetch(FetchRequest(entityName: "Note")).map { $0["pinned"] }
        }
        #expect(pinned == Array(repeating: Value.bool(false), count: 5))
    }

    @Test func aVersionedContainerMigratesWithTheBuiltInMigratorByDefault() async throws {
        let url = try v1Store(notes: 7)
        let container = PersistentContainer(
            name: "Notes", versionedModel: NotesModel.versioned, storeDescriptions: [StoreDescription(url: url)],
            environment: [:])
        #expect(container.migrator is StoreMigrator)
        let updates = container.loadProgressUpdates()
        let collected = Task { () -> [LoadProgress] in
            var all: [LoadProgress] = []
            for await step in updates { all.append(step) }
            return all
        }
        try await container.loadPersistentStores()
        #expect(container.state == .ready)
        #expect(try container.loadedStores[0].metadata().modelVersionIdentifier == "v2")
        #expect(await collected.value.contains { $0.phase == .migrating })
        let pinned = try await container.viewContext.perform {
            try container.viewContext.fetch(FetchRequest(entityName: "Note")).map { $0["pinned"] }
        }
        #expect(pinned == Array(repeating: Value.bool(false), count: 7))
    }

    @Test func progressComesThroughTheAsyncSequenceAndFoundationProgress() async throws {
        let url = try v1Store()
        let container = container(url, migrator: TestMigrator(steps: 3))
        let updates = container.loadProgressUpdates()
        let collected = Task { () -> [LoadProgress] in
            var all: [LoadProgress] = []
            for await step in updates { all.append(step) }
            return all
        }
        let finished = Collector<StrataError?>()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            container.loadPersistentStores { error in
                finished.append(error)
                continuation.resume()
            }
        }
        let steps = await collected.value
        #expect(finished.values.count == 1 && finished.values[0] == nil)
        let phases = steps.map(\.phase)
        #expect(phases.first == .checking && phases.last == .opened)
        for phase in [LoadProgress.Phase.checking, .migrating, .opening, .verifying, .opened] {
            #expect(phases.contains(phase))
        }
        let migrating = steps.filter { $0.phase == .migrating && $0.detail == "test step" }
        #expect(migrating.map(\.completed) == [1, 2, 3] && migrating.allSatisfy { $0.total == 3 && $0.store == url })
        #expect(steps.allSatisfy { $0.storeIndex == 0 && $0.storeCount == 1 })
        #expect(
            await container.loadProgressUpdates().first(where: { _ in true }) == nil,
            "a ready container's sequence is empty")
    }

    @Test func theFoundationProgressEndsCompleteAndNamesTheLastStep() async throws {
        let container = PersistentContainer(
            name: "Notes", model: NotesModel.v2, storeDescriptions: [try StoreDescription("memory:")], environment: [:])
        let box = Locked<Progress?>(nil)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let progress = container.loadPersistentStores { _ in continuation.resume() }
            box.withLock { $0 = progress }
        }
        let progress = try #require(box.withLock { $0 })
        #expect(progress.isFinished && progress.fractionCompleted == 1)
        #expect((progress.userInfo[LoadProgress.progressUserInfoKey] as? String)?.contains("opened") == true)
    }

    @Test func beforeTheStoresAreReadyContextsSeeAnEmptyGraphAndCannotSaveToThem() async throws {
        let url = try v1Store(notes: 4)
        let proceed = Gate()
        let reached = Gate()
        let container = container(
            url,
            migrator: TestMigrator(steps: 1) { _, _ in
                reached.open()
                try proceed.wait("the test")
            }, stack: .twoTier)
        #expect(
            try await container.viewContext.perform {
                try container.viewContext.count(FetchRequest(entityName: "Note"))
            } == 0)
        let load = Task { await loadResult(container) }
        try await reached.arrival("the load to reach the migrator")
        #expect(container.state == .loading)
        let seen = try await container.viewContext.perform {
            (
                try container.viewContext.count(FetchRequest(entityName: "Note")),
                try container.viewContext.fetch(FetchRequest(entityName: "Note")).count
            )
        }
        #expect(seen == (0, 0), "the view context sees an empty graph, at once")
        let saveError = await #expect(throws: StrataError.self) {
            try await container.viewContext.perform {
                try container.viewContext.insert("Note")["text"] = "too early"
                try container.viewContext.save()
            }
        }
        #expect(saveError?.code == .storeNotFound && saveError?.message.contains("not loaded yet") == true)
        try await container.viewContext.perform { container.viewContext.rollback() }
        proceed.open()
        #expect(await load.value == nil)
        #expect(
            try await container.viewContext.perform {
                try container.viewContext.count(FetchRequest(entityName: "Note"))
            } == 4)
    }

    @Test func cancellingLeavesTheStoreByteForByteAsItWas() async throws {
        let url = try v1Store()
        let before = try Data(contentsOf: URL(fileURLWithPath: url.location))
        let proceed = Gate()
        let reached = Gate()
        let held = Locked(false)
        let container = container(
            url,
            migrator: TestMigrator(steps: 3) { step, _ in
                guard step == 2,
                    !held.withLock({ flag in
                        defer { flag = true }
                        return flag
                    })
                else { return }
                reached.open()
                try proceed.wait("the test")
            })
        let load = Task { await loadResult(container) }
        try await reached.arrival("the migration's second step")
        container.cancelLoading()
        proceed.open()
        let error = await load.value
        #expect(error?.code == .cancelled)
        #expect(container.state.error?.code == .cancelled)
        #expect(container.loadedStores.isEmpty)
        #expect(try Data(contentsOf: URL(fileURLWithPath: url.location)) == before)
        #expect(
            try BuiltInBackends.registry.backend(for: "sqlite").metadata(at: url)?.modelVersionHash
                == NotesModel.v1.versionHash)

        // A failed load can be retried, and this time it migrates.
        try await container.loadPersistentStores()
        #expect(container.state == .ready && container.loadedStores.count == 1)
    }

    @Test func cancellingTheTaskOrTheFoundationProgressCancelsTheLoad() async throws {
        let url = try v1Store()
        let proceed = Gate()
        let reached = Gate()
        // The migrator holds its first step until the test lets it go, then until the
        // cancellation has reached it (Foundation's Progress passes it on asynchronously).
        let container = container(
            url,
            migrator: TestMigrator(steps: 2) { step, isCancelled in
                guard step == 1 else { return }
                reached.open()
                try proceed.wait("the test")
                try waitUntil("the cancellation to reach the migrator", isCancelled)
            })
        let load = Task { await loadResult(container) }
        try await reached.arrival("the migration")
        load.cancel()
        proceed.open()
        #expect(await load.value?.code == .cancelled)

        let progressBox = Locked<Progress?>(nil)
        let finished = Gate()
        let result = Collector<StrataError?>()
        let progress = container.loadPersistentStores { error in
            result.append(error)
            finished.open()
        }
        progressBox.withLock { $0 = progress }
        try await reached.arrival("the migration, again")
        progress.cancel()
        proceed.open()
        try await finished.arrival("the load to end")
        #expect(result.values.first??.code == .cancelled)
        #expect(
            try BuiltInBackends.registry.backend(for: "sqlite").metadata(at: url)?.modelVersionHash
                == NotesModel.v1.versionHash)
    }

    @Test func aSecondCallWaitsForTheRunningLoadAndACallWhenReadyReturnsAtOnce() async throws {
        let url = try v1Store()
        let proceed = Gate()
        let reached = Gate()
        let migrator = TestMigrator(steps: 1) { _, _ in
            reached.open()
            try proceed.wait("the test")
        }
        let container = container(url, migrator: migrator)
        let first = Task { await loadResult(container) }
        try await reached.arrival("the migration")
        let second = Task { await loadResult(container) }
        proceed.open()
        let (a, b) = (await first.value, await second.value)
        #expect(a == nil && b == nil)
        #expect(migrator.calls.values.filter { $0 == "migrateStore" }.count == 1)
        #expect(await loadResult(container) == nil)
    }

    /// The calling thread starts the load and then ticks; the migrator cannot finish until the
    /// caller has ticked 20 times while it runs. A load that blocked its caller would never see
    /// those ticks (the gate would time out and the load fail).
    @Test func theCallingThreadKeepsTickingWhileTheStoreMigrates() async throws {
        let url = try v1Store()
        let tick = DispatchSemaphore(value: 0)
        let migrator = TestMigrator(steps: 20) { step, _ in
            if tick.wait(timeout: .now() + 20) == .timedOut {
                throw StrataError(.internalInconsistency, "the caller stopped ticking at step \(step)")
            }
        }
        let container = container(url, migrator: migrator)
        struct Outcome: Sendable {
            var error: StrataError?
            var ticks: Int
            var completionThread: UInt
            var callerThread: UInt
        }
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
            let caller = Thread {
                let me = currentThreadID()
                let done = Locked<(finished: Bool, error: StrataError?, thread: UInt)>((false, nil, 0))
                container.loadPersistentStores { error in done.withLock { $0 = (true, error, currentThreadID()) } }
                var ticks = 0
                while !done.withLock({ $0.finished }) {
                    ticks += 1
                    tick.signal()
                    usleep(500)
                }
                let end = done.withLock { $0 }
                continuation.resume(
                    returning: Outcome(error: end.error, ticks: ticks, completionThread: end.thread, callerThread: me))
            }
            caller.start()
        }
        #expect(outcome.error == nil)
        #expect(outcome.ticks >= 20)
        #expect(outcome.completionThread != outcome.callerThread)
        #expect(!migrator.threads.values.contains(outcome.callerThread))
    }
}
