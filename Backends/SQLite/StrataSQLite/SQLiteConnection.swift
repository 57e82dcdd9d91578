import CStrataSQLite
import Foundation
import StrataCore

/// One SQLite connection and its prepared-statement cache.
///
/// Not thread-safe by itself (it is opened with `SQLITE_OPEN_NOMUTEX`): ``SQLiteStore`` hands a
/// connection to one thread at a time, the writer under the write lock and readers through the
/// reader pool. That is why it is `@unchecked Sendable`.
final class SQLiteConnection: @unchecked Sendable {
    /// The database handle.
    let handle: OpaquePointer
    /// The file, for messages.
    let path: String
    private var statements: [String: SQLiteStatement] = [:]
    private var slots: [SQLiteStatement?] = []
    /// Where Strata's SQL functions leave a typed error (see ``SQLiteFunctionFailure``).
    private let functionFailure = SQLiteFunctionFailure()
    /// The statement log, when the `strata.sqlite` logger wanted one at open.
    private let statementLog: Unmanaged<SQLiteStatementLog>?
    private static let statementCacheLimit = 512
    private var plans: [SQLiteQueryShape: Plan] = [:]
    /// The most plans kept; the cache is emptied when full.
    static let planCacheLimit = 256

    /// A fetch's statement prepared from the SQL of its request's shape.
    struct Plan {
        /// The prepared statement, parameters not bound.
        let statement: SQLiteStatement
        /// For dictionary fetches: each selected key path and how to read it.
        let dictionaryColumns: [(key: String, kind: SQLiteColumnKind)]
    }

    /// Opens `path` with `flags` (through the VFS named `vfs`, or the default one), sets the busy
    /// timeout and registers Strata's SQL functions.
    /// With `immutable`, the file is opened as one nothing changes (SQLite's `immutable=1`), for
    /// read-only media.
    init(path: String, flags: Int32, busyTimeoutMilliseconds: Int32, vfs: String? = nil, immutable: Bool = false) throws
    {
        var db: OpaquePointer?
        let code: Int32
        if immutable {
            let uri = "file:" + Self.uriEscaped(path) + "?immutable=1"
            code = sqlite3_open_v2(uri, &db, flags | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI, vfs)
        } else {
            code = sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_NOMUTEX, vfs)
        }
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            if let db { sqlite3_close_v2(db) }
            throw SQLiteErrorMapping.error(code: code, message: message, path: path, action: "opening the database")
        }
        handle = db
        statementLog = SQLiteStatementLog.install(on: db, path: path)
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, busyTimeoutMilliseconds)
        SQLiteFunctions.register(on: db, failure: functionFailure)
    }

    /// `path` with the characters a `file:` URI gives a meaning (`%`, `?`, `#`) percent-encoded.
    private static func uriEscaped(_ path: String) -> String {
        var bytes: [UInt8] = []
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "%"), UInt8(ascii: "?"), UInt8(ascii: "#"):
                bytes += Array(String(format: "%%%02X", byte).utf8)
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Finalizes every cached statement and closes the handle.
    func close() {
        plans.removeAll()
        statements.removeAll()
        slots.removeAll()
        // Before the close: a statement finalized later must find no callback.
        if let statementLog { SQLiteStatementLog.remove(statementLog, from: handle) }
        sqlite3_close_v2(handle)
    }

    /// A cached prepared statement for `sql`, reset and ready to bind.
    func prepare(_ sql: String) throws -> SQLiteStatement {
        if let statement = statements[sql] { return statement }
        var raw: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard code == SQLITE_OK, let raw else {
            throw error(code, "preparing a statement", sql: sql)
        }
        let statement = SQLiteStatement(handle: raw, sql: sql, connection: self)
        if statements.count >= Self.statementCacheLimit { statements.removeAll(keepingCapacity: true) }
        statements[sql] = statement
        return statement
    }

    /// The plan kept for requests of `shape`, if any.
    @inline(__always)
    func plan(for shape: SQLiteQueryShape) -> Plan? { plans[shape] }

    /// Keeps `plan` for requests of `shape` (emptying the cache first when it is full).
    func remember(_ plan: Plan, for shape: SQLiteQueryShape) {
        if plans.count >= Self.planCacheLimit { plans.removeAll(keepingCapacity: true) }
        plans[shape] = plan
    }

    /// The cached statement of a table (see ``SQLiteEntityTable/Statement``): an array index
    /// instead of hashing the SQL text, for the hot paths.
    @inline(__always)
    func prepare(_ statement: SQLiteEntityTable.Statement, of table: SQLiteEntityTable) throws -> SQLiteStatement {
        let slot = table.slot(statement)
        if slot < slots.count, let cached = slots[slot] { return cached }
        var raw: OpaquePointer?
        let sql = table.sql(statement)
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard code == SQLITE_OK, let raw else { throw error(code, "preparing a statement", sql: sql) }
        let prepared = SQLiteStatement(handle: raw, sql: sql, connection: self)
        if slot >= slots.count { slots += Array(repeating: nil, count: slot + 1 - slots.count) }
        slots[slot] = prepared
        return prepared
    }

    /// Runs one or more statements that return no rows (DDL, transaction control, pragmas).
    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        if code != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw SQLiteErrorMapping.error(code: code, message: text, path: path, action: "running \(sql)")
        }
    }

    /// The first column of the first row of `sql` as text (pragmas), or `nil`.
    func scalarText(_ sql: String) throws -> String? {
        let statement = try prepare(sql)
        defer { statement.reset() }
        guard try statement.step(), !statement.isNull(0) else { return nil }
        return statement.string(0)
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int32 { sqlite3_changes(handle) }

    /// The rowid of the row the last successful INSERT wrote.
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Whether a transaction is open.
    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Rolls back if a transaction is open, ignoring failures (used on error paths).
    func rollbackQuietly() {
        if isInTransaction { sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
    }

    /// A ``StrataError`` for result `code`, with SQLite's message for this connection; or, when
    /// one of Strata's SQL functions failed the statement, that function's own error.
    func error(_ code: Int32, _ action: String, sql: String? = nil) -> StrataError {
        if var failure = functionFailure.error {
            functionFailure.error = nil
            failure.location["path"] = path
            return failure
        }
        return SQLiteErrorMapping.error(
            code: code, message: String(cString: sqlite3_errmsg(handle)), path: path, action: action, sql: sql)
    }
}
