/// The storage type of an attribute.
///
/// Every attribute type maps to exactly one case of ``Value``: the three integer widths share
/// ``Value/integer(_:)`` and are range-checked against their width when a value is written.
public enum AttributeType: String, Sendable, Hashable, Codable, CaseIterable {
    /// A signed 16-bit integer, stored as ``Value/integer(_:)``.
    case integer16
    /// A signed 32-bit integer, stored as ``Value/integer(_:)``.
    case integer32
    /// A signed 64-bit integer, stored as ``Value/integer(_:)``.
    case integer64
    /// A 64-bit IEEE 754 floating-point number; NaN and the infinities are allowed.
    case double
    /// A 32-bit IEEE 754 floating-point number; NaN and the infinities are allowed.
    case float
    /// A base-10 decimal number (Foundation's `Decimal`).
    case decimal
    /// A Unicode string.
    case string
    /// A Boolean.
    case boolean
    /// A point in time, stored with sub-millisecond precision as seconds since 2001-01-01 UTC.
    case date
    /// Arbitrary bytes.
    case binary
    /// A UUID.
    case uuid
    /// A URI (absolute or relative).
    case uri

    /// The inclusive range an integer attribute of this width accepts, or `nil` for other types.
    public var integerRange: ClosedRange<Int64>? {
        switch self {
        case .integer16: return Int64(Int16.min)...Int64(Int16.max)
        case .integer32: return Int64(Int32.min)...Int64(Int32.max)
        case .integer64: return Int64.min...Int64.max
        default: return nil
        }
    }

    /// Whether values of this type are numbers (integers, floating point or decimal).
    public var isNumeric: Bool {
        switch self {
        case .integer16, .integer32, .integer64, .double, .float, .decimal: return true
        default: return false
        }
    }
}
