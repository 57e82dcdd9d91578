import CStrataSQLite
import Foundation
import StrataCore

/// A prepared statement, reused through its connection's cache.
///
/// Not thread-safe: it belongs to one ``SQLiteConnection``, which the store hands to one thread at
/// a time. Callers bind every parameter, step, and call ``reset()`` when done (the cache hands the
/// same statement out again).
final class SQLiteStatement {
    /// The statement handle.
    let handle: OpaquePointer
    /// The SQL text, for error messages.
    let sql: String
    /// The owning connection, for error messages.
    unowned let connection: SQLiteConnection

    init(handle: OpaquePointer, sql: String, connection: SQLiteConnection) {
        self.handle = handle
        self.sql = sql
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    /// Rewinds the statement so it can run again; bindings are kept until overwritten.
    @inline(__always)
    func reset() { sqlite3_reset(handle) }

    /// Steps once: `true` when a row is available, `false` when done.
    @inline(__always)
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        throw connection.error(code, "running a statement", sql: sql)
    }

    /// Runs a statement that returns no rows, then resets it.
    func run() throws {
        defer { sqlite3_reset(handle) }
        _ = try step()
    }

    // MARK: Binding (indexes start at 1)

    @inline(__always)
    func bindNull(_ index: Int32) { sqlite3_bind_null(handle, index) }

    @inline(__always)
    func bind(_ index: Int32, _ value: Int64) { sqlite3_bind_int64(handle, index, value) }

    @inline(__always)
    func bind(_ index: Int32, _ value: Double) { sqlite3_bind_double(handle, index, value) }

    @inline(__always)
    func bind(_ index: Int32, _ value: String) {
        var text = value
        text.withUTF8 { buffer in
            if let base = buffer.baseAddress {
                _ = base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    sqlite3_bind_text(handle, index, $0, Int32(buffer.count), cstrata_sqlite_transient())
                }
            } else {
                sqlite3_bind_text(handle, index, "", 0, cstrata_sqlite_transient())
            }
        }
    }

    @inline(__always)
    func bind(_ index: Int32, _ value: Data) {
        if value.isEmpty {
            sqlite3_bind_zeroblob(handle, index, 0)
            return
        }
        value.withUnsafeBytes { buffer in
            _ = sqlite3_bind_blob(handle, index, buffer.baseAddress, Int32(buffer.count), cstrata_sqlite_transient())
        }
    }

    /// Binds `bytes` as a blob (SQLite copies them).
    func bind(_ index: Int32, bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            if let base = buffer.baseAddress, buffer.count > 0 {
                _ = sqlite3_bind_blob(handle, index, base, Int32(buffer.count), cstrata_sqlite_transient())
            } else {
                sqlite3_bind_zeroblob(handle, index, 0)
            }
        }
    }

    /// Binds a parameter of a generated query.
    func bind(_ index: Int32, _ parameter: SQLiteParameter) {
        switch parameter {
        case .null: bindNull(index)
        case .integer(let v): bind(index, v)
        case .real(let v): bind(index, v)
        case .text(let v): bind(index, v)
        case .blob(let v): bind(index, v)
        }
    }

    /// Binds every parameter in order, starting at index 1.
    func bind(_ parameters: [SQLiteParameter]) {
        for (i, parameter) in parameters.enumerated() { bind(Int32(i + 1), parameter) }
    }

    // MARK: Reading columns (indexes start at 0)

    @inline(__always)
    func columnType(_ index: Int32) -> Int32 { sqlite3_column_type(handle, index) }

    @inline(__always)
    func isNull(_ index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }

    @inline(__always)
    func int64(_ index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    @inline(__always)
    func double(_ index: Int32) -> Double { sqlite3_column_double(handle, index) }

    @inline(__always)
    func string(_ index: Int32) -> String {
        guard let text = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The column's bytes (a blob's, or a text's UTF-8), copied once.
    func bytes(_ index: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, index))
        guard count > 0, let bytes = sqlite3_column_blob(handle, index) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    @inline(__always)
    func data(_ index: Int32) -> Data {
        let count = Int(sqlite3_column_bytes(handle, index))
        guard count > 0, let bytes = sqlite3_column_blob(handle, index) else { return Data() }
        return Data(bytes: bytes, count: count)
    }
}

/// A value bound to a generated query: the SQLite storage classes.
enum SQLiteParameter: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}
