import BenchmarkSupport
import Foundation
import GRDB
import ObjectGraphWorkload

/// The record as GRDB's documentation writes one: a Codable struct that is a fetchable and
/// persistable record.
struct Record: Codable, FetchableRecord, PersistableRecord {
    var id: Int64
    var key: Int64
    var i1: Int64, i2: Int64, i3: Int64
    var d1: Double, d2: Double, d3: Double
    var s1: String, s2: String, s3: String

    var touched: Int { touch(key: key, i1: i1, i2: i2, i3: i3, d1: d1, d2: d2, d3: d3, s1: s1, s2: s2, s3: s3) }
}

/// A database pool (WAL, as GRDB recommends for apps) with synchronous=NORMAL like the other
/// sides, and the table made with GRDB's schema builder.
func openGRDB(path: String) throws -> DatabasePool {
    var configuration = Configuration()
    configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
    let pool = try DatabasePool(path: path, configuration: configuration)
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
    try migrator.migrate(pool)
    return pool
}

/// GRDB with Codable records, the way its documentation shows: `insert`, `fetchAll`,
/// `fetchOne(db, key:)` (by ID and by the unique key), `update`, `deleteOne`, each batch in one
/// `read` or `write`.
struct GRDBCodableSide: Side {
    let name = "GRDB Codable"

    func run(_ input: RunInput, directory: String) async throws -> (RunTimes, Int) {
        let pool = try openGRDB(path: "\(directory)/grdb-codable.sqlite")
        var times: RunTimes = []
        var sum = 0
        times.append(
            try milliseconds {
                try pool.write { db in
                    for r in input.records {
                        try Record(
                            id: r.id, key: keyOf(r.id), i1: r.i1, i2: r.i2, i3: r.i3, d1: r.d1, d2: r.d2, d3: r.d3,
                            s1: r.s1, s2: r.s2, s3: r.s3
                        ).insert(db)
                    }
                }
            })
        times.append(
            try milliseconds {
                for record in try pool.read({ db in try Record.fetchAll(db) }) { sum &+= record.touched }
            })
        times.append(
            try milliseconds {
                try pool.read { db in
                    for id in input.lookupIDs { sum &+= try Record.fetchOne(db, key: id)!.touched }
                }
            })
        times.append(
            try milliseconds {
                try pool.read { db in
                    for id in input.lookupIDs { sum &+= try Record.fetchOne(db, key: ["key": keyOf(id)])!.touched }
                }
            })
        times.append(
            try milliseconds {
                try pool.write { db in
                    for id in input.updateIDs {
                        var record = try Record.fetchOne(db, key: ["key": keyOf(id)])!
                        record.i1 += 1
                        record.d1 += 0.5
                        record.s1 = changedS1(record.s1)
                        try record.update(db)
                    }
                }
            })
        times.append(
            try milliseconds {
                try pool.write { db in
                    for id in input.deleteIDs { _ = try Record.deleteOne(db, key: id) }
                }
            })
        let remaining = try await pool.read { db in try Record.fetchCount(db) }
        precondition(remaining == input.records.count - input.deleteIDs.count)
        try pool.close()
        return (times, sum)
    }
}

/// GRDB's statement API: cached statements, `Row.fetchCursor` and `Row.fetchOne`, values read
/// by column index into structs.
struct GRDBStatementSide: Side {
    let name = "GRDB statements"

    static let columns = "id, key, i1, i2, i3, d1, d2, d3, s1, s2, s3"

    func record(_ row: Row) -> RawRecord {
        RawRecord(
            id: row[0], key: row[1], i1: row[2], i2: row[3], i3: row[4], d1: row[5], d2: row[6], d3: row[7],
            s1: row[8], s2: row[9], s3: row[10])
    }

    func run(_ input: RunInput, directory: String) async throws -> (RunTimes, Int) {
        let pool = try openGRDB(path: "\(directory)/grdb-statements.sqlite")
        var times: RunTimes = []
        var sum = 0
        times.append(
            try milliseconds {
                try pool.write { db in
                    let insert = try db.cachedStatement(
                        sql: "INSERT INTO record (\(Self.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
                    for r in input.records {
                        try insert.execute(arguments: [
                            r.id, keyOf(r.id), r.i1, r.i2, r.i3, r.d1, r.d2, r.d3, r.s1, r.s2, r.s3,
                        ])
                    }
                }
            })
        times.append(
            try milliseconds {
                let records = try pool.read { db in
                    var records: [RawRecord] = []
                    let rows = try Row.fetchCursor(db.cachedStatement(sql: "SELECT \(Self.columns) FROM record"))
                    while let row = try rows.next() { records.append(record(row)) }
                    return records
                }
                for r in records { sum &+= r.touched }
            })
        times.append(
            try milliseconds {
                try pool.read { db in
                    let select = try db.cachedStatement(sql: "SELECT \(Self.columns) FROM record WHERE id = ?")
                    for id in input.lookupIDs { sum &+= record(try Row.fetchOne(select, arguments: [id])!).touched }
                }
            })
        times.append(
            try milliseconds {
                try pool.read { db in
                    let select = try db.cachedStatement(sql: "SELECT \(Self.columns) FROM record WHERE key = ?")
                    for id in input.lookupIDs {
                        sum &+= record(try Row.fetchOne(select, arguments: [keyOf(id)])!).touched
                    }
                }
            })
        times.append(
            try milliseconds {
                try pool.write { db in
                    let select = try db.cachedStatement(sql: "SELECT \(Self.columns) FROM record WHERE key = ?")
                    let update = try db.cachedStatement(sql: "UPDATE record SET i1 = ?, d1 = ?, s1 = ? WHERE id = ?")
                    for id in input.updateIDs {
                        let r = record(try Row.fetchOne(select, arguments: [keyOf(id)])!)
                        try update.execute(arguments: [r.i1 + 1, r.d1 + 0.5, changedS1(r.s1), r.id])
                    }
                }
            })
        times.append(
            try milliseconds {
                try pool.write { db in
                    let delete = try db.cachedStatement(sql: "DELETE FROM record WHERE id = ?")
                    for id in input.deleteIDs { try delete.execute(arguments: [id]) }
                }
            })
        let remaining = try await pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM record")! }
        precondition(remaining == input.records.count - input.deleteIDs.count)
        try pool.close()
        return (times, sum)
    }
}
