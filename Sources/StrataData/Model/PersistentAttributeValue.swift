import Foundation
import StrataCore

/// A Swift type a model's attribute can have as is, with the attribute type it is stored as.
///
/// | Swift | stored as |
/// |---|---|
/// | `Int8`, `Int16`, `UInt8` | integer16 |
/// | `Int32`, `UInt16` | integer32 |
/// | `Int`, `Int64`, `UInt32`, `UInt`, `UInt64` | integer64 (an unsigned value above `Int64.max` is refused) |
/// | `Double`, `Float`, `Decimal` | double, float, decimal |
/// | `String`, `Bool`, `Date`, `Data`, `UUID`, `URL` | string, boolean, date, binary, uuid, uri |
/// | `Optional` of any of these | the same type, optional |
///
/// `RawRepresentable` enums are stored as their raw value, and other `Codable` types as JSON
/// (binary); neither needs this protocol. Do not declare new conformances. (It does not refine
/// `Codable`, so that the accessors that take a `Codable` value rank below the ones for these
/// types.)
public protocol PersistentAttributeValue {
    /// The attribute type values of this type are stored as.
    static var storedAttributeType: AttributeType { get }
    /// Whether the attribute is optional (true for `Optional`).
    static var isOptionalStoredAttribute: Bool { get }
    /// This value as stored.
    var storedValue: Value { get }
    /// Reads a stored value back, or `nil` when it is of another type.
    init?(storedValue: Value)
}

extension PersistentAttributeValue {
    /// Non-optional by default.
    public static var isOptionalStoredAttribute: Bool { false }
}

extension PersistentAttributeValue where Self: ValueConvertible {
    // Inlinable, as the engine's conversions are: a model's accessors, specialized in the
    // model's module, then convert with no generic call.

    /// The engine's conversion.
    @inlinable public var storedValue: Value { strataValue }
    /// The engine's conversion.
    @inlinable public init?(storedValue: Value) { self.init(strataValue: storedValue) }
}

extension String: PersistentAttributeValue {
    /// string
    public static var storedAttributeType: AttributeType { .string }
}
extension Int: PersistentAttributeValue {
    /// integer64
    public static var storedAttributeType: AttributeType { .integer64 }
}
extension Int16: PersistentAttributeValue {
    /// integer16
    public static var storedAttributeType: AttributeType { .integer16 }
}
extension Int32: PersistentAttributeValue {
    /// integer32
    public static var storedAttributeType: AttributeType { .integer32 }
}
extension Int64: PersistentAttributeValue {
    /// integer64
    public static var storedAttributeType: AttributeType { .integer64 }
}
extension Double: PersistentAttributeValue {
    /// double
    public static var storedAttributeType: AttributeType { .double }
}
extension Float: PersistentAttributeValue {
    /// float
    public static var storedAttributeType: AttributeType { .float }
}
extension Decimal: PersistentAttributeValue {
    /// decimal
    public static var storedAttributeType: AttributeType { .decimal }
}
extension Bool: PersistentAttributeValue {
    /// boolean
    public static var storedAttributeType: AttributeType { .boolean }
}
extension Date: PersistentAttributeValue {
    /// date
    public static var storedAttributeType: AttributeType { .date }
}
extension Data: PersistentAttributeValue {
    /// binary
    public static var storedAttributeType: AttributeType { .binary }
}
extension UUID: PersistentAttributeValue {
    /// uuid
    public static var storedAttributeType: AttributeType { .uuid }
}
extension URL: PersistentAttributeValue {
    /// uri
    public static var storedAttributeType: AttributeType { .uri }
}

/// The integer widths the engine has no type of its own for, stored in the narrowest integer
/// attribute that holds every value.
protocol WidenedInteger: PersistentAttributeValue, BinaryInteger {}

extension WidenedInteger {
    /// An integer.
    public var storedValue: Value { .integer(Int64(self)) }
    /// Reads an integer that fits.
    public init?(storedValue: Value) {
        guard case .integer(let value) = storedValue, let narrowed = Self(exactly: value) else { return nil }
        self = narrowed
    }
}

extension Int8: WidenedInteger {
    /// integer16
    public static var storedAttributeType: AttributeType { .integer16 }
}
extension UInt8: WidenedInteger {
    /// integer16
    public static var storedAttributeType: AttributeType { .integer16 }
}
extension UInt16: WidenedInteger {
    /// integer32
    public static var storedAttributeType: AttributeType { .integer32 }
}
extension UInt32: WidenedInteger {
    /// integer64
    public static var storedAttributeType: AttributeType { .integer64 }
}
extension UInt: WidenedInteger {
    /// integer64; a value above `Int64.max` cannot be stored.
    public static var storedAttributeType: AttributeType { .integer64 }
    /// An integer (a value above `Int64.max` is refused when written).
    public var storedValue: Value { Int64(exactly: self).map(Value.integer) ?? .double(Double(self)) }
}
extension UInt64: WidenedInteger {
    /// integer64; a value above `Int64.max` cannot be stored.
    public static var storedAttributeType: AttributeType { .integer64 }
    /// An integer (a value above `Int64.max` is refused when written).
    public var storedValue: Value { Int64(exactly: self).map(Value.integer) ?? .double(Double(self)) }
}

extension Optional: PersistentAttributeValue where Wrapped: PersistentAttributeValue {
    /// The wrapped type's.
    public static var storedAttributeType: AttributeType { Wrapped.storedAttributeType }
    /// `true`.
    public static var isOptionalStoredAttribute: Bool { true }
    /// Null for `nil`.
    @inlinable public var storedValue: Value { self?.storedValue ?? .null }
    /// `nil` for null.
    @inlinable public init?(storedValue: Value) {
        if storedValue.isNull {
            self = .none
            return
        }
        guard let wrapped = Wrapped(storedValue: storedValue) else { return nil }
        self = .some(wrapped)
    }
}
