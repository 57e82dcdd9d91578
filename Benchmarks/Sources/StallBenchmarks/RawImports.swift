import BenchmarkSupport
import CStrataSQLite
import Foundation

/// The raw baselines: the same import, in the same chunks, on a background thread, with no
/// object graph: the stall they show is the machine's own noise.
enum RawImports {
    /// One INSERT per record, one transaction per chunk (WAL, synchronous=NORMAL, a prepared
    /// statement reused), as SQLiteBenchmarks' raw side does.
    static func sqlite(_ records: [WorkloadRecord], chunk: Int, path: String) {
        var handle: OpaquePointer?
        guard
            sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
                == SQLITE_OK, let db = handle
        else {
            fatalError("cannot open \(path)")
        }
        defer { sqlite3_close_v2(db) }
        func exec(_ sql: String) {
            guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
                fatalError("\(sql): \(String(cString: sqlite3_errmsg(db)))")
            }
        }
        exec("PRAGMA journal_mode = WAL")
        exec("PRAGMA synchronous = NORMAL")
        exec(
            "CREATE TABLE record (id INTEGER PRIMARY KEY, i1 INTEGER, i2 INTEGER, i3 INTEGER, d1 REAL, d2 REAL, d3 REAL, s1 TEXT, s2 TEXT, s3 TEXT)"
        )
        var prepared: OpaquePointer?
        guard
            sqlite3_prepare_v2(db, "INSERT INTO record VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &prepared, nil)
                == SQLITE_OK, let insert = prepared
        else { fatalError("prepare") }
        defer { sqlite3_finalize(insert) }
        func bind(_ index: Int32, _ text: String) {
            var text = text
            text.withUTF8 { buffer in
                _ = buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    sqlite3_bind_text(insert, index, $0, Int32(buffer.count), cstrata_sqlite_transient())
                }
            }
        }
        for start in stride(from: 0, to: records.count, by: chunk) {
            exec("BEGIN")
            for r in records[start..<min(start + chunk, records.count)] {
                sqlite3_bind_int64(insert, 1, r.id)
                sqlite3_bind_int64(insert, 2, r.i1)
                sqlite3_bind_int64(insert, 3, r.i2)
                sqlite3_bind_int64(insert, 4, r.i3)
                sqlite3_bind_double(insert, 5, r.d1)
                sqlite3_bind_double(insert, 6, r.d2)
                sqlite3_bind_double(insert, 7, r.d3)
                bind(8, r.s1)
                bind(9, r.s2)
                bind(10, r.s3)
                guard sqlite3_step(insert) == SQLITE_DONE else { fatalError(String(cString: sqlite3_errmsg(db))) }
                sqlite3_reset(insert)
            }
            exec("COMMIT")
        }
    }

    /// The records into a dictionary by key, chunk by chunk.
    static func dictionary(_ records: [WorkloadRecord], chunk: Int) -> Int {
        var table: [Int64: WorkloadRecord] = [:]
        for start in stride(from: 0, to: records.count, by: chunk) {
            for r in records[start..<min(start + chunk, records.count)] { table[r.id] = r }
        }
        return table.count
    }
}
