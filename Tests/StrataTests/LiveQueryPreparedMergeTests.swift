import Dispatch
import Foundation
import Strata
import StrataCore
import StrataEngine
import StrataRandomGraph
import StrataTestSupport
import Testing

/// A view context that merges its sibling's saves has its live queries' share of each merge
/// prepared by the parent that announces it: the inserted objects matched, their entries built
/// and ordered off the view's queue, which then only merges ordered runs. The preparation
/// answers only while nothing it read changed; otherwise the view decides on its queue.
@Suite struct LiveQueryPreparedMergeTests {
    static let model = LiveQueryStackTests.model

    /// A writer on an in-memory store holding `employees` employees (even keys), a view context
    /// under it that merges its sibling's saves, and a worker beside the view.
    static func stack(employees: Int) throws -> (writer: ObjectContext, view: ObjectContext, worker: ObjectContext) {
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addStore(BuiltInBackends.registry.open(StoreURL(scheme: "memory", location: ""), model: model))
        let seeding = ObjectContext(coordinator: coordinator)
        for key in 0..<employees { try LiveQueryRenameTests.insertEmployee(seeding, key: Int64(key * 2)) }
        try seeding.save()
        let writer = ObjectContext(coordinator: coordinator, name: "writer")
        let view = ObjectContext(parent: writer, name: "view")
        view.automaticallyMergesChangesFromParent = true
        return (writer, view, ObjectContext(parent: writer, name: "import"))
    }

    /// A controller over `request` on `view`, its first fetch done, kept by the holder returned.
    static func observe(_ request: FetchRequest, in view: ObjectContext) throws -> LiveQueryStackTests.Holder {
        let holder = LiveQueryStackTests.Holder()
        try view.performAndWait {
            let controller = FetchedResultsController(fetchRequest: request, context: view)
            try controller.performFetch()
            holder.controller = controller
        }
        return holder
    }

    /// Merging a save of `k` new objects into a list of `n` decides them off the view's queue:
    /// the view's queue evaluates no predicate for them, sorts nothing, and places them with
    /// O(k log(n/k)) comparisons, not O(n).
    @Test func aPreparedMergePlacesTheInsertedObjectsWithoutComparingTheWholeList() throws {
        let listed = 4_000
        let imported = 20
        let (_, view, worker) = try Self.stack(employees: listed)
        let request = FetchRequest(entityName: "Employee", sorts: [Sort("key")])
        let holder = try Self.observe(request, in: view)
        let before = view.performAndWait { view.liveQueryStatistics }
        try worker.performAndWait {
            // Spread over the list, in an order the list does not have.
            for index in (0..<imported).reversed() {
                try LiveQueryRenameTests.insertEmployee(worker, key: Int64(index * (2 * listed / imported) + 1))
            }
            try worker.save()
        }
        let (after, shown, fetched) = try view.performAndWait {
            (view.liveQueryStatistics, holder.controller?.fetchedObjectIDs ?? [], try view.fetchObjectIDs(request))
        }
        #expect(shown == fetched)
        #expect(shown.count == listed + imported)
        #expect(after.preparedMerges - before.preparedMerges == 1)
        #expect(after.preparedDecisions - before.preparedDecisions == imported)
        #expect(after.preparedMergeFallbacks == before.preparedMergeFallbacks)
        let comparisons = after.mergeComparisons - before.mergeComparisons
        // Galloping 200 entries back from the next place: about 2 log2(200) + 2 each.
        let bound = imported * (2 * Int(log2(Double(listed / imported))) + 4)
        #expect(comparisons > 0)
        #expect(comparisons <= bound, "\(comparisons) comparisons to place \(imported) entries among \(listed)")
    }

    /// A view with no live query when a sibling's save is announced merges it without the
    /// pushed states (none are gathered for it). A query the view makes before that merge
    /// reaches its queue reads what the merge needs from the parent, and lists what a fetch does:
    /// the new objects, and a listed object the save moved to the end.
    @Test func aQueryMadeBeforeAMergeWithoutStatesListsWhatAFetchDoes() throws {
        let (_, view, worker) = try Self.stack(employees: 10)
        let request = FetchRequest(entityName: "Employee", sorts: [Sort("key")])
        let pushed = DispatchSemaphore(value: 0)
        let subscribed = DispatchSemaphore(value: 0)
        let holder = LiveQueryStackTests.Holder()
        // Holds the view's queue, so that the merge of the save waits behind this block.
        view.perform {
            pushed.wait()
            let controller = FetchedResultsController(fetchRequest: request, context: view)
            try? controller.performFetch()
            holder.controller = controller
            subscribed.signal()
        }
        try worker.performAndWait {
            for key in 0..<5 { try LiveQueryRenameTests.insertEmployee(worker, key: Int64(key * 2 + 1)) }
            let first = try #require(
                worker.fetch(FetchRequest(entityName: "Employee", sorts: [Sort("key")], limit: 1)).first)
            first["key"] = .integer(1_000)
            try worker.save()
        }
        pushed.signal()
        subscribed.wait()
        let (shown, fetched) = try view.performAndWait {
            (holder.controller?.fetchedObjectIDs ?? [], try view.fetchObjectIDs(request))
        }
        #expect(shown.count == 15)
        #expect(shown == fetched)
    }

    /// A list's tables are sized where it is loaded: merges that grow it up to twice its size
    /// never rehash them on the view's queue; past that, one merge does, then has room again.
    @Test func aListGrowsToTwiceItsSizeWithoutRehashingInAMerge() throws {
        let listed = 300
        let (_, view, worker) = try Self.stack(employees: listed)
        let request = FetchRequest(entityName: "Employee", sorts: [Sort("key")])
        let holder = try Self.observe(request, in: view)
        func importChunk(_ chunk: Int, size: Int) throws -> LiveQueryStatistics {
            try worker.performAndWait {
                for index in 0..<size {
                    try LiveQueryRenameTests.insertEmployee(worker, key: Int64(2 * (chunk * size + index) + 1))
                }
                try worker.save()
            }
            return try view.performAndWait {
                let fetched = try view.fetchObjectIDs(request)
                #expect(holder.controller?.fetchedObjectIDs == fetched)
                return view.liveQueryStatistics
            }
        }
        for chunk in 0..<6 {
            let statistics = try importChunk(chunk, size: listed / 6)
            #expect(statistics.tablesGrownInMerges == 0, "after \(chunk + 1) chunks")
        }
        // Twice as many as loaded, and more: the tables grow once, in one merge, for both.
        let statistics = try importChunk(6, size: listed)
        #expect(statistics.tablesGrownInMerges == 2)
        view.performAndWait { holder.controller = nil }
    }

    /// Saves of the worker interleaved at random with what the view does between a save's
    /// preparation and its merge (loads and edits the pushed objects, adds and ends live
    /// queries, rolls back, resets) and with the writer's saves (which rename the objects): every
    /// list still equals a fresh fetch after each step, and stale preparations were caught.
    @Test(arguments: [5, 11, 23])
    func stalePreparationsAreDecidedOnTheQueue(_ seed: UInt64) throws {
        let (writer, view, worker) = try Self.stack(employees: 30)
        let sorted = FetchRequest(entityName: "Employee", sorts: [Sort("key")])
        let filtered = FetchRequest(
            entityName: "Employee", predicate: try ObjectPredicate(format: "key < 90"),
            sorts: [Sort("rank", ascending: false), Sort("key")])
        let holder = LiveQueryStackTests.Holder()
        let extra = Locked<[FetchedResultsController]>([])
        var filteredController: FetchedResultsController?
        try view.performAndWait {
            let controller = FetchedResultsController(fetchRequest: sorted, context: view)
            try controller.performFetch()
            holder.controller = controller
            let second = FetchedResultsController(fetchRequest: filtered, context: view)
            try second.performFetch()
            filteredController = second
        }
        var random = SeededGenerator(seed: seed)
        var nextKey: Int64 = 1
        for _ in 0..<24 {
            let pushed = Locked<[ObjectID]>([])
            let gate = DispatchSemaphore(value: 0)
            let action = Int.random(in: 0..<6, using: &random)
            let pick = UInt64.random(in: 0..<UInt64.max, using: &random)
            // Held until the worker's save is announced: runs between the preparation and the merge.
            view.perform {
                gate.wait()
                var random = SeededGenerator(seed: pick)
                let ids = pushed.withLock { $0 }
                switch action {
                case 0:
                    // Loads some pushed objects: the merge must take their state from the view.
                    // (One the writer's save renamed meanwhile is gone under its old ID.)
                    for id in ids.shuffled(using: &random).prefix(3) { _ = try? view.existingObject(with: id) }
                case 1:
                    // Edits one: its place follows the view's edit, not the push.
                    if let id = ids.randomElement(using: &random), let object = try? view.existingObject(with: id) {
                        object["key"] = .integer(Int64.random(in: -20..<200, using: &random))
                        object["rank"] = .integer(Int64.random(in: 0..<3, using: &random))
                    }
                case 2:
                    // Adds or ends a live query: the preparation's queries are no longer the view's.
                    let controllers = extra.withLock { $0 }
                    if controllers.isEmpty || Bool.random(using: &random) {
                        let controller = FetchedResultsController(fetchRequest: filtered, context: view)
                        try? controller.performFetch()
                        extra.withLock { $0.append(controller) }
                    } else {
                        extra.withLock { _ = $0.removeLast() }
                    }
                case 3:
                    view.rollback()
                case 4:
                    view.reset()
                default:
                    break
                }
            }
            try worker.performAndWait {
                var made: [ManagedObject] = []
                for _ in 0..<Int.random(in: 1..<6, using: &random) {
                    let employee = try worker.insert("Employee")
                    // Ties with listed keys now and then.
                    employee["key"] = .integer(Bool.random(using: &random) ? nextKey : nextKey - 1)
                    employee["name"] = .string("ann")
                    employee["rank"] = .integer(Int64.random(in: 0..<3, using: &random))
                    employee["score"] = .double(0)
                    nextKey += 2
                    made.append(employee)
                }
                try worker.save()
                pushed.withLock { $0 = made.map(\.objectID) }
            }
            gate.signal()
            if Bool.random(using: &random) { try writer.performAndWait { try writer.save() } }
            try view.performAndWait {
                view.processPendingChanges()
                let fresh = try view.fetchObjectIDs(sorted)
                #expect(holder.controller?.fetchedObjectIDs == fresh, "seed \(seed): the sorted list")
                let freshFiltered = try view.fetchObjectIDs(filtered)
                #expect(filteredController?.fetchedObjectIDs == freshFiltered, "seed \(seed): the filtered list")
                for controller in extra.withLock({ $0 }) {
                    #expect(controller.fetchedObjectIDs == freshFiltered, "seed \(seed): an added list")
                }
            }
        }
        let statistics = view.performAndWait { view.liveQueryStatistics }
        #expect(statistics.preparedMerges > 0)
        #expect(statistics.preparedDecisions > 0)
        #expect(statistics.preparedMergeFallbacks + statistics.preparedObjectFallbacks > 0)
        view.performAndWait {
            holder.controller = nil
            filteredController = nil
            extra.withLock { $0 = [] }
        }
    }
}
