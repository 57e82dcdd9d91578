import BenchmarkSupport
import CStrataSQLite
import Foundation
import ObjectGraphWorkload
import RawSQLiteSupport

/// The raw SQLite C API, written the way a careful programmer would: one connection, WAL,
/// synchronous=NORMAL, statements prepared once and reused, one transaction per batch, and the
/// lookups in one read transaction.
final class RawSQLite: RawSQLiteConnection {
    static let columns = "id, key, i1, i2, i3, d1, d2, d3, s1, s2, s3"

    /// Opens (creating) the database at `path`; `indexed` adds the scale mode's date column and
    /// indexes on i1, d1, s1 and the date.
    init(path: String, create: Bool = true, indexed: Bool = false) {
        super.init(path: path)
        guard create else { return }
        exec(
            "CREATE TABLE record (id INTEGER PRIMARY KEY, key INTEGER NOT NULL UNIQUE, i1 INTEGER, i2 INTEGER, "
                + "i3 INTEGER, d1 REAL, d2 REAL, d3 REAL, s1 TEXT, s2 TEXT, s3 TEXT\(indexed ? ", dt REAL" : ""))")
        if indexed {
            for column in ["i1", "d1", "s1", "dt"] { exec("CREATE INDEX record_\(column) ON record (\(column))") }
        }
    }

    /// The row at `statement` as a struct (columns in `columns` order).
    func readRecord(_ statement: OpaquePointer) -> RawRecord {
        RawRecord(
            id: sqlite3_column_int64(statement, 0), key: sqlite3_column_int64(statement, 1),
            i1: sqlite3_column_int64(statement, 2), i2: sqlite3_column_int64(statement, 3),
            i3: sqlite3_column_int64(statement, 4),
            d1: sqlite3_column_double(statement, 5), d2: sqlite3_column_double(statement, 6),
            d3: sqlite3_column_double(statement, 7),
            s1: text(statement, 8), s2: text(statement, 9), s3: text(statement, 10))
    }

    func insert(_ records: [WorkloadRecord], indexed: Bool = false) {
        exec("BEGIN IMMEDIATE")
        let insert = prepare(
            "INSERT INTO record (\(Self.columns)\(indexed ? ", dt" : "")) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?\(indexed ? ", ?" : ""))"
        )
        for r in records {
            sqlite3_bind_int64(insert, 1, r.id)
            sqlite3_bind_int64(insert, 2, keyOf(r.id))
            sqlite3_bind_int64(insert, 3, r.i1)
            sqlite3_bind_int64(insert, 4, r.i2)
            sqlite3_bind_int64(insert, 5, r.i3)
            sqlite3_bind_double(insert, 6, r.d1)
            sqlite3_bind_double(insert, 7, r.d2)
            sqlite3_bind_double(insert, 8, r.d3)
            bindText(insert, 9, r.s1)
            bindText(insert, 10, r.s2)
            bindText(insert, 11, r.s3)
            if indexed { sqlite3_bind_double(insert, 12, dateOf(r).timeIntervalSinceReferenceDate) }
            step(insert)
        }
        exec("COMMIT")
    }

    func fetchAll() -> [RawRecord] {
        let select = prepare("SELECT \(Self.columns) FROM record")
        var records: [RawRecord] = []
        while sqlite3_step(select) == SQLITE_ROW { records.append(readRecord(select)) }
        sqlite3_reset(select)
        return records
    }

    func lookup(id: Int64) -> RawRecord? {
        let select = prepare("SELECT \(Self.columns) FROM record WHERE id = ?")
        sqlite3_bind_int64(select, 1, id)
        defer { sqlite3_reset(select) }
        return sqlite3_step(select) == SQLITE_ROW ? readRecord(select) : nil
    }

    func lookup(key: Int64) -> RawRecord? {
        let select = prepare("SELECT \(Self.columns) FROM record WHERE key = ?")
        sqlite3_bind_int64(select, 1, key)
        defer { sqlite3_reset(select) }
        return sqlite3_step(select) == SQLITE_ROW ? readRecord(select) : nil
    }

    /// The first 50 rows sorted by `column`.
    func first50(by column: String) -> Int {
        let select = prepare("SELECT \(Self.columns) FROM record ORDER BY \(column) LIMIT 50")
        var sum = 0
        while sqlite3_step(select) == SQLITE_ROW { sum &+= readRecord(select).touched }
        sqlite3_reset(select)
        return sum
    }
}

/// A row read by the raw side.
struct RawRecord {
    var id: Int64, key: Int64
    var i1: Int64, i2: Int64, i3: Int64
    var d1: Double, d2: Double, d3: Double
    var s1: String, s2: String, s3: String

    var touched: Int { touch(key: key, i1: i1, i2: i2, i3: i3, d1: d1, d2: d2, d3: d3, s1: s1, s2: s2, s3: s3) }
}

/// The raw C API side.
struct RawSide: Side {
    let name = "raw SQLite C API"

    func run(_ input: RunInput, directory: String) async throws -> (RunTimes, Int) {
        let raw = RawSQLite(path: "\(directory)/raw.sqlite")
        var times: RunTimes = []
        var sum = 0
        times.append(milliseconds { raw.insert(input.records) })
        times.append(milliseconds { for r in raw.fetchAll() { sum &+= r.touched } })
        times.append(
            milliseconds {
                raw.exec("BEGIN")
                for id in input.lookupIDs { sum &+= raw.lookup(id: id)!.touched }
                raw.exec("COMMIT")
            })
        times.append(
            milliseconds {
                raw.exec("BEGIN")
                for id in input.lookupIDs { sum &+= raw.lookup(key: keyOf(id))!.touched }
                raw.exec("COMMIT")
            })
        times.append(
            milliseconds {
                raw.exec("BEGIN IMMEDIATE")
                let update = raw.prepare("UPDATE record SET i1 = ?, d1 = ?, s1 = ? WHERE id = ?")
                for id in input.updateIDs {
                    let r = raw.lookup(key: keyOf(id))!
                    sqlite3_bind_int64(update, 1, r.i1 + 1)
                    sqlite3_bind_double(update, 2, r.d1 + 0.5)
                    raw.bindText(update, 3, changedS1(r.s1))
                    sqlite3_bind_int64(update, 4, r.id)
                    raw.step(update)
                }
                raw.exec("COMMIT")
            })
        times.append(
            milliseconds {
                raw.exec("BEGIN IMMEDIATE")
                let delete = raw.prepare("DELETE FROM record WHERE id = ?")
                for id in input.deleteIDs {
                    sqlite3_bind_int64(delete, 1, id)
                    raw.step(delete)
                }
                raw.exec("COMMIT")
            })
        precondition(raw.fetchAll().count == input.records.count - input.deleteIDs.count)
        return (times, sum)
    }
}
