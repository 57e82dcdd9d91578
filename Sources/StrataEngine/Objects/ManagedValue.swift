import Foundation
import StrataCore

/// A Swift type that a ``Managed`` property can have, with the attribute type it maps to.
///
/// | Swift | attribute |
/// |---|---|
/// | `Int16`, `Int32`, `Int64`, `Int` | integer16, integer32, integer64, integer64 |
/// | `Double`, `Float`, `Decimal` | double, float, decimal |
/// | `String`, `Bool`, `Date`, `Data`, `UUID`, `URL` | string, boolean, date, binary, uuid, uri |
/// | `Optional` of any of these | the same type, optional |
public protocol ManagedValue: ValueConvertible {
    /// The attribute type values of this type are stored as.
    static var attributeType: AttributeType { get }
    /// Whether the attribute is optional (true for `Optional`).
    static var isOptionalAttribute: Bool { get }
}

extension ManagedValue {
    /// Non-optional by default.
    public static var isOptionalAttribute: Bool { false }
}

extension Int16: ManagedValue {
    /// integer16
    public static var attributeType: AttributeType { .integer16 }
}
extension Int32: ManagedValue {
    /// integer32
    public static var attributeType: AttributeType { .integer32 }
}
extension Int64: ManagedValue {
    /// integer64
    public static var attributeType: AttributeType { .integer64 }
}
extension Int: ManagedValue {
    /// integer64
    public static var attributeType: AttributeType { .integer64 }
}
extension Double: ManagedValue {
    /// double
    public static var attributeType: AttributeType { .double }
}
extension Float: ManagedValue {
    /// float
    public static var attributeType: AttributeType { .float }
}
extension Decimal: ManagedValue {
    /// decimal
    public static var attributeType: AttributeType { .decimal }
}
extension String: ManagedValue {
    /// string
    public static var attributeType: AttributeType { .string }
}
extension Bool: ManagedValue {
    /// boolean
    public static var attributeType: AttributeType { .boolean }
}
extension Date: ManagedValue {
    /// date
    public static var attributeType: AttributeType { .date }
}
extension Data: ManagedValue {
    /// binary
    public static var attributeType: AttributeType { .binary }
}
extension UUID: ManagedValue {
    /// uuid
    public static var attributeType: AttributeType { .uuid }
}
extension URL: ManagedValue {
    /// uri
    public static var attributeType: AttributeType { .uri }
}
extension Optional: ManagedValue where Wrapped: ManagedValue {
    /// The wrapped type's.
    public static var attributeType: AttributeType { Wrapped.attributeType }
    /// `true`.
    public static var isOptionalAttribute: Bool { true }
}

/// A Swift type a ``Related`` property can have: `T?` (to-one), `Set<T>` (to-many) or `[T]`
/// (ordered to-many), where `T` is a ``ManagedObject`` subclass.
public protocol RelationshipTarget {
    /// The destination class.
    static var destinationType: ManagedObject.Type { get }
    /// Whether this is a to-many.
    static var isToMany: Bool { get }
    /// Whether a to-many keeps its order.
    static var isOrdered: Bool { get }
    /// Builds the value from the target objects.
    static func make(from objects: [ManagedObject]) -> Self
    /// The target objects.
    var objects: [ManagedObject] { get }
}

extension Optional: RelationshipTarget where Wrapped: ManagedObject {
    /// `Wrapped`.
    public static var destinationType: ManagedObject.Type { Wrapped.self }
    /// `false`.
    public static var isToMany: Bool { false }
    /// `false`.
    public static var isOrdered: Bool { false }
    /// The first object, as `Wrapped`.
    public static func make(from objects: [ManagedObject]) -> Self { objects.first.map { $0 as! Wrapped } }
    /// Zero or one object.
    public var objects: [ManagedObject] { self.map { [$0] } ?? [] }
}

extension Set: RelationshipTarget where Element: ManagedObject {
    /// `Element`.
    public static var destinationType: ManagedObject.Type { Element.self }
    /// `true`.
    public static var isToMany: Bool { true }
    /// `false`.
    public static var isOrdered: Bool { false }
    /// The objects as a set.
    public static func make(from objects: [ManagedObject]) -> Self { Set(objects.map { $0 as! Element }) }
    /// The objects, by ID.
    public var objects: [ManagedObject] { self.sorted { $0.objectID < $1.objectID } }
}

extension Array: RelationshipTarget where Element: ManagedObject {
    /// `Element`.
    public static var destinationType: ManagedObject.Type { Element.self }
    /// `true`.
    public static var isToMany: Bool { true }
    /// `true`.
    public static var isOrdered: Bool { true }
    /// The objects in order.
    public static func make(from objects: [ManagedObject]) -> Self { objects.map { $0 as! Element } }
    /// The objects in order.
    public var objects: [ManagedObject] { self }
}
