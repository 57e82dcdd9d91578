import CStrataSQLite
import Foundation
import Logging
import StrataCore

/// Logs every statement a connection runs, with the time it took, through `sqlite3_trace_v2`
/// (its start, `SQLITE_TRACE_STMT`, and its end, `SQLITE_TRACE_PROFILE`, timed with the
/// monotonic clock: SQLite's own profile time has millisecond steps): the SQL without values at
/// `debug`, with its bound values (`sqlite3_expanded_sql`) at `trace`. Installed on a connection only when its logger
/// wants `debug` or finer when the connection opens, so a silent logger costs nothing per
/// statement.
final class SQLiteStatementLog: @unchecked Sendable {
    /// The logger; only read from the connection's thread (in SQLite's callback).
    private let logger: Logger
    private let withValues: Bool
    /// When each running statement started, in nanoseconds of the monotonic clock.
    private var starts: [OpaquePointer: UInt64] = [:]

    private init(logger: Logger) {
        self.logger = logger
        withValues = logger.logLevel <= .trace
    }

    /// Starts logging the statements of `handle` (the file at `path`) when `strata.sqlite`'s
    /// logger wants `debug`; returns what must stay alive while the connection is open, or `nil`.
    static func install(on handle: OpaquePointer, path: String) -> Unmanaged<SQLiteStatementLog>? {
        var logger = StrataLog.logger("sqlite")
        guard logger.logLevel <= .debug else { return nil }
        logger[metadataKey: "file"] = .string(path)
        let log = Unmanaged.passRetained(SQLiteStatementLog(logger: logger))
        sqlite3_trace_v2(handle, UInt32(SQLITE_TRACE_STMT | SQLITE_TRACE_PROFILE), traceCallback, log.toOpaque())
        return log
    }

    /// Stops logging the statements of `handle` and releases `log`.
    static func remove(_ log: Unmanaged<SQLiteStatementLog>, from handle: OpaquePointer) {
        sqlite3_trace_v2(handle, 0, nil, nil)
        log.release()
    }

    /// A statement starts running.
    fileprivate func statementStarted(_ statement: OpaquePointer) {
        starts[statement] = DispatchTime.now().uptimeNanoseconds
    }

    /// A statement is done.
    fileprivate func statementEnded(_ statement: OpaquePointer) {
        let now = DispatchTime.now().uptimeNanoseconds
        let nanoseconds = starts.removeValue(forKey: statement).map { now - $0 } ?? 0
        let milliseconds = String(format: "%.3f", Double(nanoseconds) / 1_000_000)
        if withValues, let expanded = sqlite3_expanded_sql(statement) {
            defer { sqlite3_free(expanded) }
            logger.trace("\(String(cString: expanded))", metadata: ["ms": .string(milliseconds)])
        } else if let sql = sqlite3_sql(statement) {
            logger.debug("\(String(cString: sql))", metadata: ["ms": .string(milliseconds)])
        }
    }
}

/// SQLite's trace callback: hands a finished statement to the connection's log.
private func traceCallback(
    mask: UInt32, context: UnsafeMutableRawPointer?, statement: UnsafeMutableRawPointer?,
    detail: UnsafeMutableRawPointer?
) -> Int32 {
    guard let context, let statement else { return 0 }
    let log = Unmanaged<SQLiteStatementLog>.fromOpaque(context).takeUnretainedValue()
    switch mask {
    case UInt32(SQLITE_TRACE_STMT): log.statementStarted(OpaquePointer(statement))
    case UInt32(SQLITE_TRACE_PROFILE): log.statementEnded(OpaquePointer(statement))
    default: break
    }
    return 0
}
