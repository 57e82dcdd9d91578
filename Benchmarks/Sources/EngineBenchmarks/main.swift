// W1-W5 of the performance note through Strata's object graph (ObjectContext on the in-memory
// store) and through a plain Swift Dictionary, alternating in one process.
import BenchmarkSupport
import Foundation
import Strata

let arguments = Array(CommandLine.arguments.dropFirst())
/// `EngineBenchmarks profile W2 [repeats]` runs the Strata side of one workload only (after
/// whatever earlier workloads it needs), for `perf record` and `valgrind --tool=callgrind`.
let profiled: Int? =
    arguments.first == "profile"
    ? ["W1", "W2", "W3", "W4", "W5"].firstIndex(of: arguments.count > 1 ? arguments[1] : "") : nil
if arguments.first == "profile" && profiled == nil {
    print("usage: EngineBenchmarks [runs] | EngineBenchmarks profile W1|W2|W3|W4|W5 [repeats]")
    exit(2)
}
let runs = profiled != nil ? (arguments.count > 2 ? Int(arguments[2]) ?? 5 : 5) : Int(arguments.first ?? "") ?? 5
let workload = Workload()
let names = ["i1", "i2", "i3", "d1", "d2", "d3", "s1", "s2", "s3"]
let model = try! Model(
    versionIdentifier: "bench",
    entities: [
        Entity(
            "Record",
            attributes:
                names.map { Attribute($0, $0.hasPrefix("i") ? .integer64 : $0.hasPrefix("d") ? .double : .string) })
    ])

/// The raw baseline: the records in a dictionary by key.
struct RawRecord {
    var i1, i2, i3: Int64
    var d1, d2, d3: Double
    var s1, s2, s3: String
}

func values(_ r: WorkloadRecord) -> [Value] {
    [
        .integer(r.i1), .integer(r.i2), .integer(r.i3), .double(r.d1), .double(r.d2), .double(r.d3), .string(r.s1),
        .string(r.s2), .string(r.s3),
    ]
}

/// The floor of any object graph, with no engine at all: one class instance per record,
/// registered by key so that a key gives one instance, holding the record's values as one
/// array (shared with the store's copy until it changes, as copy-on-write does); a save
/// writes the changed arrays into a `[Int64: [Value]]` store. No change tracking, validation,
/// notifications or IDs. The Dictionary baseline makes no object at all.
final class FloorObject {
    let key: Int64
    var values: [Value]
    init(key: Int64, values: [Value]) {
        self.key = key
        self.values = values
    }
}
var floorRows = ["W1", "W2", "W3", "W4", "W5", "W2, objects only (no registry)"].map {
    ComparisonRow(workload: $0, target: 3.0)
}
/// The floor's store, made by its W1 and used by the later workloads of the same run.
var floorStore: [Int64: [Value]] = [:]
/// What a floor workload made, released outside its timed region like the other sides' state.
var floorKept: [FloorObject] = []
var floorRegistry: [Int64: FloorObject] = [:]

/// Runs one floor workload, timed, then releases what it kept (untimed).
@MainActor func measureFloor(_ index: Int, comparedWith workload: Int? = nil, _ body: () -> Void) {
    floorRows[index].strata.append(wallAndCPUMilliseconds(body).wall)
    floorRows[index].raw.append(rows[workload ?? index].raw.last!)
    floorKept = []
    floorRegistry = [:]
}

/// The object for `key` in `registry`, made from the floor store's values when not there.
@MainActor func floorObject(_ key: Int64, in registry: inout [Int64: FloorObject]) -> FloorObject {
    if let registered = registry[key] { return registered }
    let object = FloorObject(key: key, values: floorStore[key]!)
    registry[key] = object
    return object
}

var rows = ["W1", "W2", "W3", "W4", "W5"].map { ComparisonRow(workload: $0, target: 3.0) }
var cpuRows = ["W1 (CPU)", "W2 (CPU)", "W3 (CPU)", "W4 (CPU)", "W5 (CPU)"].map {
    ComparisonRow(workload: $0, target: 3.0)
}
var sink = 0

/// What a Strata workload made (its context, objects and results), kept alive until its time is
/// taken: like the raw side's dictionary, which lives on after its workloads, the scratch state
/// is released outside the timed region, so both sides are timed doing the workload and neither
/// is timed tearing down.
var kept: [AnyObject] = []
/// W1's objects, whose IDs the later workloads look up (taken after W1's time is taken).
var inserted: [ManagedObject] = []

/// Runs `body` and records its wall and CPU time for workload `index`, on the Strata or raw side.
@MainActor func measure(_ index: Int, strata: Bool, _ body: () -> Void) {
    defer { kept.removeAll() }
    if let profiled {
        // Profiling: only the Strata side; the workloads before the profiled one only once
        // (every time for W5, whose deletes need the objects back).
        if strata && (index == profiled || (index < profiled && (run == 0 || profiled == 4))) { body() }
        return
    }
    let (wall, cpu) = wallAndCPUMilliseconds(body)
    if strata {
        rows[index].strata.append(wall)
        cpuRows[index].strata.append(cpu)
    } else {
        rows[index].raw.append(wall)
        cpuRows[index].raw.append(cpu)
    }
}

var run = 0
var coordinator = StoreCoordinator(model: model)
var ids: [ObjectID] = []
for _ in 0..<runs {
    defer { run += 1 }
    // Raw dictionary.
    var dictionary: [Int64: RawRecord] = [:]
    measure(0, strata: false) {
        dictionary.reserveCapacity(workload.records.count)
        for r in workload.records {
            dictionary[r.id] = RawRecord(
                i1: r.i1, i2: r.i2, i3: r.i3, d1: r.d1, d2: r.d2, d3: r.d3, s1: r.s1, s2: r.s2, s3: r.s3)
        }
    }
    measure(1, strata: false) { for (_, r) in dictionary { sink &+= Int(r.i1) &+ r.s1.utf8.count } }
    measure(2, strata: false) { for k in workload.lookupKeys { sink &+= Int(dictionary[k]!.i2) } }
    measure(3, strata: false) { for k in workload.updateKeys { dictionary[k]!.i2 += 1 } }
    measure(4, strata: false) { for k in workload.deleteKeys { dictionary.removeValue(forKey: k) } }

    // The floor (no engine), in the same runs.
    if profiled == nil {
        floorStore = [:]
        measureFloor(0) {
            var registry = [Int64: FloorObject](minimumCapacity: workload.records.count)
            var objects: [FloorObject] = []
            objects.reserveCapacity(workload.records.count)
            for r in workload.records {
                let object = FloorObject(key: r.id, values: values(r))
                registry[r.id] = object
                objects.append(object)
            }
            floorStore.reserveCapacity(objects.count)
            for object in objects { floorStore[object.key] = object.values }
            floorKept = objects
            floorRegistry = registry
        }
        measureFloor(1) {
            var registry = [Int64: FloorObject](minimumCapacity: floorStore.count)
            var objects: [FloorObject] = []
            objects.reserveCapacity(floorStore.count)
            for (key, values) in floorStore {
                let object = FloorObject(key: key, values: values)
                registry[key] = object
                objects.append(object)
            }
            for object in objects {
                if case .integer(let v) = object.values[0], case .string(let s) = object.values[6] {
                    sink &+= Int(v) &+ s.utf8.count
                }
            }
            floorKept = objects
            floorRegistry = registry
        }
        // W2's floor once more without the registry: one object per record and nothing else,
        // what any design that hands out an object per row pays.
        measureFloor(5, comparedWith: 1) {
            var objects: [FloorObject] = []
            objects.reserveCapacity(floorStore.count)
            for (key, values) in floorStore { objects.append(FloorObject(key: key, values: values)) }
            for object in objects {
                if case .integer(let v) = object.values[0], case .string(let s) = object.values[6] {
                    sink &+= Int(v) &+ s.utf8.count
                }
            }
            floorKept = objects
        }
        measureFloor(2) {
            var registry: [Int64: FloorObject] = [:]
            for k in workload.lookupKeys {
                if case .integer(let v) = floorObject(k, in: &registry).values[1] { sink &+= Int(v) }
            }
            floorRegistry = registry
        }
        measureFloor(3) {
            var registry: [Int64: FloorObject] = [:]
            var changed: [FloorObject] = []
            for k in workload.updateKeys {
                let object = floorObject(k, in: &registry)
                if case .integer(let v) = object.values[1] { object.values[1] = .integer(v + 1) }
                changed.append(object)
            }
            for object in changed { floorStore[object.key] = object.values }
            floorRegistry = registry
        }
        measureFloor(4) {
            var registry: [Int64: FloorObject] = [:]
            var deleted: [FloorObject] = []
            for k in workload.deleteKeys { deleted.append(floorObject(k, in: &registry)) }
            for object in deleted { floorStore.removeValue(forKey: object.key) }
            floorRegistry = registry
        }
    }

    // Strata: a context on the in-memory store.
    if profiled == nil || run == 0 || profiled == 0 || profiled == 4 {
        coordinator = StoreCoordinator(model: model)
        try! coordinator.addStore(BuiltInBackends.registry.open("memory:", model: model))
    }
    measure(0, strata: true) {
        let context = ObjectContext(coordinator: coordinator)
        var objects: [ManagedObject] = []
        objects.reserveCapacity(workload.records.count)
        for r in workload.records {
            // Each field set from the record directly, as the raw side builds its struct (no
            // intermediate array of values).
            let object = try! context.insert("Record")
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
        kept = [context]
        inserted = objects
    }
    if !inserted.isEmpty { ids = inserted.map(\.objectID) }
    inserted = []
    measure(1, strata: true) {
        let context = ObjectContext(coordinator: coordinator)
        let all = try! context.fetch(
            FetchRequest(entityName: "Record"), options: FetchOptions(returnsObjectsAsFaults: false))
        for object in all {
            if case .integer(let v) = object["i1"], case .string(let s) = object["s1"] {
                sink &+= Int(v) &+ s.utf8.count
            }
        }
        kept = [context, all]
    }
    measure(2, strata: true) {
        let context = ObjectContext(coordinator: coordinator)
        for k in workload.lookupKeys {
            if case .integer(let v) = context.object(with: ids[Int(k - 1)])["i2"] { sink &+= Int(v) }
        }
        kept = [context]
    }
    measure(3, strata: true) {
        let context = ObjectContext(coordinator: coordinator)
        for k in workload.updateKeys {
            let object = context.object(with: ids[Int(k - 1)])
            if case .integer(let v) = object["i2"] { object["i2"] = .integer(v + 1) }
        }
        try! context.save()
        kept = [context]
    }
    measure(4, strata: true) {
        let context = ObjectContext(coordinator: coordinator)
        for k in workload.deleteKeys { context.delete(context.object(with: ids[Int(k - 1)])) }
        try! context.save()
        kept = [context]
    }
}
if let profiled {
    print("profiled W\(profiled + 1), \(runs) runs (checksum \(sink & 0xff))")
    exit(0)
}
printTable(
    title: "Engine (ObjectContext on the in-memory store) vs Swift Dictionary, N = \(workload.records.count)",
    rawName: "Dictionary", rows: rows, runs: runs)
printTable(title: "The same runs, CPU time of the measuring thread", rawName: "Dictionary", rows: cpuRows, runs: runs)
printTable(
    title:
        "The floor with no engine (an object per record, registered by key; a save writes value arrays into a dictionary) vs the same Dictionary runs",
    rawName: "Dictionary", rows: floorRows, runs: runs, subjectName: "floor")
print("peak RSS \(format(peakResidentMiB())) MiB (checksum \(sink & 0xff))")
