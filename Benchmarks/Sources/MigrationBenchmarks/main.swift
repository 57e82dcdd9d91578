// M of ../shared/design/performance.md: migrate a 1,000,000-object SQLite store (add an attribute
// with a default, rename another) through StoreMigrator, and through hand-written SQL doing the
// same, alternating in one process on fresh copies of one file. Also M-drop (remove an attribute,
// which rewrites the table) the same way, and the peak memory of a migration of 100,000 and
// 1,000,000 objects, each in a process of its own.
//
//   swift run -c release --package-path Benchmarks MigrationBenchmarks [runs] [count]

import BenchmarkSupport
import CStrataSQLite
import Foundation
import StrataCore
import StrataMigrations
import StrataSQLite

let arguments = CommandLine.arguments

let attributes = [
    Attribute("i1", .integer64), Attribute("i2", .integer64), Attribute("i3", .integer64),
    Attribute("d1", .double), Attribute("d2", .double), Attribute("d3", .double),
    Attribute("s1", .string), Attribute("s2", .string), Attribute("s3", .string),
]
let v1 = try Model(versionIdentifier: "v1", entities: [Entity("Record", attributes: attributes)])
/// M: `level` added with a default, `s1` renamed to `label`.
let v2 = try Model(
    versionIdentifier: "v2",
    entities: [
        Entity(
            "Record",
            attributes: attributes.map { a in
                a.name == "s1" ? Attribute("label", .string, renamingIdentifier: "s1") : a
            } + [Attribute("level", .integer16, defaultValue: .integer(1))])
    ])
/// M-drop: `s3` removed.
let v2drop = try Model(
    versionIdentifier: "v2", entities: [Entity("Record", attributes: attributes.filter { $0.name != "s3" })])

func migrateWithStrata(_ path: String, to target: Model) throws {
    let registry = StoreRegistry()
    registry.register(SQLiteBackend())
    let versions = try VersionedModel(name: "Bench", versions: [v1, target])
    try StoreMigrator(versions: versions, registry: registry).migrate(
        storeAt: StoreURL(scheme: "sqlite", location: path))
}

/// What a careful programmer writes by hand: one connection, one transaction, the same metadata.
func migrateWithSQL(_ path: String, _ statements: [String], to target: Model) {
    var db: OpaquePointer?
    guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let db else {
        fatalError("open \(path)")
    }
    defer { sqlite3_close_v2(db) }
    func exec(_ sql: String) {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            fatalError("\(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
    }
    exec("PRAGMA journal_mode = WAL")
    exec("PRAGMA synchronous = NORMAL")
    exec("BEGIN IMMEDIATE")
    for statement in statements { exec(statement) }
    exec("UPDATE \"_strata_metadata\" SET \"value\" = '\(target.versionHash)' WHERE \"key\" = 'modelVersionHash'")
    exec(
        "UPDATE \"_strata_metadata\" SET \"value\" = '\(target.versionIdentifier)' WHERE \"key\" = 'modelVersionIdentifier'"
    )
    exec("COMMIT")
}

/// A v1 store of `count` workload records at `path`, through Strata's store.
func makeStore(_ path: String, count: Int) throws {
    let store = try SQLiteBackend().open(StoreURL(scheme: "sqlite", location: path), model: v1, options: StoreOptions())
    let entity = v1.entities[0]
    let workload = Workload(count: count)
    var start = 0
    while start < count {
        let end = min(count, start + 50_000)
        let ids = try store.obtainPermanentIDs(for: "Record", count: end - start)
        let inserts = (start..<end).map { i -> Snapshot in
            let r = workload.records[i]
            var s = Snapshot(objectID: ids[i - start], entity: entity)
            s.attributes = [
                .integer(r.i1), .integer(r.i2), .integer(r.i3), .double(r.d1), .double(r.d2), .double(r.d3),
                .string(r.s1), .string(r.s2), .string(r.s3),
            ]
            return s
        }
        try store.save(SaveRequest(inserts: inserts))
        start = end
    }
    try store.close()
}

func copyStore(_ from: String, _ to: String) throws {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: to + suffix) }
    try FileManager.default.copyItem(atPath: from, toPath: to)
}

/// This process's peak resident set (`VmHWM` of /proc/self/status), in MiB. Unlike
/// `getrusage`, it starts afresh at `exec`, so a child does not inherit its parent's peak.
func highWaterMiB() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kb = Double(line.split(separator: " ").dropFirst().first ?? "")
    else { return peakResidentMiB() }
    return kb / 1024
}

// Child mode: migrate one file and report the peak RSS before and after.
if arguments.count > 2 && arguments[1] == "memory" {
    let before = highWaterMiB()
    try migrateWithStrata(arguments[2], to: v2drop)
    print(String(format: "%.1f %.1f", before, highWaterMiB()))
    exit(0)
}

let runs = arguments.count > 1 ? Int(arguments[1]) ?? 5 : 5
let count = arguments.count > 2 ? Int(arguments[2]) ?? 1_000_000 : 1_000_000
let directory = NSTemporaryDirectory() + "strata-migration-bench-\(getpid())"
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: directory) }
let template = directory + "/template.sqlite"
let made = milliseconds { try! makeStore(template, count: count) }
let size = (try FileManager.default.attributesOfItem(atPath: template)[.size] as? Int) ?? 0
print("built a v1 store of \(count) records (\(size / 1_048_576) MiB) in \(Int(made)) ms")

let work = directory + "/work.sqlite"
var rows = [
    ComparisonRow(workload: "M (add with default + rename)", target: 1.5),
    ComparisonRow(workload: "M-drop (remove an attribute)", target: 1.5),
]
for run in 0..<runs {
    for strataFirst in run % 2 == 0 ? [true, false] : [false, true] {
        try copyStore(template, work)
        if strataFirst {
            rows[0].strata.append(try milliseconds { try migrateWithStrata(work, to: v2) })
            if run == 0 {
                let store = try SQLiteBackend().open(
                    StoreURL(scheme: "sqlite", location: work), model: v2, options: StoreOptions())
                let records = try store.fetch(FetchRequest(entityName: "Record", limit: 2)).snapshots()
                let total = try store.fetch(FetchRequest(entityName: "Record", resultType: .count)).count()
                precondition(
                    total == count && records[0].value(of: "level", in: v2.entities[0]) == .integer(1),
                    "the migrated store is wrong")
                try store.close()
            }
        } else {
            rows[0].raw.append(
                milliseconds {
                    migrateWithSQL(
                        work,
                        [
                            "ALTER TABLE \"Record\" ADD COLUMN \"level\" INTEGER DEFAULT 1",
                            "ALTER TABLE \"Record\" RENAME COLUMN \"s1\" TO \"label\"",
                        ], to: v2)
                })
        }
        try copyStore(template, work)
        if strataFirst {
            rows[1].strata.append(try milliseconds { try migrateWithStrata(work, to: v2drop) })
        } else {
            rows[1].raw.append(
                milliseconds { migrateWithSQL(work, ["ALTER TABLE \"Record\" DROP COLUMN \"s3\""], to: v2drop) })
        }
    }
}
printTable(title: "Migrations (SQLite, \(count) objects)", rawName: "hand-written SQL", rows: rows, runs: runs)

// Peak memory: a child process per size migrates (M-drop, which reads and rewrites every row).
print("\n| objects | peak RSS before (MiB) | peak RSS after M-drop (MiB) | growth (MiB) |")
print("|---:|---:|---:|---:|")
for objects in [100_000, 1_000_000] {
    let path = directory + "/memory-\(objects).sqlite"
    try makeStore(path, count: objects)
    let child = Process()
    child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    child.arguments = ["memory", path]
    let pipe = Pipe()
    child.standardOutput = pipe
    try child.run()
    let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    child.waitUntilExit()
    let parts = text.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    if parts.count == 2 {
        print("| \(objects) | \(format(parts[0])) | \(format(parts[1])) | \(format(parts[1] - parts[0])) |")
    }
    try? FileManager.default.removeItem(atPath: path)
}
