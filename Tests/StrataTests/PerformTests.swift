import Foundation
import Strata
import Synchronization
import Testing

@Suite struct PerformTests {
    @Test func performAndWaitRunsTheBlockOnTheCallingThreadWhileHoldingTheQueue() throws {
        let context = ObjectContext(coordinator: try makeTeamCoordinator(), name: "caller")
        let caller = currentThreadID()
        let inside = context.performAndWait { currentThreadID() }
        #expect(
            inside == caller, "GCD runs a sync block on the calling thread; performAndWait does not move work off it")
    }

    @Test func performAndWaitIsReentrantInsideAPerformBlock() async throws {
        let context = ObjectContext(coordinator: try makeTeamCoordinator(), name: "reentrant")
        let (outer, inner, nested) = try await context.perform { () -> (UInt, UInt, Int) in
            let outer = currentThreadID()
            let (inner, nested) = context.performAndWait { () -> (UInt, Int) in
                (currentThreadID(), context.performAndWait { 42 })
            }
            return (outer, inner, nested)
        }
        #expect(outer == inner, "a nested performAndWait runs inline instead of deadlocking on its own queue")
        #expect(nested == 42)
    }

    @Test func performAndWaitReturnsTheValueAndRethrowsTheError() throws {
        let context = ObjectContext(coordinator: try makeTeamCoordinator(), name: "values")
        let id = try context.performAndWait { () throws -> ObjectID in
            let team = context.insert(Team.self)
            team.name = "Rockets"
            try context.save()
            return team.objectID
        }
        #expect(!id.isTemporary)
        let error = #expect(throws: StrataError.self) {
            try context.performAndWait {
                _ = context.insert(Team.self) // no name: validation fails
                try context.save()
            }
        }
        #expect(error?.code == .validationFailed)
    }

    @Test func performReturnsAtOnceAndRunsBlocksInOrderOnTheContextsQueue() throws {
        let context = ObjectContext(coordinator: try makeTeamCoordinator(), name: "enqueue")
        let gate = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let order = Collector<String>()
        let caller = currentThreadID()
        context.perform {
            // Released only after perform returned: a synchronous perform would time out here.
            order.append(gate.wait(timeout: .now() + 10) == .success ? "first" : "first timed out")
            order.append(currentThreadID() == caller ? "on the caller" : "on the queue")
        }
        context.perform {
            order.append("second")
            finished.signal()
        }
        gate.signal()
        finished.wait()
        #expect(order.values == ["first", "on the queue", "second"])
    }

    @Test func asyncPerformReturnsTheBlocksValueAndRethrowsItsError() async throws {
        let context = ObjectContext(coordinator: try makeTeamCoordinator(), name: "async")
        let names = try await context.perform { () throws -> [String] in
            for name in ["Bulls", "Celtics"] { context.insert(Team.self).name = name }
            try context.save()
            return try context.fetch(Team.self, sortedBy: [Sort("name")]).map(\.name)
        }
        #expect(names == ["Bulls", "Celtics"])
        await #expect(throws: StrataError.self) {
            try await context.perform { () throws -> Int in
                _ = try context.insert("Coach") // no such entity
                return 0
            }
        }
    }

    @Test func mainQueueContextsRunPerformBlocksOnTheMainQueue() async throws {
        let context = ObjectContext(coordinator: try makeTeamCoordinator(), concurrencyType: .mainQueue, name: "view")
        #expect(context.concurrencyType == .mainQueue)
        let onMain = try await context.perform { isOnMainQueue() }
        #expect(onMain)
        let count = try await context.perform { () throws -> Int in
            context.insert(Team.self).name = "Heat"
            try context.save()
            return try context.count(FetchRequest(entityName: "Team"))
        }
        #expect(count == 1)
    }
}
