import Foundation
import StrataCore

/// How an attribute's values are stored in their column.
///
/// | type | column | notes |
/// |---|---|---|
/// | integer16/32/64 | `smallint`, `integer`, `bigint` | |
/// | double, float | `double precision`, `real` | NaN and the infinities as themselves |
/// | decimal | `numeric` | exact, NaN included |
/// | string | `text` | UTF-8; a string holding U+0000 (which `text` cannot hold) is stored escaped, see ``PostgresValueCoding`` |
/// | boolean | `boolean` | |
/// | date | `timestamptz` | microseconds: a date is rounded to the nearest microsecond; the infinities as `infinity` |
/// | binary | `bytea` | an empty value is an empty `bytea`, never NULL |
/// | uuid | `uuid` | |
/// | uri | `text` | `absoluteString` |
enum PostgresColumnKind: Sendable {
    case integer16, integer32, integer64, double, float, decimal, string, boolean, date, binary, uuid, uri

    init(_ type: AttributeType) {
        switch type {
        case .integer16: self = .integer16
        case .integer32: self = .integer32
        case .integer64: self = .integer64
        case .double: self = .double
        case .float: self = .float
        case .decimal: self = .decimal
        case .string: self = .string
        case .boolean: self = .boolean
        case .date: self = .date
        case .binary: self = .binary
        case .uuid: self = .uuid
        case .uri: self = .uri
        }
    }

    /// The column's SQL type, as `psql` shows it.
    var sqlType: String {
        switch self {
        case .integer16: return "smallint"
        case .integer32: return "integer"
        case .integer64: return "bigint"
        case .double: return "double precision"
        case .float: return "real"
        case .decimal: return "numeric"
        case .string, .uri: return "text"
        case .boolean: return "boolean"
        case .date: return "timestamp with time zone"
        case .binary: return "bytea"
        case .uuid: return "uuid"
        }
    }

    /// The type's OID, for a NULL of this column.
    var typeOID: UInt32 {
        switch self {
        case .integer16: return PostgresType.int2
        case .integer32: return PostgresType.int4
        case .integer64: return PostgresType.int8
        case .double: return PostgresType.float8
        case .float: return PostgresType.float4
        case .decimal: return PostgresType.numeric
        case .string, .uri: return PostgresType.text
        case .boolean: return PostgresType.bool
        case .date: return PostgresType.timestamptz
        case .binary: return PostgresType.bytea
        case .uuid: return PostgresType.uuid
        }
    }
}

/// How ``Value``s are written to and read from columns (binary format; see
/// ``PostgresColumnKind`` for the column types).
///
/// PostgreSQL's `text` cannot hold U+0000. A string that holds it, or that begins with U+FFFE
/// (a noncharacter no text is expected to begin with), is stored as U+FFFE followed by the
/// string with each U+0000 written as U+FFFE `0` and each U+FFFE as U+FFFE `1`; every other
/// string is stored as it is. Such escaped strings compare and sort by their stored form.
enum PostgresValueCoding {
    /// The first character of an escaped string.
    static let escape: Unicode.Scalar = "\u{FFFE}"

    /// The value bound for `value` in a column of `kind` (`value` already checked to fit it).
    ///
    /// - Throws: ``StrataError/Code/invalidRequest`` for a date that is not a number (no
    ///   `timestamptz` holds it).
    static func parameter(_ value: Value, kind: PostgresColumnKind) throws -> PostgresParameter {
        switch value {
        case .null: return .null(kind.typeOID)
        case .integer(let v):
            switch kind {
            case .integer16: return .int16(Int16(truncatingIfNeeded: v))
            case .integer32: return .int32(Int32(truncatingIfNeeded: v))
            default: return .int64(v)
            }
        case .double(let v): return .double(v)
        case .float(let v): return .float(v)
        case .decimal(let v): return .numeric(v)
        case .string(let v): return .text(storedText(v))
        case .bool(let v): return .bool(v)
        case .date(let v): return try .timestampMicroseconds(microseconds(of: v))
        case .binary(let v): return .bytea(v)
        case .uuid(let v): return .uuid(v)
        case .uri(let v): return .text(v.absoluteString)
        }
    }

    /// Whether a string of these UTF-8 bytes is stored escaped: it holds U+0000 or begins with
    /// U+FFFE (`EF BF BE`). One `memchr` over the bytes: this runs for every string saved.
    static func needsEscape(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = utf8.baseAddress, !utf8.isEmpty else { return false }
        if utf8.count >= 3 && utf8[0] == 0xEF && utf8[1] == 0xBF && utf8[2] == 0xBE { return true }
        return memchr(base, 0, utf8.count) != nil
    }

    /// The text stored for `string` (escaped when it holds U+0000 or begins with U+FFFE).
    static func storedText(_ string: String) -> String {
        var bytes = string
        guard bytes.withUTF8(needsEscape) else { return string }
        var stored = String.UnicodeScalarView()
        stored.append(escape)
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\u{0}":
                stored.append(escape)
                stored.append("0")
            case escape:
                stored.append(escape)
                stored.append("1")
            default: stored.append(scalar)
            }
        }
        return String(stored)
    }

    /// The string whose stored text is `stored` (the inverse of ``storedText(_:)``).
    static func string(fromStored stored: String) -> String {
        guard stored.unicodeScalars.first == escape else { return stored }
        var result = String.UnicodeScalarView()
        var iterator = stored.unicodeScalars.dropFirst().makeIterator()
        while let scalar = iterator.next() {
            guard scalar == escape, let code = iterator.next() else {
                result.append(scalar)
                continue
            }
            result.append(code == "0" ? "\u{0}" : escape)
        }
        return String(result)
    }

    /// PostgreSQL's epoch (2000-01-01 UTC) in seconds since the reference date (2001-01-01 UTC).
    static let epochSinceReferenceDate: Int64 = -31_622_400

    /// A date as microseconds since 2000-01-01 UTC, the nearest microsecond: whole seconds and the
    /// fraction apart, so that reading it back gives the same `Date` for any date stored at a
    /// microsecond (a double has no more precision than that within ten thousand years).
    /// The infinities are PostgreSQL's `infinity` and `-infinity`.
    static func microseconds(of date: Date) throws -> Int64 {
        let seconds = date.timeIntervalSinceReferenceDate
        if seconds == .infinity { return Int64.max }
        if seconds == -.infinity { return Int64.min }
        guard seconds.isFinite, abs(seconds) < 9e12 else {
            throw StrataError(
                .invalidRequest,
                "the date \(seconds) seconds since 2001-01-01 cannot be stored in PostgreSQL (timestamptz holds the years 4713 BC to 294276 AD, and no NaN)",
                location: ["value": String(seconds)])
        }
        let whole = seconds.rounded(.down)
        let fraction = ((seconds - whole) * 1_000_000).rounded()
        return (Int64(whole) - epochSinceReferenceDate) * 1_000_000 + Int64(fraction)
    }

    /// The date of `microseconds` since 2000-01-01 UTC (the inverse of ``microseconds(of:)``).
    static func date(microseconds: Int64) -> Date {
        if microseconds == Int64.max { return Date(timeIntervalSinceReferenceDate: .infinity) }
        if microseconds == Int64.min { return Date(timeIntervalSinceReferenceDate: -.infinity) }
        var whole = microseconds / 1_000_000
        var fraction = microseconds % 1_000_000
        if fraction < 0 {
            whole -= 1
            fraction += 1_000_000
        }
        return Date(
            timeIntervalSinceReferenceDate: Double(whole + epochSinceReferenceDate) + Double(fraction) / 1_000_000)
    }

    /// The value of cell (`row`, `column`) of `result`, a column of `kind`.
    ///
    /// - Throws: ``StrataError/Code/storeCorrupt`` for a URI or UUID the cell does not hold.
    static func read(_ kind: PostgresColumnKind, _ result: PostgresResult, row: Int, column: Int) throws -> Value {
        if result.isNull(row, column) { return .null }
        switch kind {
        case .integer16, .integer32, .integer64: return .integer(result.int64(row, column))
        case .double: return .double(result.double(row, column))
        case .float: return .float(result.float(row, column))
        case .decimal:
            let text = result.numericText(row, column)
            if text == "NaN" { return .decimal(.nan) }
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw corrupt("'\(text)' is not a decimal Strata can hold")
            }
            return .decimal(decimal)
        case .string: return .string(string(fromStored: result.string(row, column)))
        case .boolean: return .bool(result.bool(row, column))
        case .date:
            let micros = result.withBytes(row, column) {
                $0.count == 8 ? Int64(bigEndian: $0.loadUnaligned(as: Int64.self)) : 0
            }
            return .date(date(microseconds: micros))
        case .binary: return .binary(result.data(row, column))
        case .uuid:
            guard let uuid = result.uuid(row, column) else { throw corrupt("a UUID cell is not 16 bytes") }
            return .uuid(uuid)
        case .uri:
            let text = result.string(row, column)
            guard let url = URL(string: text) else { throw corrupt("'\(text)' is not a URI") }
            return .uri(url)
        }
    }

    private static func corrupt(_ what: String) -> StrataError {
        StrataError(.storeCorrupt, "the PostgreSQL store holds a value it cannot read: \(what)")
    }
}

extension PostgresColumnKind {
    /// The array type a column of this kind is sent in for a many-row statement (`unnest`), and
    /// the cast that turns an element back into the column's type (numeric travels as text).
    var arrayTypeOID: UInt32 {
        switch self {
        case .integer16: return 1005
        case .integer32: return 1007
        case .integer64: return PostgresType.int8Array
        case .double: return PostgresType.float8Array
        case .float: return 1021
        case .decimal, .string, .uri: return PostgresType.textArray
        case .boolean: return 1000
        case .date: return 1185
        case .binary: return 1001
        case .uuid: return 2951
        }
    }

    /// The element type of ``arrayTypeOID``.
    var elementTypeOID: UInt32 { self == .decimal ? PostgresType.text : typeOID }

    /// The SQL type of ``arrayTypeOID`` (for `$n::type`).
    var arraySQLType: String { self == .decimal ? "text[]" : sqlType + "[]" }

    /// `expression` (an element of ``arrayTypeOID``) as a value of the column.
    func fromArrayElement(_ expression: String) -> String { self == .decimal ? expression + "::numeric" : expression }
}

extension PostgresValueCoding {
    /// The bytes of `value` as an element of a column's array (``PostgresColumnKind/arrayTypeOID``),
    /// `nil` for NULL.
    static func arrayElement(_ value: Value, kind: PostgresColumnKind) throws -> [UInt8]? {
        if case .decimal(let decimal) = value {
            return Array((decimal.isNaN ? "NaN" : NSDecimalNumber(decimal: decimal).description(withLocale: nil)).utf8)
        }
        return try parameter(value, kind: kind).bytes
    }
}
