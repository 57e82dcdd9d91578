import CStrataSQLite
import StrataCore

/// The limits of the SQLite library Strata runs on, as `sqlite3_limit` reports them.
///
/// Read once per process from a connection to a private in-memory database (which creates no
/// file): a connection starts with the library's compile-time maximums, and Strata never lowers
/// them, so every connection the store opens has these limits.
struct SQLiteLimits: Sendable, Hashable {
    /// `SQLITE_LIMIT_COLUMN`: columns of a table, an index, a result set or an `UPDATE`'s `SET`.
    var columns: Int
    /// `SQLITE_LIMIT_VARIABLE_NUMBER`: the highest `?` parameter number of one statement.
    var variables: Int
    /// `SQLITE_LIMIT_SQL_LENGTH`: the bytes of one statement's text.
    var sqlLength: Int
    /// `SQLITE_LIMIT_EXPR_DEPTH`: the depth of one expression tree.
    var expressionDepth: Int

    /// The limits of `handle`.
    init(of handle: OpaquePointer) {
        columns = Int(sqlite3_limit(handle, SQLITE_LIMIT_COLUMN, -1))
        variables = Int(sqlite3_limit(handle, SQLITE_LIMIT_VARIABLE_NUMBER, -1))
        sqlLength = Int(sqlite3_limit(handle, SQLITE_LIMIT_SQL_LENGTH, -1))
        expressionDepth = Int(sqlite3_limit(handle, SQLITE_LIMIT_EXPR_DEPTH, -1))
    }

    /// The limits of every connection in this process.
    ///
    /// - Throws: ``StrataError/Code/io`` when SQLite cannot open even an in-memory database.
    static func current() throws -> SQLiteLimits {
        if let known = cached.withLock({ $0 }) { return known }
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(":memory:", &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, nil)
        defer { sqlite3_close_v2(handle) }
        guard code == SQLITE_OK, let handle else {
            throw StrataError(
                .io, "SQLite cannot open an in-memory database to read its limits",
                underlying: String(cString: sqlite3_errstr(code)))
        }
        let limits = SQLiteLimits(of: handle)
        cached.withLock { $0 = limits }
        return limits
    }

    private static let cached = Locked<SQLiteLimits?>(nil)
}
