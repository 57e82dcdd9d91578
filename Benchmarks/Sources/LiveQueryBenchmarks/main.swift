// Live queries kept up to date by one context's changes, as a synchronous program (callgrind
// works on it).
//
//   swift build -c release --package-path Benchmarks --product LiveQueryBenchmarks
//   Benchmarks/.build/release/LiveQueryBenchmarks save [objects] [queries] [changed] [runs] [sorted|unread]
//   Benchmarks/.build/release/LiveQueryBenchmarks fanout [queries] [runs] [unrelated|same]
//   Benchmarks/.build/release/LiveQueryBenchmarks merge [objects] [chunk] [chunks]
//
// `save`: `objects` items in `queries` groups, one live query per group (`group == i`, sorted by
// `value`), each a fetched-results controller whose delegate counts the changes; one save that
// changes `changed` items (`sorted`: their `value`, so they move within their group's results;
// `unread`: their `note`, which no query reads, so they are only reported as updated). Prints
// the time of the save with the queries and without them, the changes delivered and the
// refetches (zero: every change is decided from the changed objects).
//
// `fanout`: `queries` live queries on unrelated predicates (`group == i`, one item each), and
// one change of one item: of a property none of them reads (`unrelated`), or of the `group`
// they all read (`same`). Prints the time of processing that change with the queries and
// without them, and how many queries matched the item again.
//
// `merge`: the view context of a three-level stack (writer, view and worker on a memory store)
// lists every item sorted by `value` while the worker saves `chunks` chunks of `chunk` new
// items, the writer saving after each; the view merges each save (its queue held until the
// save is announced, so that each merge is timed alone). Prints the median merge, the changed
// objects matched without a refetch and the refetches.

import BenchmarkSupport
import Foundation
import Strata

let arguments = Array(CommandLine.arguments.dropFirst())
let mode = arguments.first ?? "save"

let model = try! Model(
    versionIdentifier: "live-bench",
    entities: [
        Entity(
            "Item",
            attributes: [
                Attribute("key", .integer64), Attribute("group", .integer64), Attribute("value", .integer64),
                Attribute("note", .string),
            ],
            indexes: [Entity.Index(name: "byGroup", properties: ["group"])])
    ])

/// Counts a controller's delegate calls.
final class Counter: FetchedResultsControllerDelegate {
    var changes = 0
    var batches = 0
    func controller(
        _ controller: FetchedResultsController, didChange objectID: ObjectID, at index: Int?,
        for type: FetchedResultsChangeType, newIndex: Int?
    ) { changes += 1 }
    func controllerDidChangeContent(_ controller: FetchedResultsController) { batches += 1 }
}

/// The view context's list and its delegate, touched only on the view context's queue.
final class ListHolder: @unchecked Sendable {
    var list: FetchedResultsController?
    let counter = Counter()
}

/// A context on a new memory store with `count` items in `groups` groups.
func populated(_ count: Int, groups: Int) throws -> ObjectContext {
    let coordinator = StoreCoordinator(model: model)
    try coordinator.addStore(BuiltInBackends.registry.open(StoreURL(scheme: "memory", location: ""), model: model))
    let context = ObjectContext(coordinator: coordinator)
    for key in 0..<count {
        let item = try context.insert("Item")
        item["key"] = .integer(Int64(key))
        item["group"] = .integer(Int64(key % groups))
        item["value"] = .integer(Int64(key))
        item["note"] = .string("n")
    }
    try context.save()
    return context
}

/// Live controllers on `context`, one per group.
func controllers(_ context: ObjectContext, groups: Int, delegate: Counter) throws -> [FetchedResultsController] {
    try (0..<groups).map { group in
        let request = FetchRequest(
            entityName: "Item", predicate: try ObjectPredicate(format: "group == %@", Int64(group)),
            sorts: [Sort("value")])
        let controller = FetchedResultsController(fetchRequest: request, context: context)
        controller.delegate = delegate
        try controller.performFetch()
        return controller
    }
}

switch mode {
case "list":
    // One live list of every item (sorted by `value`), `objects` items at first, then `chunks`
    // inserts of `chunk` items, each processed and then saved in the same context: the
    // insertions into a long list, and the renames of a save.
    let objects = arguments.count > 1 ? Int(arguments[1]) ?? 100_000 : 100_000
    let chunk = arguments.count > 2 ? Int(arguments[2]) ?? 5_000 : 5_000
    let chunks = arguments.count > 3 ? Int(arguments[3]) ?? 4 : 4
    let context = try populated(objects, groups: 1)
    let counter = Counter()
    let list = FetchedResultsController(
        fetchRequest: FetchRequest(entityName: "Item", sorts: [Sort("value")]), context: context)
    list.delegate = counter
    try list.performFetch()
    var processing: [Double] = []
    var saving: [Double] = []
    for index in 0..<chunks {
        for key in 0..<chunk {
            let item = try context.insert("Item")
            item["key"] = .integer(Int64(objects + index * chunk + key))
            item["group"] = 0
            item["value"] = .integer(Int64((key * 7_919) % objects))
            item["note"] = .string("n")
        }
        processing.append(milliseconds { context.processPendingChanges() })
        saving.append(milliseconds { try! context.save() })
    }
    precondition(list.fetchedObjectIDs.count == objects + chunks * chunk, "the list holds every item")
    print(
        "list objects=\(objects) chunk=\(chunk) chunks=\(chunks) process median=\(format(median(processing))) ms"
            + " save median=\(format(median(saving))) ms batches=\(counter.batches) changes=\(counter.changes)")
case "merge":
    let objects = arguments.count > 1 ? Int(arguments[1]) ?? 100_000 : 100_000
    let chunk = arguments.count > 2 ? Int(arguments[2]) ?? 5_000 : 5_000
    let chunks = arguments.count > 3 ? Int(arguments[3]) ?? 4 : 4
    let writer = try populated(objects, groups: 1)
    let view = ObjectContext(parent: writer, name: "view")
    view.automaticallyMergesChangesFromParent = true
    let worker = ObjectContext(parent: writer, name: "import")
    let holder = ListHolder()
    try view.performAndWait {
        let list = FetchedResultsController(
            fetchRequest: FetchRequest(entityName: "Item", sorts: [Sort("value")]), context: view)
        list.delegate = holder.counter
        try list.performFetch()
        holder.list = list
    }
    var merging: [Double] = []
    for index in 0..<chunks {
        let gate = DispatchSemaphore(value: 0)
        view.perform { gate.wait() }
        try worker.performAndWait {
            for key in 0..<chunk {
                let item = try worker.insert("Item")
                item["key"] = .integer(Int64(objects + index * chunk + key))
                item["group"] = 0
                item["value"] = .integer(Int64((key * 7_919) % objects))
                item["note"] = .string("n")
            }
            try worker.save()
        }
        gate.signal()
        merging.append(milliseconds { view.performAndWait {} })
        try writer.performAndWait { try writer.save() }
    }
    let (listed, statistics) = view.performAndWait {
        (holder.list?.fetchedObjectIDs.count ?? 0, view.liveQueryStatistics)
    }
    let counter = view.performAndWait { (batches: holder.counter.batches, changes: holder.counter.changes) }
    precondition(listed == objects + chunks * chunk, "the list holds every item")
    print(
        "merge objects=\(objects) chunk=\(chunk) chunks=\(chunks) merge median=\(format(median(merging))) ms"
            + " matched=\(statistics.localDecisions) refetches=\(statistics.refetches) batches=\(counter.batches) changes=\(counter.changes)"
    )
case "fanout":
    let queries = arguments.count > 1 ? Int(arguments[1]) ?? 10_000 : 10_000
    let runs = arguments.count > 2 ? Int(arguments[2]) ?? 5 : 5
    let same = arguments.count > 3 && arguments[3] == "same"
    for watching in [false, true] {
        let context = try populated(queries, groups: queries)
        let counter = Counter()
        let kept = watching ? try controllers(context, groups: queries, delegate: counter) : []
        let byKey = try ObjectPredicate(format: "key == %@", Int64(7))
        let item = Array(try context.fetch(FetchRequest(entityName: "Item", predicate: byKey)))[0]
        var times: [Double] = []
        for run in 0..<runs {
            if same {
                item["group"] = .integer(Int64((7 + run + 1) % queries))
            } else {
                item["note"] = .string("n\(run)")
            }
            times.append(milliseconds { context.processPendingChanges() })
        }
        let statistics = context.liveQueryStatistics
        print(
            "fanout \(same ? "same" : "unrelated") queries=\(watching ? queries : 0) median=\(format(median(times))) ms"
                + " matched=\(statistics.localDecisions) updated=\(statistics.membershipUpdates) refetches=\(statistics.refetches) delivered=\(counter.changes)"
        )
        withExtendedLifetime(kept) {}
    }
default:
    let count = arguments.count > 1 ? Int(arguments[1]) ?? 100_000 : 100_000
    let queries = arguments.count > 2 ? Int(arguments[2]) ?? 1_000 : 1_000
    let changed = arguments.count > 3 ? Int(arguments[3]) ?? 10_000 : 10_000
    let runs = arguments.count > 4 ? Int(arguments[4]) ?? 3 : 3
    let unread = arguments.count > 5 && arguments[5] == "unread"
    for watching in [false, true] {
        var times: [Double] = []
        var delivered = 0
        var statistics = LiveQueryStatistics()
        for run in 0..<runs {
            let context = try populated(count, groups: queries)
            let counter = Counter()
            let kept = watching ? try controllers(context, groups: queries, delegate: counter) : []
            let items = Array(try context.fetch(FetchRequest(entityName: "Item", sorts: [Sort("key")], limit: changed)))
            for (index, item) in items.enumerated() {
                if unread { item["note"] = .string("m\(run)") } else { item["value"] = .integer(Int64(count - index)) }
            }
            times.append(milliseconds { try! context.save() })
            delivered = counter.changes
            statistics = context.liveQueryStatistics
            withExtendedLifetime(kept) {}
        }
        print(
            "save \(unread ? "unread" : "sorted") objects=\(count) queries=\(watching ? queries : 0) changed=\(changed)"
                + " median=\(format(median(times))) ms delivered=\(delivered) matched=\(statistics.localDecisions)"
                + " updated=\(statistics.membershipUpdates) refetches=\(statistics.refetches)")
    }
}
