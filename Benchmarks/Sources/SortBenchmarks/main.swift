// "The first 50 objects by an indexed attribute" in a large SQLite store: a fetch with one sort
// and a limit of 50, for an indexed double, integer, string and date, ascending and descending,
// through `SQLiteStore.fetch` (snapshots) and through the raw SQLite C API (the same rows in the
// same order, and for the double also with the ORDER BY Strata used before). Warm: every query runs once before it is timed. The store is built once and kept.
//
//   swift build -c release --package-path Benchmarks --product SortBenchmarks
//   Benchmarks/.build/release/SortBenchmarks [count] [runs] [store path] [sqlite|lmdb]
//
// With `lmdb`, the same store and fetches through `LMDBStore` (a directory at the path), without
// the raw columns.

import BenchmarkSupport
import CStrataSQLite
import Foundation
import StrataCore
import StrataLMDB
import StrataSQLite

let arguments = CommandLine.arguments
let count = arguments.count > 1 ? Int(arguments[1]) ?? 1_000_000 : 1_000_000
let runs = arguments.count > 2 ? Int(arguments[2]) ?? 21 : 21
let path = arguments.count > 3 ? arguments[3] : NSTemporaryDirectory() + "strata-sort-bench-\(count).sqlite"
let isLMDB = arguments.count > 4 && arguments[4] == "lmdb"
let url = StoreURL(scheme: isLMDB ? "lmdb" : "sqlite", location: path)

/// Opens the store at `url` with the benchmark's backend.
func openStore() throws -> any PersistentStore {
    isLMDB
        ? try LMDBBackend().open(url, model: model, options: StoreOptions())
        : try SQLiteBackend().open(url, model: model, options: StoreOptions())
}
let keys = ["real", "whole", "text", "when"]
let model = try Model(
    versionIdentifier: "sort-bench",
    entities: [
        Entity(
            "Item",
            attributes: [
                Attribute("real", .double, isOptional: true), Attribute("whole", .integer64, isOptional: true),
                Attribute("text", .string, isOptional: true), Attribute("when", .date, isOptional: true),
                Attribute("payload", .string),
            ],
            indexes: keys.map { Entity.Index(name: "by_\($0)", properties: [$0]) })
    ])

/// Builds the store when it does not exist yet: `count` items, one in 1,000 of each sorted value
/// null and one in 1,000 doubles NaN, seeded (the same store every time).
func buildIfMissing() throws {
    guard !FileManager.default.fileExists(atPath: path) else { return }
    var seed: UInt64 = 0x5EED
    func next() -> UInt64 {
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return seed >> 11
    }
    let store = try openStore()
    let seconds =
        try milliseconds {
            var made = 0
            while made < count {
                let batch = min(50_000, count - made)
                let ids = try store.obtainPermanentIDs(for: "Item", count: batch)
                let snapshots = ids.map { id -> Snapshot in
                    let r = next()
                    let real: Value =
                        r % 1000 == 0 ? .null : r % 1000 == 1 ? .double(.nan) : .double(Double(next() % 10_000_000) / 7)
                    let whole: Value = r % 1000 == 2 ? .null : .integer(Int64(next() % 100_000_000))
                    let text: Value = r % 1000 == 3 ? .null : .string(String(next() % 100_000_000, radix: 36))
                    let when: Value =
                        r % 1000 == 4
                        ? .null : .date(Date(timeIntervalSinceReferenceDate: Double(next() % 800_000_000)))
                    return Snapshot(
                        objectID: id, version: 0, attributes: [real, whole, text, when, .string("payload \(r % 97)")],
                        relationships: [])
                }
                try store.save(SaveRequest(inserts: snapshots))
                made += batch
            }
        } / 1000
    try store.close()
    print("built \(count) items in \(String(format: "%.1f", seconds)) s at \(path)")
}

/// Median ms of `runs` timed calls of `body` after one untimed call.
func measure(_ body: () throws -> Int) rethrows -> Double {
    var sink = try body()
    var times: [Double] = []
    for _ in 0..<runs { times.append(try milliseconds { sink &+= try body() }) }
    if sink == -1 { print(sink) }
    return median(times)
}

/// Runs `sql` on a raw connection and reads every column of every row; returns the row count.
func rawRows(_ db: OpaquePointer, _ sql: String) -> Int {
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
        fatalError(String(cString: sqlite3_errmsg(db)))
    }
    defer { sqlite3_finalize(statement) }
    var rows = 0
    while sqlite3_step(statement) == SQLITE_ROW {
        for column in 0..<sqlite3_column_count(statement) {
            if sqlite3_column_type(statement, column) == SQLITE_TEXT { _ = sqlite3_column_text(statement, column) }
        }
        rows += 1
    }
    return rows
}

try buildIfMissing()

// Opening for writing rebuilds the indexes over doubles an earlier version made on the plain column.
let openTime = try milliseconds { try openStore().close() }
let store = try openStore()
var db: OpaquePointer?
if !isLMDB {
    guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, db != nil else { fatalError("open") }
}
let columns = "\"_pk\", \"_version\", \"real\", \"whole\", \"text\", \"when\", \"payload\""

print(
    "\(count) items, median of \(runs) warm runs, ms; open (rebuilding indexes an earlier version made): \(String(format: "%.1f", openTime))"
)
print("| sort | Strata fetch | raw, same ORDER BY | raw, ORDER BY before (double) |")
print("|---|---:|---:|---:|")
for key in keys {
    for ascending in [true, false] {
        let request = FetchRequest(
            entityName: "Item", sorts: [Sort(PropertyPath(key), ascending: ascending)], limit: 50)
        let strata = try measure {
            guard case .snapshots(let snapshots) = try store.fetch(request) else { return 0 }
            return snapshots.count
        }
        let direction = ascending ? "ASC" : "DESC"
        // The order Strata asks for: a double by the pair its index holds (nil, NaN, numbers).
        let order =
            key == "real"
            ? "(\"real\" < '') \(direction), \"real\" \(direction)" : "\"\(key)\" \(direction)"
        guard let db else {
            print("| \(key) \(direction) | \(String(format: "%.2f", strata)) | - | - |")
            continue
        }
        let raw = measure {
            rawRows(db, "SELECT \(columns) FROM \"Item\" ORDER BY \(order), \"_pk\" LIMIT 50")
        }
        var before = "-"
        if key == "real" {
            let term = "(CASE WHEN \"real\" IS NULL THEN 0 WHEN typeof(\"real\") = 'text' THEN 1 ELSE 2 END)"
            before = String(
                format: "%.2f",
                measure {
                    rawRows(
                        db,
                        "SELECT \(columns) FROM \"Item\" ORDER BY \(term) \(direction), \"real\" \(direction), \"_pk\" LIMIT 50"
                    )
                })
        }
        print(
            "| \(key) \(direction) | \(String(format: "%.2f", strata)) | \(String(format: "%.2f", raw)) | \(before) |")
    }
}
sqlite3_close(db)
try store.close()
