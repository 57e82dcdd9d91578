import Foundation

/// One attribute value, as stores and snapshots hold it.
///
/// `Value` is the common currency between the engine and every store: a store persists exactly
/// these cases and hands them back unchanged. Equality is *storage* equality: two NaNs of the
/// same case are equal (so an unchanged NaN is never reported as a change), strings compare by
/// their exact Unicode scalars (no normalization), and cases never compare equal across types.
/// Predicate comparisons, which do promote numbers, live in ``ValueComparison``.
public enum Value: Sendable {
    /// No value (an optional attribute that is not set).
    case null
    /// An integer of any width; the attribute's ``AttributeType`` bounds it.
    case integer(Int64)
    /// A 64-bit floating-point number.
    case double(Double)
    /// A 32-bit floating-point number.
    case float(Float)
    /// A decimal number.
    case decimal(Decimal)
    /// A string.
    case string(String)
    /// A Boolean.
    case bool(Bool)
    /// A date.
    case date(Date)
    /// Bytes.
    case binary(Data)
    /// A UUID.
    case uuid(UUID)
    /// A URI.
    case uri(URL)

    /// Whether this is ``null``.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The attribute types that can hold this value (empty for ``null``, which any optional
    /// attribute holds).
    public func fits(_ type: AttributeType) -> Bool {
        switch (self, type) {
        case (.null, _): return true
        case (.integer(let v), .integer16), (.integer(let v), .integer32), (.integer(let v), .integer64):
            return type.integerRange!.contains(v)
        case (.double, .double), (.float, .float), (.decimal, .decimal), (.string, .string),
            (.bool, .boolean), (.date, .date), (.binary, .binary), (.uuid, .uuid), (.uri, .uri):
            return true
        default:
            return false
        }
    }

    /// A short name of the value's case, for error messages (`"integer"`, `"string"`, ...).
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .integer: return "integer"
        case .double: return "double"
        case .float: return "float"
        case .decimal: return "decimal"
        case .string: return "string"
        case .bool: return "boolean"
        case .date: return "date"
        case .binary: return "binary"
        case .uuid: return "uuid"
        case .uri: return "uri"
        }
    }
}

extension Value: Equatable {
    /// Storage equality: same case and same stored value; NaN equals NaN; strings compare by
    /// Unicode scalars.
    public static func == (lhs: Value, rhs: Value) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.integer(let a), .integer(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b || (a.isNaN && b.isNaN)
        case (.float(let a), .float(let b)): return a == b || (a.isNaN && b.isNaN)
        case (.decimal(let a), .decimal(let b)): return a == b || (a.isNaN && b.isNaN)
        case (.string(let a), .string(let b)): return sameScalars(a, b)
        case (.bool(let a), .bool(let b)): return a == b
        case (.date(let a), .date(let b)): return a == b
        case (.binary(let a), .binary(let b)): return a == b
        case (.uuid(let a), .uuid(let b)): return a == b
        case (.uri(let a), .uri(let b)): return a.absoluteString == b.absoluteString
        default: return false
        }
    }
}

extension Value {
    /// Whether `a` and `b` hold the same Unicode scalars: the same UTF-8 bytes, compared in
    /// place when both are stored contiguously (as native strings are), without decoding them.
    @inline(__always)
    static func sameScalars(_ a: String, _ b: String) -> Bool {
        let (x, y) = (a.utf8, b.utf8)
        guard x.count == y.count else { return false }
        let compared = x.withContiguousStorageIfAvailable { p in
            y.withContiguousStorageIfAvailable { q in
                p.count == 0 || memcmp(p.baseAddress!, q.baseAddress!, p.count) == 0
            }
        }
        return (compared ?? nil) ?? x.elementsEqual(y)
    }
}

extension Value: Hashable {
    /// Hashes consistently with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .integer(let v):
            hasher.combine(1)
            hasher.combine(v)
        case .double(let v):
            hasher.combine(2)
            // Equal values hash alike: every NaN as one, and -0.0 as 0.0 (they are ==).
            hasher.combine(v.isNaN ? Double.nan.bitPattern : v == 0 ? 0.0.bitPattern : v.bitPattern)
        case .float(let v):
            hasher.combine(3)
            hasher.combine(v.isNaN ? Float.nan.bitPattern : v == 0 ? Float(0).bitPattern : v.bitPattern)
        case .decimal(let v):
            hasher.combine(4)
            hasher.combine(v.isNaN ? "NaN" : v.description)
        case .string(let v):
            hasher.combine(5)
            for s in v.unicodeScalars { hasher.combine(s.value) }
        case .bool(let v):
            hasher.combine(6)
            hasher.combine(v)
        case .date(let v):
            hasher.combine(7)
            hasher.combine(v.timeIntervalSinceReferenceDate)
        case .binary(let v):
            hasher.combine(8)
            hasher.combine(v)
        case .uuid(let v):
            hasher.combine(9)
            hasher.combine(v)
        case .uri(let v):
            hasher.combine(10)
            hasher.combine(v.absoluteString)
        }
    }
}

extension Value: CustomStringConvertible {
    /// A readable rendering, used in error messages: strings are quoted, binaries show their size.
    public var description: String {
        switch self {
        case .null: return "nil"
        case .integer(let v): return String(v)
        case .double(let v): return String(v)
        case .float(let v): return String(v)
        case .decimal(let v): return v.description
        case .string(let v): return "\"\(v)\""
        case .bool(let v): return v ? "true" : "false"
        case .date(let v): return v.formatted(.iso8601)
        case .binary(let v): return "<\(v.count) bytes>"
        case .uuid(let v): return v.uuidString
        case .uri(let v): return v.absoluteString
        }
    }
}

extension Value: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral
{
    /// An ``integer(_:)`` value.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// A ``double(_:)`` value.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A ``string(_:)`` value.
    public init(stringLiteral value: String) { self = .string(value) }
    /// A ``bool(_:)`` value.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// ``null``.
    public init(nilLiteral: ()) { self = .null }
}
