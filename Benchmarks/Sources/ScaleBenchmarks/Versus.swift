// `ScaleBenchmarks versus N [runs] [sides]`: ObjectGraphBenchmarks' fetch all of typed objects
// beside GRDB's Codable records and the raw C API, synchronously, so that callgrind can count
// each side's instructions a row (`versusTypedFetchAll`, `versusGRDBFetchAll`,
// `versusRawFetchAll`, each inclusive of freeing what it fetched).

import BenchmarkSupport
import CStrataSQLite
import Foundation
import GRDB
import Strata

/// ObjectGraphBenchmarks' GRDB record: a Codable struct that is a fetchable and persistable record.
struct GRDBRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "record"
    var id: Int64
    var key: Int64
    var i1: Int64, i2: Int64, i3: Int64
    var d1: Double, d2: Double, d3: Double
    var s1: String, s2: String, s3: String

    var touched: Int {
        Int(key &+ i1 &+ i2 &+ i3) &+ Int(d1 + d2 + d3) &+ s1.utf8.count &+ s2.utf8.count &+ s3.utf8.count
    }
}

/// A GRDB database pool (WAL, synchronous=NORMAL) at a fresh path with `count` workload records
/// inserted in one write, as ObjectGraphBenchmarks' GRDB Codable side does.
func filledGRDBPool(_ count: Int) -> (DatabasePool, String) {
    let path = freshPath()
    var configuration = Configuration()
    configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
    let pool = try! DatabasePool(path: path, configuration: configuration)
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1") { db in
        try db.create(table: "record") { t in
            t.primaryKey("id", .integer)
            t.column("key", .integer).notNull().unique()
            for name in ["i1", "i2", "i3"] { t.column(name, .integer).notNull() }
            for name in ["d1", "d2", "d3"] { t.column(name, .double).notNull() }
            for name in ["s1", "s2", "s3"] { t.column(name, .text).notNull() }
        }
    }
    try! migrator.migrate(pool)
    try! pool.write { db in
        for r in Workload(count: count).records {
            try GRDBRecord(
                id: r.id, key: r.id, i1: r.i1, i2: r.i2, i3: r.i3, d1: r.d1, d2: r.d2, d3: r.d3, s1: r.s1, s2: r.s2,
                s3: r.s3
            ).insert(db)
        }
    }
    return (pool, path)
}

/// `Record.fetchAll(db)` in one `read`, every property of every record read, the records freed.
@inline(never) func versusGRDBFetchAll(_ pool: DatabasePool) -> Int {
    var sum = 0
    for record in try! pool.read({ db in try GRDBRecord.fetchAll(db) }) { sum &+= record.touched }
    return sum
}

/// The raw C API reading the GRDB file's rows into structs (open, prepare, step, ten columns,
/// three `String`s), every property read, the structs freed.
@inline(never) func versusRawFetchAll(_ path: String) -> Int {
    var db: OpaquePointer?
    guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else { fatalError(path) }
    defer { sqlite3_close_v2(db) }
    var statement: OpaquePointer?
    let sql = "SELECT id, key, i1, i2, i3, d1, d2, d3, s1, s2, s3 FROM record"
    guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { fatalError(sql) }
    defer { sqlite3_finalize(statement) }
    func text(_ c: Int32) -> String {
        String(
            decoding: UnsafeBufferPointer(
                start: sqlite3_column_text(statement, c), count: Int(sqlite3_column_bytes(statement, c))),
            as: UTF8.self)
    }
    var records: [GRDBRecord] = []
    while sqlite3_step(statement) == SQLITE_ROW {
        records.append(
            GRDBRecord(
                id: sqlite3_column_int64(statement, 0), key: sqlite3_column_int64(statement, 1),
                i1: sqlite3_column_int64(statement, 2), i2: sqlite3_column_int64(statement, 3),
                i3: sqlite3_column_int64(statement, 4), d1: sqlite3_column_double(statement, 5),
                d2: sqlite3_column_double(statement, 6), d3: sqlite3_column_double(statement, 7), s1: text(8),
                s2: text(9), s3: text(10)))
    }
    var sum = 0
    for record in records { sum &+= record.touched }
    return sum
}

/// ``stackTypedFetchAll(_:)`` with the background context's end (releasing its objects) inside.
@inline(never) func versusTypedFetchAll(_ writer: ObjectContext) -> Int {
    var context: ObjectContext? = ObjectContext(parent: writer, name: "background")
    let sum = context!.performAndWait {
        var sum = 0
        for item in try! context!.fetch(StackItem.self) { sum &+= item.touched }
        return sum
    }
    context = nil
    return sum
}

/// Runs each of `sides` (`typed`, `grdb`, `raw`) `runs` times on stores of `count` records,
/// and prints the median microseconds a row of each.
func runVersus(count: Int, runs: Int, sides: [String]) {
    for side in sides {
        var times: [Double] = []
        for _ in 0..<runs {
            switch side {
            case "typed":
                let writer = filledTypedStack(count)
                times.append(microsecondsPerItem(count) { sink &+= versusTypedFetchAll(writer) })
            case "grdb":
                let (pool, _) = filledGRDBPool(count)
                times.append(microsecondsPerItem(count) { sink &+= versusGRDBFetchAll(pool) })
            case "raw":
                let (pool, path) = filledGRDBPool(count)
                try! pool.close()
                times.append(microsecondsPerItem(count) { sink &+= versusRawFetchAll(path) })
            default:
                print("unknown side \(side): typed, grdb or raw")
                exit(2)
            }
        }
        print("versus fetch all \(side) \(count): \(format(median(times))) us/row")
    }
}
