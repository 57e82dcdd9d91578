import BenchmarkSupport
import CStrataSQLite
import Foundation
import RawSQLiteSupport

/// A record read back by the raw path (the fields of `WorkloadRecord`).
struct RawRecord {
    var id: Int64
    var i1: Int64, i2: Int64, i3: Int64
    var d1: Double, d2: Double, d3: Double
    var s1: String, s2: String, s3: String
}

/// The baseline: the workloads written directly against the SQLite C API, the way a careful
/// programmer would: one connection, WAL, synchronous=NORMAL, prepared statements reused, one
/// transaction per batch.
final class RawSQLite: RawSQLiteConnection {
    override init(path: String) {
        super.init(path: path)
        exec(
            "CREATE TABLE record (id INTEGER PRIMARY KEY, i1 INTEGER, i2 INTEGER, i3 INTEGER, d1 REAL, d2 REAL, d3 REAL, s1 TEXT, s2 TEXT, s3 TEXT)"
        )
    }

    func bindRecord(_ statement: OpaquePointer, _ r: WorkloadRecord, from first: Int32) {
        sqlite3_bind_int64(statement, first, r.i1)
        sqlite3_bind_int64(statement, first + 1, r.i2)
        sqlite3_bind_int64(statement, first + 2, r.i3)
        sqlite3_bind_double(statement, first + 3, r.d1)
        sqlite3_bind_double(statement, first + 4, r.d2)
        sqlite3_bind_double(statement, first + 5, r.d3)
        bindText(statement, first + 6, r.s1)
        bindText(statement, first + 7, r.s2)
        bindText(statement, first + 8, r.s3)
    }

    func readRecord(_ statement: OpaquePointer) -> RawRecord {
        RawRecord(
            id: sqlite3_column_int64(statement, 0),
            i1: sqlite3_column_int64(statement, 1), i2: sqlite3_column_int64(statement, 2),
            i3: sqlite3_column_int64(statement, 3),
            d1: sqlite3_column_double(statement, 4), d2: sqlite3_column_double(statement, 5),
            d3: sqlite3_column_double(statement, 6),
            s1: text(statement, 7), s2: text(statement, 8), s3: text(statement, 9))
    }

    /// W1: insert every record in one transaction.
    func insert(_ records: [WorkloadRecord]) {
        exec("BEGIN IMMEDIATE")
        let insert = prepare(
            "INSERT INTO record (id, i1, i2, i3, d1, d2, d3, s1, s2, s3) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        for r in records {
            sqlite3_bind_int64(insert, 1, r.id)
            bindRecord(insert, r, from: 2)
            step(insert)
        }
        exec("COMMIT")
    }

    /// W2: every record, materialized.
    func fetchAll() -> [RawRecord] {
        let select = prepare("SELECT id, i1, i2, i3, d1, d2, d3, s1, s2, s3 FROM record ORDER BY id")
        var records: [RawRecord] = []
        while sqlite3_step(select) == SQLITE_ROW { records.append(readRecord(select)) }
        sqlite3_reset(select)
        return records
    }

    /// W3: one record by key.
    func lookup(_ key: Int64) -> RawRecord? {
        let select = prepare("SELECT id, i1, i2, i3, d1, d2, d3, s1, s2, s3 FROM record WHERE id = ?")
        sqlite3_bind_int64(select, 1, key)
        defer { sqlite3_reset(select) }
        return sqlite3_step(select) == SQLITE_ROW ? readRecord(select) : nil
    }

    /// W4: rewrite the records (every column, as an object store writes an object) in one transaction.
    func update(_ records: [WorkloadRecord]) {
        exec("BEGIN IMMEDIATE")
        let update = prepare(
            "UPDATE record SET i1 = ?, i2 = ?, i3 = ?, d1 = ?, d2 = ?, d3 = ?, s1 = ?, s2 = ?, s3 = ? WHERE id = ?")
        for r in records {
            bindRecord(update, r, from: 1)
            sqlite3_bind_int64(update, 10, r.id)
            step(update)
        }
        exec("COMMIT")
    }

    /// W5: delete by key in one transaction.
    func delete(_ keys: [Int64]) {
        exec("BEGIN IMMEDIATE")
        let delete = prepare("DELETE FROM record WHERE id = ?")
        for key in keys {
            sqlite3_bind_int64(delete, 1, key)
            step(delete)
        }
        exec("COMMIT")
    }
}
