import Foundation
import Strata
import StrataCore
import StrataTestSupport
import Testing

/// Live queries: the first element, incremental decisions and when they refetch, coalescing,
/// lifetime, the controller, and bad input.
@Suite struct LiveQueryTests {
    /// A context on a memory store with `count` employees keyed 0..<count (rank = key % 3).
    static func populated(_ count: Int) throws -> ObjectContext {
        let coordinator = StoreCoordinator(model: LiveQueryRandomTests.model)
        try coordinator.addStore(
            BuiltInBackends.registry.open(StoreURL(scheme: "memory", location: ""), model: coordinator.model))
        let context = ObjectContext(coordinator: coordinator)
        let department = try context.insert("Department")
        department["name"] = .string("d0")
        department["budget"] = .integer(0)
        for key in 0..<count {
            let employee = try context.insert("Employee")
            employee["key"] = .integer(Int64(key))
            employee["name"] = .string("e\(key)")
            employee["rank"] = .integer(Int64(key % 3))
            employee["score"] = .double(0)
            try employee.setObject(department, for: "department")
        }
        try context.save()
        return context
    }

    static func employee(_ context: ObjectContext, key: Int) throws -> ManagedObject {
        try #require(try context.fetch(Employee.byKey(key)).first)
    }

    enum Employee {
        static func byKey(_ key: Int) throws -> FetchRequest {
            FetchRequest(entityName: "Employee", predicate: try ObjectPredicate(format: "key == %@", Int64(key)))
        }
    }

    @Test func theFirstElementIsTheFetchWithEverythingInserted() throws {
        let context = try Self.populated(6)
        let request = FetchRequest(entityName: "Employee", sorts: [Sort("key", ascending: false)])
        let iterator = try context.liveResults(for: request).makeAsyncIterator()
        let first = try #require(try iterator.nextIfReady())
        #expect(first.objectIDs == (try context.fetchObjectIDs(request)))
        #expect(first.diff.inserted.map(\.index) == Array(0..<6))
        #expect(first.diff.deleted.isEmpty && first.diff.moved.isEmpty && first.diff.updated.isEmpty)
        #expect(try iterator.nextIfReady() == nil)
    }

    @Test func aChangeIsDecidedLocallyWithItsIndexes() throws {
        let context = try Self.populated(6)
        let request = FetchRequest(
            entityName: "Employee", predicate: try ObjectPredicate(format: "rank == 1"), sorts: [Sort("key")])
        let iterator = try context.liveResults(for: request).makeAsyncIterator()
        let first = try #require(try iterator.nextIfReady())
        #expect(first.objectIDs.count == 2)
        let moving = try Self.employee(context, key: 0)
        moving["rank"] = .integer(1)
        let leaving = try Self.employee(context, key: 4)
        leaving["rank"] = .integer(2)
        context.processPendingChanges()
        let next = try #require(try iterator.nextIfReady())
        #expect(next.diff.inserted == [LiveDiff.Change(objectID: moving.objectID, index: 0)])
        #expect(next.diff.deleted == [LiveDiff.Change(objectID: leaving.objectID, index: 1)])
        #expect(next.objectIDs == (try context.fetchObjectIDs(request)))
        #expect(context.liveQueryStatistics.refetches == 0)
        #expect(context.liveQueryStatistics.localDecisions == 2)
    }

    @Test func aChangeToPropertiesAQueryDoesNotReadOnlyReachesTheQueriesHoldingTheObject() throws {
        let context = try Self.populated(50)
        let iterators = try (0..<50).map { try context.liveResults(for: Employee.byKey($0)).makeAsyncIterator() }
        for index in iterators.indices { _ = try iterators[index].nextIfReady() }
        let renamed = try Self.employee(context, key: 7)
        renamed["name"] = .string("renamed")
        context.processPendingChanges()
        #expect(context.liveQueryStatistics.localDecisions == 0)
        #expect(context.liveQueryStatistics.membershipUpdates == 1)
        for (key, index) in zip(0..., iterators.indices) {
            let result = try iterators[index].nextIfReady()
            #expect((result != nil) == (key == 7))
            if let result { #expect(result.diff.updated == [LiveDiff.Change(objectID: renamed.objectID, index: 0)]) }
        }
        // A change of the key the queries read reaches, by the value index, the query of the old
        // value (which holds it) and the one of the new value: two of fifty, with no refetch.
        renamed["key"] = .integer(8)
        context.processPendingChanges()
        #expect(context.liveQueryStatistics.localDecisions == 2)
        #expect(context.liveQueryStatistics.refetches == 0)
        #expect(try iterators[7].nextIfReady()?.objectIDs == [])
        #expect(try iterators[8].nextIfReady()?.objectIDs.count == 2)
    }

    @Test func aFullLimitWindowThatLosesAMemberRefetchesForTheNextRow() throws {
        let context = try Self.populated(10)
        let request = FetchRequest(entityName: "Employee", sorts: [Sort("key")], limit: 3)
        let iterator = try context.liveResults(for: request).makeAsyncIterator()
        _ = try iterator.nextIfReady()
        // An object sorting before the window's last one joins and pushes the last one out: local.
        let early = try context.insert("Employee")
        early["key"] = .integer(-1)
        early["name"] = .string("early")
        early["rank"] = .integer(0)
        early["score"] = .double(0)
        context.processPendingChanges()
        #expect(context.liveQueryStatistics.refetches == 0)
        #expect(try iterator.nextIfReady()?.objectIDs == (try context.fetchObjectIDs(request)))
        // A member leaves: the next row is not known here.
        context.delete(early)
        context.processPendingChanges()
        #expect(context.liveQueryStatistics.refetches == 1)
        #expect(try iterator.nextIfReady()?.objectIDs == (try context.fetchObjectIDs(request)))
    }

    @Test func aPredicateThroughARelationshipRefetches() throws {
        let context = try Self.populated(4)
        let request = FetchRequest(
            entityName: "Employee", predicate: try ObjectPredicate(format: "department.name == %@", "d1"))
        let iterator = try context.liveResults(for: request).makeAsyncIterator()
        #expect(try iterator.nextIfReady()?.objectIDs.isEmpty == true)
        let department = try #require(try context.fetch(FetchRequest(entityName: "Department")).first)
        department["name"] = .string("d1")
        context.processPendingChanges()
        #expect(context.liveQueryStatistics.refetches == 1)
        #expect(try iterator.nextIfReady()?.objectIDs.count == 4)
    }

    @Test func aConsumerThatFallsBehindGetsTheLatestStateWithOneDiff() throws {
        let context = try Self.populated(5)
        let request = FetchRequest(entityName: "Employee", sorts: [Sort("key")])
        let iterator = try context.liveResults(for: request).makeAsyncIterator()
        let first = try #require(try iterator.nextIfReady())
        for key in 10..<15 {
            let employee = try context.insert("Employee")
            employee["key"] = .integer(Int64(key))
            employee["name"] = .string("e\(key)")
            employee["rank"] = .integer(0)
            employee["score"] = .double(0)
            context.processPendingChanges()
        }
        try context.save()
        let removed = try Self.employee(context, key: 0)
        context.delete(removed)
        context.processPendingChanges()
        let latest = try #require(try iterator.nextIfReady())
        #expect(latest.objectIDs == (try context.fetchObjectIDs(request)))
        #expect(latest.diff.applied(to: first.objectIDs) == latest.objectIDs)
        #expect(latest.diff.inserted.count == 5)
        #expect(latest.diff.deleted == [LiveDiff.Change(objectID: removed.objectID, index: 0)])
        #expect(try iterator.nextIfReady() == nil)
    }

    @Test func aTaskIteratesAndItsCancellationStopsTheObservation() async throws {
        let context = try Self.populated(3)
        let request = FetchRequest(entityName: "Employee", sorts: [Sort("key")])
        let live = try context.performAndWait { try context.liveResults(for: request) }
        let (counts, continuation) = AsyncStream<Int>.makeStream()
        let consumer = Task {
            for try await result in live { continuation.yield(result.objectIDs.count) }
            continuation.finish()
        }
        var received = counts.makeAsyncIterator()
        #expect(await received.next() == 3)
        try await context.perform {
            let employee = try context.insert("Employee")
            employee["key"] = .integer(99)
            employee["name"] = .string("late")
            employee["rank"] = .integer(0)
            employee["score"] = .double(0)
        }
        #expect(await received.next() == 4)
        consumer.cancel()
        #expect(await received.next() == nil)
        let subscriptions = try await context.perform { context.liveQueryStatistics.subscriptions }
        #expect(subscriptions == 0)
    }

    @Test func droppingTheSequenceStopsTheObservation() async throws {
        let context = try Self.populated(3)
        try context.performAndWait {
            let iterator = try context.liveResults(for: FetchRequest(entityName: "Employee")).makeAsyncIterator()
            #expect(try iterator.nextIfReady() != nil)
            #expect(context.liveQueryStatistics.subscriptions == 1)
        }
        let subscriptions = try await context.perform { context.liveQueryStatistics.subscriptions }
        #expect(subscriptions == 0)
    }

    @Test func anUnknownSectionKeyPathIsATypedError() throws {
        let context = try Self.populated(1)
        let error = try #require(throws: StrataError.self) {
            _ = try context.liveResults(for: FetchRequest(entityName: "Employee"), sectionKeyPath: "nope")
        }
        #expect(error.code == .unknownKey)
        #expect(error.message.contains("nope"))
    }

    /// Applies a controller's callbacks to its own copy of the results, as a table view would.
    final class Recorder: FetchedResultsControllerDelegate {
        var rows: [ObjectID] = []
        var deletions: [Int] = []
        var insertions: [(Int, ObjectID)] = []
        var batches = 0
        var updates = 0

        func controllerWillChangeContent(_ controller: FetchedResultsController) {
            deletions = []
            insertions = []
        }
        func controller(
            _ controller: FetchedResultsController, didChange objectID: ObjectID, at index: Int?,
            for type: FetchedResultsChangeType, newIndex: Int?
        ) {
            switch type {
            case .delete: deletions.append(index!)
            case .insert: insertions.append((newIndex!, objectID))
            case .move:
                deletions.append(index!)
                insertions.append((newIndex!, objectID))
            case .update: updates += 1
            }
        }
        func controllerDidChangeContent(_ controller: FetchedResultsController) {
            for index in deletions.sorted(by: >) { rows.remove(at: index) }
            for (index, id) in insertions.sorted(by: { $0.0 < $1.0 }) { rows.insert(id, at: index) }
            batches += 1
        }
    }

    @Test func aControllerTellsItsDelegateAndStopsWhenDropped() async throws {
        let context = try Self.populated(6)
        let recorder = Recorder()
        let request = FetchRequest(entityName: "Employee", sorts: [Sort("rank"), Sort("key")])
        try context.performAndWait {
            let controller = FetchedResultsController(fetchRequest: request, context: context, sectionKeyPath: "rank")
            controller.delegate = recorder
            try controller.performFetch()
            recorder.rows = controller.fetchedObjectIDs
            #expect(controller.sections?.map(\.range.count) == [2, 2, 2])
            let employee = try Self.employee(context, key: 0)
            employee["rank"] = .integer(2)
            try Self.employee(context, key: 1)["score"] = .double(3)
            context.delete(try Self.employee(context, key: 2))
            context.processPendingChanges()
            #expect(recorder.batches == 1)
            #expect(recorder.updates == 2)
            #expect(recorder.rows == controller.fetchedObjectIDs)
            #expect(recorder.rows == (try context.fetchObjectIDs(request)))
            #expect(controller.sections?.map(\.range.count) == [1, 2, 2])
        }
        let subscriptions = try await context.perform { context.liveQueryStatistics.subscriptions }
        #expect(subscriptions == 0)
    }
}
