import Foundation
import StrataCore

/// The values a deleted model's `@Attribute(.preserveValueOnDeletion)` attributes had:
/// SwiftData's `HistoryTombstone`.
///
/// ```swift
/// if case .delete(let delete as DefaultHistoryDelete<Trip>) = change {
///     let name = delete.tombstone[\.name] as? String
///     let status = delete.tombstone.value(for: \.status)   // TripStatus?, Strata's typed read
/// }
/// ```
///
/// The subscript gives an attribute stored as is (`String`, integers, `Date`, `UUID`, ...) as its
/// Swift type, an enumeration as its raw value and another `Codable` type as its JSON `Data`
/// (neither of which is known to be `Sendable`); ``value(for:)`` gives each as the property's
/// own type. Iterating gives each preserved attribute with a value, in declaration order.
public struct HistoryTombstone<Model: PersistentModel>: Sendable, Hashable, Sequence {
    /// The preserved values by attribute name, as stored.
    package let storedValues: [String: StrataCore.Value]

    init(_ storedValues: [String: StrataCore.Value]) {
        self.storedValues = storedValues
    }

    /// The value the attribute at `keyPath` had when the model was deleted; `nil` when it was
    /// `nil` or the attribute does not preserve its value.
    public subscript(keyPath: PartialKeyPath<Model>) -> (any Sendable)? {
        guard let (name, type) = Self.property(at: keyPath), let stored = storedValues[name], !stored.isNull else {
            return nil
        }
        return Self.sendableValue(stored, as: type)
    }

    /// The value the attribute at `keyPath` had when the model was deleted, as the property's
    /// type; `nil` when the attribute does not preserve its value.
    public func value<Value>(for keyPath: KeyPath<Model, Value>) -> Value? {
        guard let (name, type) = Self.property(at: keyPath), let stored = storedValues[name] else { return nil }
        return Self.typedValue(stored, as: type) as? Value
    }

    /// Each preserved attribute's key path and value, in declaration order.
    public func makeIterator() -> IndexingIterator<[(keyPath: PartialKeyPath<Model>, value: any Sendable)]> {
        var elements: [(keyPath: PartialKeyPath<Model>, value: any Sendable)] = []
        for property in Model.schemaMetadata {
            guard let keyPath = property.keypath as? PartialKeyPath<Model>, let value = self[keyPath] else { continue }
            elements.append((keyPath, value))
        }
        return elements.makeIterator()
    }

    /// The stored property's name and value type at `keyPath`.
    private static func property(at keyPath: AnyKeyPath) -> (String, Any.Type)? {
        guard let property = Model.schemaMetadata.first(where: { $0.keypath == keyPath }) else { return nil }
        return (property.name, Swift.type(of: property.keypath).valueType)
    }

    /// `stored` as a `Sendable` Swift value of a property of `type`.
    private static func sendableValue(_ stored: StrataCore.Value, as type: Any.Type) -> (any Sendable)? {
        let type = (type as? any OptionalProbe.Type)?.wrappedType ?? type
        switch PropertyKind(of: type) {
        case .attribute(_, _, .plain):
            return plainValue(stored, as: type)
        case .attribute(_, _, .rawValue):
            return PropertyKind.rawValueType(of: type).flatMap { plainValue(stored, as: $0) }
        case .attribute(_, _, .json):
            if case .binary(let json) = stored { return json }
            return nil
        case .toOne, .toMany, .unsupported:
            return nil
        }
    }

    /// `stored` as a value of `type`, a type stored as is.
    private static func plainValue(_ stored: StrataCore.Value, as type: Any.Type) -> (any Sendable)? {
        func read<T: SendableAttributeValue>(_: T.Type) -> (any Sendable)? { T(storedValue: stored) }
        return (type as? any SendableAttributeValue.Type).flatMap { read($0) }
    }

    /// `stored` as a value of `type`, the property's declared type (optional or not).
    private static func typedValue(_ stored: StrataCore.Value, as type: Any.Type) -> Any? {
        let optional = type as? any OptionalProbe.Type
        if optional != nil, stored.isNull { return nil }
        let wrapped = optional?.wrappedType ?? type
        switch PropertyKind(of: wrapped) {
        case .attribute(_, _, .plain):
            return plainValue(stored, as: wrapped)
        case .attribute(_, _, .rawValue):
            guard let representable = wrapped as? any RawRepresentable.Type,
                let raw = PropertyKind.rawValueType(of: wrapped).flatMap({ plainValue(stored, as: $0) })
            else { return nil }
            func make<R: RawRepresentable>(_: R.Type) -> Any? { (raw as? R.RawValue).flatMap(R.init(rawValue:)) }
            return make(representable)
        case .attribute(_, _, .json):
            guard case .binary(let json) = stored, let decodable = wrapped as? any Decodable.Type else { return nil }
            return try? JSONDecoder().decode(decodable, from: json)
        case .toOne, .toMany, .unsupported:
            return nil
        }
    }
}

/// A type a model stores as is whose values are `Sendable`: what a tombstone hands out as is.
protocol SendableAttributeValue: PersistentAttributeValue, Sendable {}

extension String: SendableAttributeValue {}
extension Int: SendableAttributeValue {}
extension Int8: SendableAttributeValue {}
extension Int16: SendableAttributeValue {}
extension Int32: SendableAttributeValue {}
extension Int64: SendableAttributeValue {}
extension UInt: SendableAttributeValue {}
extension UInt8: SendableAttributeValue {}
extension UInt16: SendableAttributeValue {}
extension UInt32: SendableAttributeValue {}
extension UInt64: SendableAttributeValue {}
extension Double: SendableAttributeValue {}
extension Float: SendableAttributeValue {}
extension Decimal: SendableAttributeValue {}
extension Bool: SendableAttributeValue {}
extension Date: SendableAttributeValue {}
extension Data: SendableAttributeValue {}
extension UUID: SendableAttributeValue {}
extension URL: SendableAttributeValue {}
