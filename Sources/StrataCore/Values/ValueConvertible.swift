import Foundation

/// A Swift type that converts to and from a ``Value``.
///
/// Used for predicate arguments (`ObjectPredicate(format: "height > %@", 1.8)`), typed reads of
/// attributes, and typed subclass properties. `Optional` conforms when its wrapped type does,
/// mapping `nil` to ``Value/null``.
public protocol ValueConvertible: Sendable {
    /// This value as a ``Value``.
    var strataValue: Value { get }
    /// Reads a value of this type back, or returns `nil` when `value` holds another type.
    init?(strataValue value: Value)
}

extension Int: ValueConvertible {
    /// An ``Value/integer(_:)``.
    @inlinable public var strataValue: Value { .integer(Int64(self)) }
    /// Reads an ``Value/integer(_:)`` that fits in `Int`.
    @inlinable public init?(strataValue value: Value) {
        guard case .integer(let v) = value, let i = Int(exactly: v) else { return nil }
        self = i
    }
}

extension Int16: ValueConvertible {
    /// An ``Value/integer(_:)``.
    @inlinable public var strataValue: Value { .integer(Int64(self)) }
    /// Reads an ``Value/integer(_:)`` that fits in `Int16`.
    @inlinable public init?(strataValue value: Value) {
        guard case .integer(let v) = value, let i = Int16(exactly: v) else { return nil }
        self = i
    }
}

extension Int32: ValueConvertible {
    /// An ``Value/integer(_:)``.
    @inlinable public var strataValue: Value { .integer(Int64(self)) }
    /// Reads an ``Value/integer(_:)`` that fits in `Int32`.
    @inlinable public init?(strataValue value: Value) {
        guard case .integer(let v) = value, let i = Int32(exactly: v) else { return nil }
        self = i
    }
}

extension Int64: ValueConvertible {
    /// An ``Value/integer(_:)``.
    @inlinable public var strataValue: Value { .integer(self) }
    /// Reads an ``Value/integer(_:)``.
    @inlinable public init?(strataValue value: Value) {
        guard case .integer(let v) = value else { return nil }
        self = v
    }
}

extension Double: ValueConvertible {
    /// A ``Value/double(_:)``.
    @inlinable public var strataValue: Value { .double(self) }
    /// Reads a ``Value/double(_:)`` (or a ``Value/float(_:)``, widened).
    @inlinable public init?(strataValue value: Value) {
        switch value {
        case .double(let v): self = v
        case .float(let v): self = Double(v)
        default: return nil
        }
    }
}

extension Float: ValueConvertible {
    /// A ``Value/float(_:)``.
    @inlinable public var strataValue: Value { .float(self) }
    /// Reads a ``Value/float(_:)``.
    @inlinable public init?(strataValue value: Value) {
        guard case .float(let v) = value else { return nil }
        self = v
    }
}

extension Decimal: ValueConvertible {
    /// A ``Value/decimal(_:)``.
    @inlinable public var strataValue: Value { .decimal(self) }
    /// Reads a ``Value/decimal(_:)``.
    @inlinable public init?(strataValue value: Value) {
        guard case .decimal(let v) = value else { return nil }
        self = v
    }
}

extension String: ValueConvertible {
    /// A ``Value/string(_:)``.
    @inlinable public var strataValue: Value { .string(self) }
    /// Reads a ``Value/string(_:)``.
    @inlinable public init?(strataValue value: Value) {
        guard case .string(let v) = value else { return nil }
        self = v
    }
}

extension Bool: ValueConvertible {
    /// A ``Value/bool(_:)``.
    @inlinable public var strataValue: Value { .bool(self) }
    /// Reads a ``Value/bool(_:)``.
    @inlinable public init?(strataValue value: Value) {
        guard case .bool(let v) = value else { return nil }
        self = v
    }
}

extension Date: ValueConvertible {
    /// A ``Value/date(_:)``.
    @inlinable public var strataValue: Value { .date(self) }
    /// Reads a ``Value/date(_:)``.
    @inlinable public init?(strataValue value: Value) {
        guard case .date(let v) = value else { return nil }
        self = v
    }
}

extension Data: ValueConvertible {
    /// A ``Value/binary(_:)``.
    @inlinable public var strataValue: Value { .binary(self) }
    /// Reads a ``Value/binary(_:)``.
    @inlinable public init?(strataValue value: Value) {
        guard case .binary(let v) = value else { return nil }
        self = v
    }
}

extension UUID: ValueConvertible {
    /// A ``Value/uuid(_:)``.
    @inlinable public var strataValue: Value { .uuid(self) }
    /// Reads a ``Value/uuid(_:)``.
    @inlinable public init?(strataValue value: Value) {
        guard case .uuid(let v) = value else { return nil }
        self = v
    }
}

extension URL: ValueConvertible {
    /// A ``Value/uri(_:)``.
    @inlinable public var strataValue: Value { .uri(self) }
    /// Reads a ``Value/uri(_:)``.
    @inlinable public init?(strataValue value: Value) {
        guard case .uri(let v) = value else { return nil }
        self = v
    }
}

extension Value: ValueConvertible {
    /// The value itself.
    @inlinable public var strataValue: Value { self }
    /// Any value.
    @inlinable public init?(strataValue value: Value) { self = value }
}

extension Optional: ValueConvertible where Wrapped: ValueConvertible {
    /// ``Value/null`` for `nil`, else the wrapped value's.
    @inlinable public var strataValue: Value { self?.strataValue ?? .null }
    /// `.some(nil)` for ``Value/null``; `nil` (failure) when the value is of another type.
    @inlinable public init?(strataValue value: Value) {
        if value.isNull {
            self = .none
            return
        }
        guard let wrapped = Wrapped(strataValue: value) else { return nil }
        self = .some(wrapped)
    }
}
