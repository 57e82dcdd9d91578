import CStrataSQLite
import Foundation
import StrataCore

/// How ``Value``s are written to and read from columns.
///
/// | type | column | notes |
/// |---|---|---|
/// | integer16/32/64 | INTEGER | |
/// | double, float | REAL | NaN is stored as the text `'NaN'` (SQLite would turn a NaN REAL into NULL); a float widens exactly to a double |
/// | decimal | TEXT | `Decimal.description`, exact |
/// | string | TEXT | UTF-8, compared BINARY (Unicode scalar order) |
/// | boolean | INTEGER | 0 or 1 |
/// | date | REAL | seconds since 2001-01-01 UTC (`timeIntervalSinceReferenceDate`), exact |
/// | binary | BLOB | an empty value is a zero-length BLOB, never NULL |
/// | uuid | BLOB | 16 bytes |
/// | uri | TEXT | `absoluteString` |
enum SQLiteValueCoding {
    static let nanMarker = "NaN"

    /// Binds `value` at parameter `index` of `statement`.
    @inline(__always)
    static func bind(_ value: Value, at index: Int32, in statement: SQLiteStatement) {
        switch value {
        case .null: statement.bindNull(index)
        case .integer(let v): statement.bind(index, v)
        case .double(let v): if v.isNaN { statement.bind(index, nanMarker) } else { statement.bind(index, v) }
        case .float(let v): if v.isNaN { statement.bind(index, nanMarker) } else { statement.bind(index, Double(v)) }
        case .decimal(let v): statement.bind(index, v.description)
        case .string(let v): statement.bind(index, v)
        case .bool(let v): statement.bind(index, v ? Int64(1) : Int64(0))
        case .date(let v):
            let seconds = v.timeIntervalSinceReferenceDate
            if seconds.isNaN { statement.bind(index, nanMarker) } else { statement.bind(index, seconds) }
        case .binary(let v): statement.bind(index, v)
        case .uuid(let v):
            withUnsafeBytes(of: v.uuid) { buffer in
                _ = sqlite3_bind_blob(statement.handle, index, buffer.baseAddress, 16, cstrata_sqlite_transient())
            }
        case .uri(let v): statement.bind(index, v.absoluteString)
        }
    }

    /// The value as a query parameter (for predicates), or `nil` when it cannot be compared in SQL.
    static func parameter(_ value: Value) -> SQLiteParameter? {
        switch value {
        case .null: return .null
        case .integer(let v): return .integer(v)
        case .double(let v): return v.isNaN ? nil : .real(v)
        case .float(let v): return v.isNaN ? nil : .real(Double(v))
        case .decimal: return nil
        case .string(let v): return .text(v)
        case .bool(let v): return .integer(v ? 1 : 0)
        case .date(let v): return v.timeIntervalSinceReferenceDate.isNaN ? nil : .real(v.timeIntervalSinceReferenceDate)
        case .binary(let v): return .blob(v)
        case .uuid(let v): return .blob(withUnsafeBytes(of: v.uuid) { Data($0) })
        case .uri(let v): return .text(v.absoluteString)
        }
    }

    /// Reads column `index` of the current row as a value of `kind`.
    ///
    /// The storage class is only asked for when the fast accessor returns a zero (which is also
    /// what SQLite returns for NULL): one C call per column for the common case.
    @inline(__always)
    static func read(_ kind: SQLiteColumnKind, at index: Int32, from statement: SQLiteStatement) throws -> Value {
        switch kind {
        case .integer:
            let v = statement.int64(index)
            if v == 0 && statement.isNull(index) { return .null }
            return .integer(v)
        case .double:
            let v = statement.double(index)
            if v == 0 {
                let type = statement.columnType(index)
                if type == SQLITE_NULL { return .null }
                if type == SQLITE_TEXT { return .double(.nan) }
            }
            return .double(v)
        case .float:
            let v = statement.double(index)
            if v == 0 {
                let type = statement.columnType(index)
                if type == SQLITE_NULL { return .null }
                if type == SQLITE_TEXT { return .float(.nan) }
            }
            return .float(Float(v))
        case .string:
            guard let text = sqlite3_column_text(statement.handle, index) else { return .null }
            let count = Int(sqlite3_column_bytes(statement.handle, index))
            return .string(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case .boolean:
            let v = statement.int64(index)
            if v == 0 && statement.isNull(index) { return .null }
            return .bool(v != 0)
        case .date:
            let v = statement.double(index)
            if v == 0 {
                let type = statement.columnType(index)
                if type == SQLITE_NULL { return .null }
                if type == SQLITE_TEXT { return .date(Date(timeIntervalSinceReferenceDate: .nan)) }
            }
            return .date(Date(timeIntervalSinceReferenceDate: v))
        case .binary:
            if statement.isNull(index) { return .null }
            return .binary(statement.data(index))
        case .decimal:
            if statement.isNull(index) { return .null }
            let text = statement.string(index)
            if text == nanMarker { return .decimal(.nan) }
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw corrupt("'\(text)' is not a decimal", statement)
            }
            return .decimal(decimal)
        case .uuid:
            if statement.isNull(index) { return .null }
            let data = statement.data(index)
            guard data.count == 16 else { throw corrupt("a UUID has \(data.count) bytes, not 16", statement) }
            var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &uuid) { $0.copyBytes(from: data) }
            return .uuid(UUID(uuid: uuid))
        case .uri:
            if statement.isNull(index) { return .null }
            let text = statement.string(index)
            guard let url = URL(string: text) else { throw corrupt("'\(text)' is not a URI", statement) }
            return .uri(url)
        }
    }

    private static func corrupt(_ what: String, _ statement: SQLiteStatement) -> StrataError {
        StrataError(
            .storeCorrupt, "the store at '\(statement.connection.path)' holds a value it cannot read: \(what)",
            location: ["path": statement.connection.path])
    }
}
