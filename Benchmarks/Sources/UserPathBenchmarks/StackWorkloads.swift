// The `stack` mode: the lookups by key attribute and the delete of ObjectGraphBenchmarks, run
// the way `performBackgroundTask` runs them in the default three-tier stack (a private-queue
// background context, child of a writer context on the coordinator), but synchronously with
// `performAndWait`, so `valgrind --tool=callgrind` can count each workload's instructions.
import BenchmarkSupport
import Foundation
import Strata

/// ObjectGraphBenchmarks' typed record: its key attribute is unique (so indexed).
@Managed
final class StackItem: ManagedObject {
    var key: Int64
    var i1: Int64
    var i2: Int64
    var i3: Int64
    var d1: Double
    var d2: Double
    var d3: Double
    var s1: String
    var s2: String
    var s3: String
    override class var uniqueConstraints: [[String]] { [["key"]] }

    /// Every value read once, as ObjectGraphBenchmarks reads a looked-up object.
    var touched: Int {
        Int(key &+ i1 &+ i2 &+ i3) &+ Int(d1 + d2 + d3) &+ s1.utf8.count &+ s2.utf8.count &+ s3.utf8.count
    }
}

let stackItemModel = try! Model(versionIdentifier: "stack-typed", classes: [StackItem.self])
let stackRecordModel = try! Model(
    versionIdentifier: "stack-named",
    entities: [
        Entity(
            "StackRecord",
            attributes: names.map {
                Attribute($0, $0 == "key" || $0.hasPrefix("i") ? .integer64 : $0.hasPrefix("d") ? .double : .string)
            },
            uniqueConstraints: [["key"]])
    ])

/// Every value of a by-name object read once.
func touchedByName(_ object: ManagedObject) throws -> Int {
    var sum = 0
    for name in ["key", "i1", "i2", "i3"] { sum &+= Int(try object.value(for: name, as: Int64.self)) }
    for name in ["d1", "d2", "d3"] { sum &+= Int(try object.value(for: name, as: Double.self)) }
    for name in ["s1", "s2", "s3"] { sum &+= try object.value(for: name, as: String.self).utf8.count }
    return sum
}

/// A writer context on a fresh store holding the workload's records, saved; their IDs by
/// workload ID - 1.
@MainActor @inline(never) func stackSeed(_ model: Model, entityName: String, file: String) -> (
    ObjectContext, [ObjectID]
) {
    let writer = ObjectContext(coordinator: coordinator(model, file: file), name: "writer")
    let ids = writer.performAndWait {
        var objects: [ManagedObject] = []
        objects.reserveCapacity(workload.records.count)
        for r in workload.records {
            let object = entityName == "StackItem" ? writer.insert(StackItem.self) : try! writer.insert(entityName)
            try! object.set(r.id, for: "key")
            try! object.set(r.i1, for: "i1")
            try! object.set(r.i2, for: "i2")
            try! object.set(r.i3, for: "i3")
            try! object.set(r.d1, for: "d1")
            try! object.set(r.d2, for: "d2")
            try! object.set(r.d3, for: "d3")
            try! object.set(r.s1, for: "s1")
            try! object.set(r.s2, for: "s2")
            try! object.set(r.s3, for: "s3")
            objects.append(object)
        }
        try! writer.save()
        return objects.map(\.objectID)
    }
    return (writer, ids)
}

/// Runs `body` in a new background context of `writer`, then saves the writer if the body
/// saved into it: `performBackgroundTask` without the queue hops.
@MainActor func backgroundTask(_ writer: ObjectContext, _ body: (ObjectContext) throws -> Void) {
    let context = ObjectContext(parent: writer, name: "background")
    try! context.performAndWait { try body(context) }
    try! writer.performAndWait { if writer.hasChanges { try writer.save() } }
}

@MainActor @inline(never) func stackTypedLookupsByKey(_ writer: ObjectContext, _ keys: [Int64]) {
    backgroundTask(writer) { context in
        for k in keys { sink &+= try context.fetch(StackItem.self, where: .key("key") == k, limit: 1)[0].touched }
    }
}

@MainActor @inline(never) func stackNamedLookupsByKey(_ writer: ObjectContext, _ keys: [Int64]) {
    backgroundTask(writer) { context in
        for k in keys {
            let request = FetchRequest(entityName: "StackRecord", predicate: .key("key") == k, limit: 1)
            sink &+= try touchedByName(try context.fetch(request)[0])
        }
    }
}

@MainActor @inline(never) func stackDelete(_ writer: ObjectContext, _ ids: [ObjectID]) {
    backgroundTask(writer) { context in
        for id in ids { context.delete(context.object(with: id)) }
        try context.save()
    }
}

/// The `stack` mode: `runs` rounds of typed and by-name lookups by key and deletes by ID.
@MainActor func runStackMode(runs: Int, lookups: Int) {
    let keys = Array(workload.lookupKeys.prefix(lookups))
    let deleteIDs = workload.deleteKeys
    var times = [[Double]](repeating: [], count: 4)
    for _ in 0..<runs {
        let (typed, typedIDs) = stackSeed(stackItemModel, entityName: "StackItem", file: "stack-typed.sqlite")
        let (named, namedIDs) = stackSeed(stackRecordModel, entityName: "StackRecord", file: "stack-named.sqlite")
        times[0].append(milliseconds { stackTypedLookupsByKey(typed, keys) })
        times[1].append(milliseconds { stackNamedLookupsByKey(named, keys) })
        times[2].append(milliseconds { stackDelete(typed, deleteIDs.map { typedIDs[Int($0 - 1)] }) })
        times[3].append(milliseconds { stackDelete(named, deleteIDs.map { namedIDs[Int($0 - 1)] }) })
    }
    print("Three-tier stack on SQLite, N = \(count), \(keys.count) lookups, \(deleteIDs.count) deletes, \(runs) runs")
    print("| workload | typed ms | by name ms |")
    print("|---|---:|---:|")
    print("| lookups by key (limit 1) | \(format(median(times[0]))) | \(format(median(times[1]))) |")
    print("| delete by ID + save | \(format(median(times[2]))) | \(format(median(times[3]))) |")
    print("peak RSS \(format(peakResidentMiB())) MiB (checksum \(sink & 0xff))")
}
