// Transfer: JSON Lines import and export, and store copy, through Strata's Transfer types and
// through the least the same job needs on the store API, alternating in one process.
//
// T1 import: JSONLinesImporter reads N lines into a new SQLite store (parse, check, resolve refs,
//    one save) | the same snapshots built in code and saved in one save.
// T2 export: JSONLinesExporter writes every object as canonical JSON Lines | fetching every
//    snapshot in the same batches, without encoding.
// T3 copy:   StoreCopier SQLite -> LMDB, keys kept, in batches of 1,000 | a hand loop fetching the
//    same batches and saving them under new keys with an old-to-new ID table.
import BenchmarkSupport
import Foundation
import Strata

let runs = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 3
let count = Int(CommandLine.arguments.dropFirst(2).first ?? "") ?? 100_000
let workload = Workload(count: count)
let departments = 100
let model = try! Model(
    versionIdentifier: "bench",
    entities: [
        Entity(
            "Department", attributes: [Attribute("name", .string)],
            relationships: [Relationship("employees", to: "Employee", inverse: "department", toMany: true)]),
        Entity(
            "Employee",
            attributes: [
                Attribute("i1", .integer64), Attribute("d1", .double), Attribute("s1", .string),
                Attribute("s2", .string),
            ],
            relationships: [Relationship("department", to: "Department", inverse: "employees")]),
    ])
let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
    "strata-transfer-bench-\(UUID().uuidString)")
try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
func freshURL(_ scheme: String) -> StoreURL {
    StoreURL(scheme: scheme, location: directory.appendingPathComponent("\(UUID().uuidString).\(scheme)").path)
}
func open(_ url: StoreURL) -> any PersistentStore { try! BuiltInBackends.registry.open(url, model: model) }

/// The N employees and their departments as snapshots of `store`.
func snapshots(for store: any PersistentStore) -> [Snapshot] {
    let departmentIDs = try! store.obtainPermanentIDs(for: "Department", count: departments)
    let employeeIDs = try! store.obtainPermanentIDs(for: "Employee", count: workload.records.count)
    var members = Array(repeating: [ObjectID](), count: departments)
    var result: [Snapshot] = []
    result.reserveCapacity(workload.records.count + departments)
    for (i, r) in workload.records.enumerated() {
        let d = i % departments
        members[d].append(employeeIDs[i])
        result.append(
            Snapshot(
                objectID: employeeIDs[i], version: 0,
                attributes: [.integer(r.i1), .double(r.d1), .string(r.s1), .string(r.s2)],
                relationships: [.toOne(departmentIDs[d])]))
    }
    for d in 0..<departments {
        result.append(
            Snapshot(
                objectID: departmentIDs[d], version: 0, attributes: [.string("Department \(d)")],
                relationships: [.toMany(members[d])]))
    }
    return result
}

// The input file, made once with the exporter from a store filled through the store API.
let seed = open(freshURL("sqlite"))
try! seed.save(SaveRequest(inserts: snapshots(for: seed)))
var file = ""
try! JSONLinesExporter().export(from: seed) { file += $0 }
let fileData = Data(file.utf8)
print("input: \(fileData.count / 1024) KiB, \(count + departments) lines")

var rows = [
    ComparisonRow(workload: "T1 import", target: 2.0), ComparisonRow(workload: "T2 export", target: 2.0),
    ComparisonRow(workload: "T3 copy", target: 1.5),
]
var sink = 0
for _ in 0..<runs {
    // T1
    let rawImport = open(freshURL("sqlite"))
    rows[0].raw.append(milliseconds { try! rawImport.save(SaveRequest(inserts: snapshots(for: rawImport))) })
    let strataImport = open(freshURL("sqlite"))
    rows[0].strata.append(milliseconds { try! JSONLinesImporter().importLines(fileData, into: strataImport) })
    try! rawImport.close()

    // T2
    rows[1].raw.append(
        milliseconds {
            for entity in model.entities {
                let ids = try! strataImport.fetch(FetchRequest(entityName: entity.name, resultType: .objectIDs))
                    .objectIDs()
                var start = 0
                while start < ids.count {
                    let batch = Array(ids[start..<min(start + 1_000, ids.count)])
                    sink &+= try! strataImport.fetch(FetchRequest(entityName: entity.name, objectIDs: batch))
                        .snapshots().count
                    start += batch.count
                }
            }
        })
    rows[1].strata.append(
        milliseconds { try! JSONLinesExporter().export(from: strataImport) { sink &+= $0.utf8.count } })

    // T3
    let rawCopy = open(freshURL("lmdb"))
    rows[2].raw.append(
        milliseconds {
            var mapping: [ObjectID: ObjectID] = [:]
            for entity in model.entities {
                let ids = try! strataImport.fetch(FetchRequest(entityName: entity.name, resultType: .objectIDs))
                    .objectIDs()
                for (old, new) in zip(ids, try! rawCopy.obtainPermanentIDs(for: entity.name, count: ids.count)) {
                    mapping[old] = new
                }
            }
            // One pass: LMDB accepts a reference to an object a later batch inserts.
            for entity in model.entities.reversed() {
                let ids = try! strataImport.fetch(FetchRequest(entityName: entity.name, resultType: .objectIDs))
                    .objectIDs()
                var start = 0
                while start < ids.count {
                    let batch = Array(ids[start..<min(start + 1_000, ids.count)])
                    let inserts = try! strataImport.fetch(FetchRequest(entityName: entity.name, objectIDs: batch))
                        .snapshots().map { s in
                            Snapshot(
                                objectID: mapping[s.objectID]!, version: 0, attributes: s.attributes,
                                relationships: s.relationships.map { value in
                                    switch value {
                                    case .toOne(let id): return .toOne(id.map { mapping[$0]! })
                                    case .toMany(let ids): return .toMany(ids.map { mapping[$0]! })
                                    }
                                })
                        }
                    try! rawCopy.save(SaveRequest(inserts: inserts))
                    start += batch.count
                }
            }
        })
    try! rawCopy.close()
    let copyURL = freshURL("lmdb")
    rows[2].strata.append(
        milliseconds {
            try! StoreCopier().copy(
                from: strataImport, to: copyURL, backend: BuiltInBackends.registry.backend(for: "lmdb"))
        })
    try! strataImport.close()
}
printTable(
    title: "Transfer (N = \(count) employees + \(departments) departments)", rawName: "store API", rows: rows,
    runs: runs)
print("\npeak RSS \(format(peakResidentMiB())) MiB (sink \(sink % 10))")
try? FileManager.default.removeItem(at: directory)
