// The object graph on SQLite the way users write it: typed `@Managed` subclass objects and
// objects by attribute name, default fetch options, lookups by an indexed key attribute, update
// loops in one context. Each workload is its own function, so one `valgrind --tool=callgrind`
// run gives every workload's instructions (`callgrind_annotate --inclusive=yes`). A last argument
// `lmdb` runs them on the LMDB store instead, to compare the two stores' profiles.
import BenchmarkSupport
import Foundation
import Strata

var arguments = Array(CommandLine.arguments.dropFirst())
let usage = "usage: UserPathBenchmarks [runs] [count] [sqlite|lmdb]"
/// The store the workloads run on (`sqlite` unless the last argument names `lmdb`).
let scheme = arguments.last.flatMap { ["sqlite", "lmdb"].contains($0) ? $0 : nil } ?? "sqlite"
if arguments.last == scheme { arguments.removeLast() }
guard arguments.allSatisfy({ Int($0) != nil }) else {
    print(usage)
    exit(2)
}
let runs = arguments.count > 0 ? Int(arguments[0])! : 5
let count = arguments.count > 1 ? Int(arguments[1])! : 100_000
let workload = Workload(count: count)
/// Lookups by ID (W3): as many as the performance note's 100,000 at N = 100,000.
let lookupKeys = Array(workload.lookupKeys.prefix(count))
/// Lookups by key attribute (each a fetch): a tenth as many, each is a query.
let keyLookups = Array(workload.lookupKeys.prefix(count / 10))

/// A typed record: the workload's record with its key as an indexed attribute.
@Managed
final class TypedRecord: ManagedObject {
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

    override class var indexes: [Entity.Index] { [Entity.Index(name: "byKey", properties: ["key"])] }
}

let typedModel = try! Model(versionIdentifier: "typed", classes: [TypedRecord.self])
let names = ["key", "i1", "i2", "i3", "d1", "d2", "d3", "s1", "s2", "s3"]
let namedModel = try! Model(
    versionIdentifier: "named",
    entities: [
        Entity(
            "Record",
            attributes: names.map {
                Attribute($0, $0 == "key" || $0.hasPrefix("i") ? .integer64 : $0.hasPrefix("d") ? .double : .string)
            },
            indexes: [Entity.Index(name: "byKey", properties: ["key"])])
    ])

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-user-path")
var sink = 0

/// A fresh store of `scheme` at a fixed path (the same path every run, so instruction counts
/// repeat).
func coordinator(_ model: Model, file: String) -> StoreCoordinator {
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let path = directory.appendingPathComponent("\(file).\(scheme)").path
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    let coordinator = StoreCoordinator(model: model)
    try! coordinator.addStore(BuiltInBackends.registry.open("\(scheme):\(path)", model: model))
    return coordinator
}

// MARK: Typed objects

@MainActor @inline(never) func typedInsert(_ coordinator: StoreCoordinator) -> [ObjectID] {
    let context = ObjectContext(coordinator: coordinator)
    var objects: [TypedRecord] = []
    objects.reserveCapacity(workload.records.count)
    for r in workload.records {
        let object = context.insert(TypedRecord.self)
        object.key = r.id
        object.i1 = r.i1
        object.i2 = r.i2
        object.i3 = r.i3
        object.d1 = r.d1
        object.d2 = r.d2
        object.d3 = r.d3
        object.s1 = r.s1
        object.s2 = r.s2
        object.s3 = r.s3
        objects.append(object)
    }
    try! context.save()
    return objects.map(\.objectID)
}

@MainActor @inline(never) func typedFetchAll(_ coordinator: StoreCoordinator) {
    let context = ObjectContext(coordinator: coordinator)
    for object in try! context.fetch(TypedRecord.self) { sink &+= Int(object.i1) &+ object.s1.utf8.count }
}

@MainActor @inline(never) func typedLookupsByID(_ coordinator: StoreCoordinator, _ ids: [ObjectID]) {
    let context = ObjectContext(coordinator: coordinator)
    for k in lookupKeys {
        let object = context.object(with: ids[Int(k - 1)]) as! TypedRecord
        sink &+= Int(object.i2)
    }
}

@MainActor @inline(never) func typedLookupsByKey(_ coordinator: StoreCoordinator) {
    let context = ObjectContext(coordinator: coordinator)
    for k in keyLookups {
        for object in try! context.fetch(TypedRecord.self, where: .key("key") == k) { sink &+= Int(object.i2) }
    }
}

@MainActor @inline(never) func typedUpdate(_ coordinator: StoreCoordinator) {
    let context = ObjectContext(coordinator: coordinator)
    for k in workload.updateKeys {
        for object in try! context.fetch(TypedRecord.self, where: .key("key") == k) { object.i2 += 1 }
    }
    try! context.save()
}

@MainActor @inline(never) func typedDelete(_ coordinator: StoreCoordinator) {
    let context = ObjectContext(coordinator: coordinator)
    for k in workload.deleteKeys {
        for object in try! context.fetch(TypedRecord.self, where: .key("key") == k) { context.delete(object) }
    }
    try! context.save()
}

// MARK: Objects by attribute name

@MainActor @inline(never) func namedInsert(_ coordinator: StoreCoordinator) -> [ObjectID] {
    let context = ObjectContext(coordinator: coordinator)
    var objects: [ManagedObject] = []
    objects.reserveCapacity(workload.records.count)
    for r in workload.records {
        let object = try! context.insert("Record")
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
    try! context.save()
    return objects.map(\.objectID)
}

@MainActor @inline(never) func namedFetchAll(_ coordinator: StoreCoordinator) {
    let context = ObjectContext(coordinator: coordinator)
    for object in try! context.fetch(FetchRequest(entityName: "Record")) {
        if case .integer(let v) = object["i1"], case .string(let s) = object["s1"] { sink &+= Int(v) &+ s.utf8.count }
    }
}

@MainActor @inline(never) func namedLookupsByID(_ coordinator: StoreCoordinator, _ ids: [ObjectID]) {
    let context = ObjectContext(coordinator: coordinator)
    for k in lookupKeys {
        if case .integer(let v) = context.object(with: ids[Int(k - 1)])["i2"] { sink &+= Int(v) }
    }
}

@MainActor @inline(never) func namedLookupsByKey(_ coordinator: StoreCoordinator) {
    let context = ObjectContext(coordinator: coordinator)
    for k in keyLookups {
        for object in try! context.fetch(FetchRequest(entityName: "Record", predicate: .key("key") == k)) {
            if case .integer(let v) = object["i2"] { sink &+= Int(v) }
        }
    }
}

@MainActor @inline(never) func namedUpdate(_ coordinator: StoreCoordinator) {
    let context = ObjectContext(coordinator: coordinator)
    for k in workload.updateKeys {
        for object in try! context.fetch(FetchRequest(entityName: "Record", predicate: .key("key") == k)) {
            if case .integer(let v) = object["i2"] { try! object.set(v + 1, for: "i2") }
        }
    }
    try! context.save()
}

@MainActor @inline(never) func namedDelete(_ coordinator: StoreCoordinator) {
    let context = ObjectContext(coordinator: coordinator)
    for k in workload.deleteKeys {
        for object in try! context.fetch(FetchRequest(entityName: "Record", predicate: .key("key") == k)) {
            context.delete(object)
        }
    }
    try! context.save()
}

// MARK: Runs

let workloads = [
    "insert + save", "fetch all", "lookups by ID", "lookups by key", "update 10%", "delete 10%",
]
var typedTimes = [[Double]](repeating: [], count: workloads.count)
var namedTimes = [[Double]](repeating: [], count: workloads.count)

/// Runs the six workloads in order on a fresh store, recording each one's wall time.
@MainActor func runAll(
    _ times: inout [[Double]], coordinator: StoreCoordinator, insert: (StoreCoordinator) -> [ObjectID],
    fetchAll: (StoreCoordinator) -> Void, byID: (StoreCoordinator, [ObjectID]) -> Void,
    byKey: (StoreCoordinator) -> Void, update: (StoreCoordinator) -> Void, delete: (StoreCoordinator) -> Void
) {
    var ids: [ObjectID] = []
    times[0].append(milliseconds { ids = insert(coordinator) })
    times[1].append(milliseconds { fetchAll(coordinator) })
    times[2].append(milliseconds { byID(coordinator, ids) })
    times[3].append(milliseconds { byKey(coordinator) })
    times[4].append(milliseconds { update(coordinator) })
    times[5].append(milliseconds { delete(coordinator) })
}

for _ in 0..<runs {
    runAll(
        &typedTimes, coordinator: coordinator(typedModel, file: "typed"), insert: typedInsert,
        fetchAll: typedFetchAll, byID: typedLookupsByID, byKey: typedLookupsByKey, update: typedUpdate,
        delete: typedDelete)
    runAll(
        &namedTimes, coordinator: coordinator(namedModel, file: "named"), insert: namedInsert,
        fetchAll: namedFetchAll, byID: namedLookupsByID, byKey: namedLookupsByKey, update: namedUpdate,
        delete: namedDelete)
}

print("User paths on \(scheme), N = \(count), \(runs) runs, median wall ms")
print("| workload | typed | by name |")
print("|---|---:|---:|")
for (index, name) in workloads.enumerated() {
    print("| \(name) | \(format(median(typedTimes[index]))) | \(format(median(namedTimes[index]))) |")
}
print("peak RSS \(format(peakResidentMiB())) MiB (checksum \(sink & 0xff))")
