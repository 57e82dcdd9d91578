import Foundation
import Strata
import Testing

// Models, stores and a test migrator for the container tests.

/// The Notes model: v1 has `Note.text` and `Tag.label`, v2 adds `Note.pinned`. Notes and tags
/// live in separate configurations, so they can be routed to different stores.
enum NotesModel {
    static let configurations = ["Notes": ["Note"], "Tags": ["Tag"]]

    static let v1: Model = try! Model(
        versionIdentifier: "v1",
        entities: [
            Entity("Note", attributes: [Attribute("text", .string)]),
            Entity("Tag", attributes: [Attribute("label", .string)]),
        ], configurations: configurations)

    static let v2: Model = try! Model(
        versionIdentifier: "v2",
        entities: [
            Entity(
                "Note",
                attributes: [Attribute("text", .string), Attribute("pinned", .boolean, defaultValue: .bool(false))]),
            Entity("Tag", attributes: [Attribute("label", .string)]),
        ], configurations: configurations)

    /// A model no version of Notes matches.
    static let stranger: Model = try! Model(
        versionIdentifier: "x",
        entities: [
            Entity("Note", attributes: [Attribute("body", .integer64)]),
            Entity("Tag", attributes: [Attribute("label", .string)]),
        ], configurations: configurations)

    static let versioned: VersionedModel = try! VersionedModel(name: "Notes", versions: [v1, v2])
}

/// Writes `count` notes into the store at `url`, written with `model`, through the backend.
func seedNotes(at url: StoreURL, model: Model, count: Int, text: String = "note") throws {
    let store = try BuiltInBackends.registry.open(url, model: model)
    let entity = model.entity(named: "Note")!
    let ids = try store.obtainPermanentIDs(for: "Note", count: count)
    try store.save(
        SaveRequest(
            inserts: ids.enumerated().map { i, id in
                var snapshot = Snapshot(objectID: id, entity: entity)
                snapshot.attributes[entity.attributeIndex(named: "text")!] = .string("\(text) \(i)")
                return snapshot
            }))
    try store.close()
}

/// How many objects of `entity` the store at `url` holds, opened directly with `model`.
func countInStore(_ url: StoreURL, model: Model, entity: String) throws -> Int {
    let store = try BuiltInBackends.registry.open(url, model: model, options: StoreOptions(createsIfMissing: false))
    defer { try? store.close() }
    return try store.fetch(FetchRequest(entityName: entity, resultType: .count)).count()
}

/// The loading container's load, awaited, as a result.
func loadResult(_ container: PersistentContainer) async -> StrataError? {
    do {
        try await container.loadPersistentStores()
        return nil
    } catch let error as StrataError {
        return error
    } catch {
        Issue.record("a non-Strata error: \(error)")
        return nil
    }
}

/// A migrator for tests: it reports `steps` steps, calling `beforeStep` before each (a test
/// blocks there to hold the load), honours cancellation between steps, and then migrates
/// Notes v1 to v2 by copying the notes through the public store API into a store it recreates.
/// (A test double: the real migrator never deletes a store.)
final class TestMigrator: StoreMigrating {
    let currentModel: Model = NotesModel.v2
    let steps: Int
    let beforeStep: @Sendable (_ step: Int, _ isCancelled: @Sendable () -> Bool) throws -> Void
    let calls = Collector<String>()
    let threads = Collector<UInt>()
    /// The nice value of the thread `migrateStore` ran on.
    let niceValues = Collector<Int32>()

    init(
        steps: Int = 3,
        beforeStep: @escaping @Sendable (_ step: Int, _ isCancelled: @Sendable () -> Bool) throws -> Void = { _, _ in }
    ) {
        self.steps = steps
        self.beforeStep = beforeStep
    }

    func needsMigration(storeAt url: StoreURL) throws -> Bool {
        calls.append("needsMigration")
        guard let metadata = try BuiltInBackends.registry.backend(for: url.scheme).metadata(at: url) else {
            throw StrataError(.storeNotFound, "no store at \(url)")
        }
        guard
            metadata.modelVersionHash == NotesModel.v1.versionHash
                || metadata.modelVersionHash == currentModel.versionHash
        else {
            throw StrataError(.modelMismatch, "the test migrator knows only v1 and v2")
        }
        return metadata.modelVersionHash != currentModel.versionHash
    }

    func migrateStore(
        at url: StoreURL, options: StoreOptions, progress: @escaping @Sendable (StoreProgress) -> Void,
        isCancelled: @escaping @Sendable () -> Bool
    ) throws {
        calls.append("migrateStore")
        threads.append(currentThreadID())
        niceValues.append(currentNiceValue())
        for step in 1...steps {
            try beforeStep(step, isCancelled)
            if isCancelled() { throw StrataError(.cancelled, "migration cancelled at step \(step)") }
            progress(StoreProgress(phase: "test step", completed: step, total: steps))
        }
        let backend = try BuiltInBackends.registry.backend(for: url.scheme)
        let old = try backend.open(url, model: NotesModel.v1, options: options)
        let texts = try old.fetch(FetchRequest(entityName: "Note", sorts: [Sort("text")])).snapshots().map {
            $0.attributes[0]
        }
        try old.close()
        try backend.destroyStore(at: url)
        let new = try backend.open(url, model: currentModel, options: options)
        let entity = currentModel.entity(named: "Note")!
        let ids = try new.obtainPermanentIDs(for: "Note", count: texts.count)
        try new.save(
            SaveRequest(
                inserts: zip(ids, texts).map { id, text in
                    var snapshot = Snapshot(objectID: id, entity: entity)
                    snapshot.attributes[0] = text
                    return snapshot
                }))
        try new.close()
    }
}

/// Waits on a GCD thread until `condition` holds, polling; throws after `seconds`.
func waitUntil(seconds: Double = 120, _ what: String, _ condition: () -> Bool) throws {
    let deadline = DispatchTime.now() + seconds
    while !condition() {
        if DispatchTime.now() > deadline { throw StrataError(.internalInconsistency, "timed out waiting for \(what)") }
        usleep(1000)
    }
}

/// A one-shot signal with a timeout, for holding a test migrator at a step.
final class Gate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    /// Lets one waiter through.
    func open() { semaphore.signal() }
    /// Waits for ``open()`` on the calling thread (a GCD thread, never the tests' cooperative
    /// pool); throws after `seconds` so that a broken test fails instead of hanging.
    func wait(seconds: Double = 120, _ what: String) throws {
        if semaphore.wait(timeout: .now() + seconds) == .timedOut {
            throw StrataError(.internalInconsistency, "test gate timed out waiting for \(what)")
        }
    }

    /// Waits for ``open()`` without holding a thread of the cooperative pool (the load under
    /// test may need one to start).
    func arrival(seconds: Double = 120, _ what: String) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try self.wait(seconds: seconds, what) })
            }
        }
    }
}

/// The calling thread's nice value (Linux keeps one per thread; Darwin, one per process).
func currentNiceValue() -> Int32 {
    #if os(Linux)
        getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
    #else
        getpriority(PRIO_PROCESS, 0)
    #endif
}
