import Foundation
import Strata
import Testing

/// Debug-build confinement checks, observed through a recording
/// ``ObjectContext/concurrencyViolationHandler`` instead of a trap. Serialized because the
/// handler is process-wide.
@Suite(.serialized) struct ConfinementTests {
    /// Runs `body` with a handler that records violations, and returns what it recorded.
    private func recordingViolations(_ body: () throws -> Void) rethrows -> [String] {
        let messages = Collector<String>()
        let previous = ObjectContext.concurrencyViolationHandler
        ObjectContext.concurrencyViolationHandler = { messages.append($0) }
        defer { ObjectContext.concurrencyViolationHandler = previous }
        try body()
        return messages.values
    }

    @Test func aPrivateContextAdoptsItsFirstThreadAndReportsDirectUseFromAnother() throws {
        let messages = try recordingViolations {
            let context = ObjectContext(coordinator: try makeTeamCoordinator(), name: "adopted")
            _ = context.hasChanges // this thread adopts the context
            _ = context.insert(Team.self)
            onAnotherThread { _ = context.hasChanges }
        }
        #expect(messages.count == 1)
        let message = messages.first ?? ""
        #expect(message.contains("ObjectContext \"adopted\" (private queue)"))
        #expect(message.contains("hasChanges"))
        #expect(message.contains("on thread 0x"))
        #expect(message.contains("which adopted it"))
    }

    @Test func directUseWhileAPerformBlockRunsIsReported() throws {
        let messages = try recordingViolations {
            let context = ObjectContext(coordinator: try makeTeamCoordinator(), name: "busy")
            let started = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let done = DispatchSemaphore(value: 0)
            context.perform {
                _ = context.insert(Team.self)
                started.signal()
                release.wait()
                done.signal()
            }
            started.wait()
            _ = context.registeredObjects
            release.signal()
            done.wait()
        }
        #expect(messages.count == 1)
        #expect(messages.first?.contains("ObjectContext \"busy\"") == true)
        #expect(messages.first?.contains("registeredObjects") == true)
        #expect(messages.first?.contains("running a perform block") == true)
    }

    @Test func readingAnObjectOffItsContextsThreadIsReported() throws {
        let messages = try recordingViolations {
            let context = ObjectContext(coordinator: try makeTeamCoordinator(), name: "objects")
            let team = context.insert(Team.self)
            team.name = "Spurs"
            // Deliberate misuse, which Swift 6 only allows through an unsafe opt-out.
            nonisolated(unsafe) let shared = team
            onAnotherThread { _ = shared.name }
        }
        #expect(messages.count == 1)
        #expect(messages.first?.contains("Team") == true)
        #expect(messages.first?.contains("ObjectContext \"objects\"") == true)
    }

    @Test func performBlocksMayUseTheContextFromAnyThreadAfterAdoption() async throws {
        let messages = try await recordingViolationsAsync {
            let context = ObjectContext(coordinator: try makeTeamCoordinator(), name: "shared")
            context.insert(Team.self).name = "Knicks"
            try context.save()
            let viaAwait = try await context.perform { try context.count(FetchRequest(entityName: "Team")) }
            let viaWait = Collector<Int>()
            onAnotherThread {
                viaWait.append(context.performAndWait { (try? context.count(FetchRequest(entityName: "Team"))) ?? -1 })
            }
            #expect(viaAwait == 1)
            #expect(viaWait.values == [1])
        }
        #expect(messages.isEmpty)
    }

    @Test func aMainQueueContextUsedDirectlyOffTheMainThreadIsReported() throws {
        let messages = try recordingViolations {
            let context = ObjectContext(
                coordinator: try makeTeamCoordinator(), concurrencyType: .mainQueue, name: "view")
            if isOnMainQueue() {
                onAnotherThread { _ = context.hasChanges }
            } else {
                _ = context.hasChanges
            }
        }
        #expect(messages.count == 1)
        #expect(messages.first?.contains("ObjectContext \"view\" (main queue)") == true)
        #expect(messages.first?.contains("the main queue") == true)
    }

    private func recordingViolationsAsync(_ body: () async throws -> Void) async rethrows -> [String] {
        let messages = Collector<String>()
        let previous = ObjectContext.concurrencyViolationHandler
        ObjectContext.concurrencyViolationHandler = { messages.append($0) }
        defer { ObjectContext.concurrencyViolationHandler = previous }
        try await body()
        return messages.values
    }
}
