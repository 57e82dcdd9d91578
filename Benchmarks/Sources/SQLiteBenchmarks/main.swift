// W1-W5 of ../shared/design/performance.md through Strata's SQLite store (its public protocol:
// obtainPermanentIDs + save, fetch(FetchRequest)) and through the raw SQLite C API, alternating
// in one process, on fresh files each run. Prints medians and ratios.
//
//   swift run -c release --package-path Benchmarks SQLiteBenchmarks [runs] [count] [history=on|off] [previous]
//
// `history=off` opens Strata's store without persistent history (on by default); `previous`
// gives each W4 update the state it is based on, as the engine does, so a store recording
// history needs not read the rows.
//   swift run -c release --package-path Benchmarks SQLiteBenchmarks keylookup strata|raw [records] [lookups]

import BenchmarkSupport
import Foundation
import StrataCore
import StrataSQLite

let arguments = CommandLine.arguments
if arguments.count > 1 && arguments[1] == "keylookup" {
    let directory = NSTemporaryDirectory() + "strata-sqlite-keys-\(getpid())"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try KeyLookups.run(arguments, directory: directory)
    exit(0)
}
let runs = arguments.count > 1 ? Int(arguments[1]) ?? 5 : 5
let count = arguments.count > 2 ? Int(arguments[2]) ?? 100_000 : 100_000
let workload = Workload(count: count)
let storeOptions = StoreOptions(
    options: arguments.dropFirst(3).first { $0.hasPrefix("history=") }.map {
        ["history": String($0.dropFirst("history=".count))]
    } ?? [:])
let givesPrevious = arguments.dropFirst(3).contains("previous")
let model = try Model(
    versionIdentifier: "bench",
    entities: [
        Entity(
            "Record",
            attributes: [
                Attribute("i1", .integer64), Attribute("i2", .integer64), Attribute("i3", .integer64),
                Attribute("d1", .double), Attribute("d2", .double), Attribute("d3", .double),
                Attribute("s1", .string), Attribute("s2", .string), Attribute("s3", .string),
            ])
    ])
let directory = NSTemporaryDirectory() + "strata-sqlite-bench-\(getpid())"
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: directory) }

func attributes(_ r: WorkloadRecord) -> [Value] {
    [
        .integer(r.i1), .integer(r.i2), .integer(r.i3), .double(r.d1), .double(r.d2), .double(r.d3), .string(r.s1),
        .string(r.s2), .string(r.s3),
    ]
}

/// The W4 change: new values for the three first fields.
func changed(_ r: WorkloadRecord) -> WorkloadRecord {
    var r = r
    r.i1 += 1
    r.d1 += 0.5
    r.s1 = String(r.s1.reversed())
    return r
}

var rows = ["W1", "W2", "W3", "W4", "W5"].map { ComparisonRow(workload: $0, target: 2.0) }
var sink = 0

@MainActor func runStrata(_ run: Int) throws {
    let url = StoreURL(scheme: "sqlite", location: "\(directory)/strata-\(run).sqlite")
    let store = try SQLiteBackend().open(url, model: model, options: storeOptions)
    var ids: [ObjectID] = []
    rows[0].strata.append(
        try milliseconds {
            ids = try store.obtainPermanentIDs(for: "Record", count: workload.records.count)
            var inserts: [Snapshot] = []
            inserts.reserveCapacity(ids.count)
            for (id, record) in zip(ids, workload.records) {
                inserts.append(Snapshot(objectID: id, version: 0, attributes: attributes(record), relationships: []))
            }
            try store.save(SaveRequest(inserts: inserts))
        })
    rows[1].strata.append(
        try milliseconds {
            sink &+= try store.fetch(FetchRequest(entityName: "Record")).snapshots().count
        })
    rows[2].strata.append(
        try milliseconds {
            for key in workload.lookupKeys {
                let id = ObjectID(entityName: "Record", storeIdentifier: store.identifier, primaryKey: key)
                sink &+= try store.fetch(FetchRequest(entityName: "Record", objectIDs: [id])).snapshots().count
            }
        })
    rows[3].strata.append(
        try milliseconds {
            var updates: [SaveRequest.Update] = []
            updates.reserveCapacity(workload.updateKeys.count)
            for key in workload.updateKeys {
                let id = ObjectID(entityName: "Record", storeIdentifier: store.identifier, primaryKey: key)
                let record = workload.records[Int(key - 1)]
                updates.append(
                    .init(
                        Snapshot(objectID: id, version: 1, attributes: attributes(changed(record)), relationships: []),
                        expectedVersion: 1,
                        previous: givesPrevious
                            ? Snapshot(objectID: id, version: 1, attributes: attributes(record), relationships: [])
                            : nil))
            }
            try store.save(SaveRequest(updates: updates))
        })
    rows[4].strata.append(
        try milliseconds {
            let deletes = workload.deleteKeys.map {
                SaveRequest.Delete(
                    ObjectID(entityName: "Record", storeIdentifier: store.identifier, primaryKey: $0),
                    expectedVersion: 1)
            }
            try store.save(SaveRequest(deletes: deletes))
        })
    let remaining = try store.fetch(FetchRequest(entityName: "Record")).snapshots().count
    precondition(remaining == count - workload.deleteKeys.count)
    try store.close()
}

@MainActor func runRaw(_ run: Int) {
    let raw = RawSQLite(path: "\(directory)/raw-\(run).sqlite")
    rows[0].raw.append(milliseconds { raw.insert(workload.records) })
    rows[1].raw.append(milliseconds { sink &+= raw.fetchAll().count })
    rows[2].raw.append(
        milliseconds {
            for key in workload.lookupKeys { sink &+= raw.lookup(key) == nil ? 0 : 1 }
        })
    rows[3].raw.append(
        milliseconds {
            raw.update(workload.updateKeys.map { changed(workload.records[Int($0 - 1)]) })
        })
    rows[4].raw.append(milliseconds { raw.delete(workload.deleteKeys) })
    precondition(raw.fetchAll().count == count - workload.deleteKeys.count)
}

print(
    "SQLite benchmarks: \(count) records, \(runs) runs, alternating Strata and raw; history \(storeOptions.options["history"] ?? "on")\(givesPrevious ? ", updates with their previous state" : "")"
)
for run in 0..<runs {
    if run % 2 == 0 {
        try runStrata(run)
        runRaw(run)
    } else {
        runRaw(run)
        try runStrata(run)
    }
    print(
        "run \(run + 1): "
            + rows.map { "\($0.workload) \(format($0.strata.last!))/\(format($0.raw.last!))" }.joined(separator: "  "))
}
printTable(
    title: "SQLite: Strata SQLiteStore vs raw SQLite C API (\(count) records)", rawName: "raw SQLite", rows: rows,
    runs: runs)
print("\npeak RSS: \(format(peakResidentMiB())) MiB (checksum \(sink))")
