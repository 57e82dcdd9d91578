import CStrataSQLite
import StrataCore

/// Turns SQLite result codes into ``StrataError``s that name the file, the action and the cause.
enum SQLiteErrorMapping {
    /// `SQLITE_CONSTRAINT_PRIMARYKEY` (a function-like macro in C, so spelled out here).
    static let constraintPrimaryKey: Int32 = 1555
    /// `SQLITE_CONSTRAINT_UNIQUE`.
    static let constraintUnique: Int32 = 2067

    /// The error for SQLite result `code` (primary or extended) while doing `action` on `path`.
    static func error(code: Int32, message: String, path: String, action: String, sql: String? = nil) -> StrataError {
        let primary = code & 0xFF
        let strataCode: StrataError.Code
        let cause: String
        switch primary {
        case SQLITE_BUSY, SQLITE_LOCKED:
            strataCode = .storeBusy
            cause = "the database is locked by another connection or process and the busy timeout expired"
        case SQLITE_READONLY:
            strataCode = .readOnly
            cause = "the database is read-only (opened read-only, or the file or its directory is not writable)"
        case SQLITE_FULL:
            strataCode = .io
            cause = "the disk (or the database's size limit) is full"
        case SQLITE_IOERR:
            strataCode = .io
            cause = "an I/O error occurred"
        case SQLITE_CORRUPT, SQLITE_NOTADB:
            strataCode = .storeCorrupt
            cause = "the file is not a SQLite database or is damaged"
        case SQLITE_CANTOPEN:
            strataCode = .io
            cause = "the file cannot be opened"
        case SQLITE_PERM, SQLITE_AUTH:
            strataCode = .readOnly
            cause = "access is denied"
        case SQLITE_CONSTRAINT:
            if code == constraintUnique || code == constraintPrimaryKey {
                strataCode = .uniqueConstraint
                cause = "a unique constraint would be violated"
            } else {
                strataCode = .internalInconsistency
                cause = "a constraint failed"
            }
        case SQLITE_NOMEM:
            strataCode = .io
            cause = "SQLite ran out of memory"
        default:
            strataCode = .internalInconsistency
            cause = "SQLite failed"
        }
        var location = ["path": path, "sqliteCode": String(code)]
        if let sql { location["sql"] = sql }
        return StrataError(
            strataCode, "\(action) on '\(path)' failed: \(cause)", location: location,
            underlying: "\(message) (\(String(cString: sqlite3_errstr(code))), code \(code))")
    }
}
