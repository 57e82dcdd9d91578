// The save path of a user's background task, synchronously, for callgrind: a SQLite store under
// a coordinator, a writer context on it with a view context under it, and a background context
// under the writer for each task (the default container stack), an entity with a unique integer
// key. Inserts N objects in a background context and saves it, then the writer; then fetches
// 10% by key, changes three attributes and saves both levels; then deletes another 10% and
// saves both levels. Prints, for each task, the time of its work, of the background context's
// save and of the writer's save.
//
//   SavePathBenchmarks [count] [loop|batch|insert|insert-typed|fetch-typed[-2tier]] [directory] [history=on|off]
//
// `loop` fetches each object of the update and delete tasks by key, one fetch per object (the
// user's loop); `batch` fetches them with one `key IN {...}` fetch per 500 keys, so that the
// fetches' evaluation of pending changes does not hide the save path; `insert` runs the insert
// task alone (the instructions of one object's insert and save through both levels);
// `insert-typed` runs it with typed `@Managed` objects (`context.insert(Item.self)` and property
// sets, as ObjectGraphBenchmarks' typed side does); `fetch-typed` runs it, then fetches every
// object in a new background context and reads each. A `-2tier` suffix (`insert-typed-2tier`,
// `fetch-typed-2tier`) runs each task in a context straight on the coordinator instead, whose
// save writes the store (a two-tier container's background context): the difference is what
// the writer costs. `history=off` opens the store without persistent history (on by default),
// to compare what recording it costs each save.
import BenchmarkSupport
import Foundation
import Strata

let arguments = Array(CommandLine.arguments.dropFirst())
let count = arguments.first.flatMap { Int($0) } ?? 20_000
let batch = arguments.count > 1 && arguments[1] == "batch"
let mode = arguments.count > 1 ? arguments[1] : "loop"
/// Each task in a context on the coordinator, not under the writer.
let twoTier = mode.hasSuffix("-2tier")
let fetchesAll = mode.hasPrefix("fetch-typed")
let typed = mode.hasPrefix("insert-typed") || fetchesAll
let insertOnly = mode == "insert" || typed
let directory = arguments.count > 2 && !arguments[2].hasPrefix("history=") ? arguments[2] : NSTemporaryDirectory()
/// The store URL's query: the `history=on|off` argument, when given.
let storeQuery =
    arguments.dropFirst(2).first { $0.hasPrefix("history=") }.map {
        ["history": String($0.dropFirst("history=".count))]
    } ?? [:]
let path = "\(directory)/savepath-\(getpid()).sqlite"
/// Removes the store's files (the program's last step).
func removeStore() {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
}
defer { removeStore() }

/// The record as a typed `@Managed` subclass, the same ten attributes and unique key.
@Managed
final class Item: ManagedObject {
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
}

/// The entity's name in `model`.
let entityName = typed ? "Item" : "Record"
let model =
    typed
    ? try! Model(versionIdentifier: "savepath", classes: [Item.self])
    : try! Model(
        versionIdentifier: "savepath",
        entities: [
            Entity(
                "Record",
                attributes: [Attribute("key", .integer64)]
                    + ["i1", "i2", "i3"].map { Attribute($0, .integer64) }
                    + ["d1", "d2", "d3"].map { Attribute($0, .double) }
                    + ["s1", "s2", "s3"].map { Attribute($0, .string) },
                uniqueConstraints: [["key"]])
        ])

/// The record's key: a bijection of its workload ID, so keys arrive in random order.
func keyOf(_ id: Int64) -> Int64 { Int64(bitPattern: UInt64(bitPattern: id) &* 0x9E37_79B9_7F4A_7C15) }

let workload = Workload(count: count)
let coordinator = StoreCoordinator(model: model)
try! coordinator.addStore(
    BuiltInBackends.registry.open(
        StoreURL(scheme: "sqlite", host: nil, location: path, query: storeQuery), model: model))
let writer = ObjectContext(coordinator: coordinator, name: "writer")
/// The container's view context, a child of the writer, which hears of every permanent ID and,
/// as the container's does, merges every background context's save by itself.
let view = ObjectContext(parent: writer, name: "view")
view.automaticallyMergesChangesFromParent = true

/// Runs `body` in a new background context under the writer, saves it, then saves the writer
/// once the background context is gone, as `performBackgroundTask` does; prints the times.
func task(_ name: String, _ body: (ObjectContext) throws -> Void) {
    var times: [Double] = []
    func background() {
        let context =
            twoTier
            ? ObjectContext(coordinator: coordinator, name: "background")
            : ObjectContext(parent: writer, name: "background")
        try! context.performAndWait {
            times.append(try milliseconds { try body(context) })
            times.append(try milliseconds { try context.save() })
        }
    }
    background()
    times.append(milliseconds { try! writer.performAndWait { if writer.hasChanges { try writer.save() } } })
    print(
        "\(name): work \(format(times[0])) ms, background save \(format(times[1])) ms, writer save \(format(times[2])) ms"
    )
}

/// The objects of `records`, by key: one fetch each, or one per 500 keys.
func objects(_ records: [WorkloadRecord], in context: ObjectContext) throws -> [ManagedObject] {
    if !batch {
        return try records.map { r in
            try context.fetch(FetchRequest(entityName: "Record", predicate: .key("key") == keyOf(r.id), limit: 1))[0]
        }
    }
    var found: [ManagedObject] = []
    for start in stride(from: 0, to: records.count, by: 500) {
        let keys = records[start..<min(start + 500, records.count)].map { Value.integer(keyOf($0.id)) }
        let predicate = ObjectPredicate.comparison(.init(.keyPath("key"), .in, .list(keys.map { .constant($0) })))
        found += try context.fetch(FetchRequest(entityName: "Record", predicate: predicate))
    }
    precondition(found.count == records.count)
    return found
}

task("insert \(count)") { context in
    if typed {
        for r in workload.records {
            let item = context.insert(Item.self)
            item.key = keyOf(r.id)
            item.i1 = r.i1
            item.i2 = r.i2
            item.i3 = r.i3
            item.d1 = r.d1
            item.d2 = r.d2
            item.d3 = r.d3
            item.s1 = r.s1
            item.s2 = r.s2
            item.s3 = r.s3
        }
        return
    }
    for r in workload.records {
        let object = try context.insert("Record")
        try object.set(keyOf(r.id), for: "key")
        try object.set(r.i1, for: "i1")
        try object.set(r.i2, for: "i2")
        try object.set(r.i3, for: "i3")
        try object.set(r.d1, for: "d1")
        try object.set(r.d2, for: "d2")
        try object.set(r.d3, for: "d3")
        try object.set(r.s1, for: "s1")
        try object.set(r.s2, for: "s2")
        try object.set(r.s3, for: "s3")
    }
}
if fetchesAll {
    task("fetch all \(count)") { context in
        var sum = 0
        for item in try context.fetch(Item.self) { sum &+= Int(item.key &+ item.i1) &+ item.s3.utf8.count }
        precondition(sum != 0)
    }
}
if insertOnly {
    let saved = try! writer.performAndWait { try writer.count(FetchRequest(entityName: entityName)) }
    precondition(saved == count, "\(saved) objects saved")
    removeStore()
    exit(0)
}
let tenth = Array(workload.records.prefix(count / 10))
task("update \(tenth.count) by key") { context in
    for object in try objects(tenth.reversed(), in: context) {
        try object.set(try object.value(for: "i1", as: Int64.self) + 1, for: "i1")
        try object.set(try object.value(for: "d1", as: Double.self) + 0.5, for: "d1")
        try object.set(String(try object.value(for: "s1", as: String.self).reversed()), for: "s1")
    }
}
let lastTenth = Array(workload.records.suffix(count / 10))
task("delete \(lastTenth.count) by key") { context in
    for object in try objects(lastTenth, in: context) { context.delete(object) }
}
let remaining = try! writer.performAndWait { try writer.count(FetchRequest(entityName: "Record")) }
precondition(remaining == count - lastTenth.count, "\(remaining) objects left")
_ = view
