import CStrataSQLite

/// One connection of the raw SQLite C API, set up the way a careful programmer would: WAL,
/// `synchronous=NORMAL`, statements prepared once and kept. The raw sides of the benchmarks
/// subclass it and add their schema and workloads.
open class RawSQLiteConnection {
    /// The open database handle.
    public let db: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]

    /// Opens (creating) the database at `path`.
    public init(path: String) {
        var handle: OpaquePointer?
        guard
            sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
                == SQLITE_OK, let handle
        else { fatalError("cannot open \(path)") }
        db = handle
        exec("PRAGMA journal_mode = WAL")
        exec("PRAGMA synchronous = NORMAL")
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(db)
    }

    /// Runs `sql`, stopping the program on an error.
    public func exec(_ sql: String) {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            fatalError("\(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
    }

    /// The statement for `sql`, prepared on first use and kept.
    public func prepare(_ sql: String) -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { fatalError(sql) }
        statements[sql] = statement
        return statement
    }

    /// Binds `text` to parameter `index` of `statement` (copied by SQLite).
    public func bindText(_ statement: OpaquePointer, _ index: Int32, _ text: String) {
        var text = text
        text.withUTF8 { buffer in
            _ = buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                sqlite3_bind_text(statement, index, $0, Int32(buffer.count), cstrata_sqlite_transient())
            }
        }
    }

    /// Column `index` of the current row of `statement` as a string.
    public func text(_ statement: OpaquePointer, _ index: Int32) -> String {
        String(
            decoding: UnsafeBufferPointer(
                start: sqlite3_column_text(statement, index), count: Int(sqlite3_column_bytes(statement, index))),
            as: UTF8.self)
    }

    /// Steps `statement` to completion and resets it, stopping the program on an error.
    public func step(_ statement: OpaquePointer) {
        guard sqlite3_step(statement) == SQLITE_DONE else { fatalError(String(cString: sqlite3_errmsg(db))) }
        sqlite3_reset(statement)
    }
}
