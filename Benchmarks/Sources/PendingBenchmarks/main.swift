// The one-context update loop of the performance note, written the way users write it: fetch an
// object by an indexed key attribute, change it, repeat for 10% of the objects, then save once.
// Every fetch runs with the context's pending changes included (the default), so its cost must
// not grow with the changes made so far.
//
// Usage: PendingBenchmarks [sqlite|lmdb|memory] [objects] [updates] [runs] [update|upsert]
import BenchmarkSupport
import Foundation
import Strata

let arguments = Array(CommandLine.arguments.dropFirst())
let scheme = arguments.first ?? "sqlite"
let count = arguments.count > 1 ? Int(arguments[1]) ?? 100_000 : 100_000
let updates = arguments.count > 2 ? Int(arguments[2]) ?? 10_000 : 10_000
let runs = arguments.count > 3 ? Int(arguments[3]) ?? 3 : 3
/// `update` (the default): fetch existing objects by key and change them. `upsert`: "insert if
/// missing" with keys the store does not have, so every fetch looks among the pending inserts.
let upsert = arguments.count > 4 && arguments[4] == "upsert"

let workload = Workload(count: count)
let names = ["i1", "i2", "i3", "d1", "d2", "d3", "s1", "s2", "s3"]
let model = try! Model(
    versionIdentifier: "pending-bench",
    entities: [
        Entity(
            "Record",
            attributes: [Attribute("key", .integer64)]
                + names.map { Attribute($0, $0.hasPrefix("i") ? .integer64 : $0.hasPrefix("d") ? .double : .string) },
            indexes: [Entity.Index(name: "byKey", properties: ["key"])])
    ])

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pending-bench-\(getpid())")
try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let location = scheme == "memory" ? "" : directory.appendingPathComponent("records.\(scheme)").path
let coordinator = StoreCoordinator(model: model)
try! coordinator.addStore(BuiltInBackends.registry.open(StoreURL(scheme: scheme, location: location), model: model))

let seeding = milliseconds {
    let context = ObjectContext(coordinator: coordinator)
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
    }
    try! context.save()
}
print(
    "\(scheme): \(count) objects seeded in \(format(seeding)) ms; \(updates) \(upsert ? "upserts" : "updates") per run, \(runs) runs"
)

var sink = 0
var loops: [Double] = []
var loopCPU: [Double] = []
var saves: [Double] = []
for run in 0..<runs {
    let context = ObjectContext(coordinator: coordinator)
    let loop = wallAndCPUMilliseconds {
        for k in workload.updateKeys.prefix(updates) {
            let key = upsert ? k + Int64(count * (run + 1)) : k
            let request = FetchRequest(
                entityName: "Record", predicate: try! ObjectPredicate(format: "key == %@", key), limit: 1)
            guard let object = try! context.fetch(request).first else {
                guard upsert else { fatalError("no record \(key)") }
                let object = try! context.insert("Record")
                try! object.set(key, for: "key")
                try! object.set(Int64(0), for: "i2")
                continue
            }
            if case .integer(let v) = object["i2"] {
                object["i2"] = .integer(v + 1)
                sink &+= Int(v)
            }
        }
    }
    loops.append(loop.wall)
    loopCPU.append(loop.cpu)
    saves.append(milliseconds { try! context.save() })
}
print("fetch by key + change loop: median \(format(median(loops))) ms (runs: \(loops.map(format)))")
print("the same loops, CPU time: median \(format(median(loopCPU))) ms (runs: \(loopCPU.map(format)))")
print("save: median \(format(median(saves))) ms; peak RSS \(format(peakResidentMiB())) MiB (checksum \(sink & 0xff))")
