import Foundation
import StrataCore

/// What a stored property of a model is, found from its Swift type once per model type.
enum PropertyKind {
    /// An attribute of `type`; `storage` says how the Swift value maps to it.
    case attribute(AttributeType, isOptional: Bool, storage: AttributeStorage)
    /// A to-one relationship to `destination`.
    case toOne(any PersistentModel.Type, isOptional: Bool)
    /// A to-many relationship to `destination` (an array of models).
    case toMany(any PersistentModel.Type)
    /// A type a model cannot store.
    case unsupported

    /// How a Swift value is stored in its attribute.
    enum AttributeStorage {
        /// As is (``PersistentAttributeValue``).
        case plain
        /// As its raw value (a `RawRepresentable` enum).
        case rawValue
        /// As JSON (a `Codable` type; not filterable).
        case json
    }

    /// Classifies a property's value type.
    init(of type: Any.Type) {
        if let model = type as? any PersistentModel.Type {
            self = .toOne(model, isOptional: false)
        } else if let optional = type as? any OptionalProbe.Type,
            let model = optional.wrappedType as? any PersistentModel.Type
        {
            self = .toOne(model, isOptional: true)
        } else if let array = type as? any ArrayProbe.Type, let model = array.elementType as? any PersistentModel.Type {
            self = .toMany(model)
        } else if let plain = type as? any PersistentAttributeValue.Type {
            self = .attribute(plain.storedAttributeType, isOptional: plain.isOptionalStoredAttribute, storage: .plain)
        } else if let raw = Self.rawValueType(of: type) {
            self = .attribute(raw.storedAttributeType, isOptional: false, storage: .rawValue)
        } else if let optional = type as? any OptionalProbe.Type, let raw = Self.rawValueType(of: optional.wrappedType)
        {
            self = .attribute(raw.storedAttributeType, isOptional: true, storage: .rawValue)
        } else if type is any Codable.Type {
            self = .attribute(.binary, isOptional: type is any OptionalProbe.Type, storage: .json)
        } else {
            self = .unsupported
        }
    }

    /// The raw value type of a `RawRepresentable` type whose raw values a model can store.
    static func rawValueType(of type: Any.Type) -> (any PersistentAttributeValue.Type)? {
        guard let representable = type as? any RawRepresentable.Type else { return nil }
        func raw<R: RawRepresentable>(_: R.Type) -> Any.Type { R.RawValue.self }
        return raw(representable) as? any PersistentAttributeValue.Type
    }

    /// The destination model type of a relationship.
    var destination: (any PersistentModel.Type)? {
        switch self {
        case .toOne(let type, _), .toMany(let type): return type
        case .attribute, .unsupported: return nil
        }
    }
}

/// Lets a property's type be recognized as an `Optional` and unwrapped.
protocol OptionalProbe {
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalProbe {
    static var wrappedType: Any.Type { Wrapped.self }
}

/// Lets a property's type be recognized as an `Array` of something.
protocol ArrayProbe {
    static var elementType: Any.Type { get }
}

extension Array: ArrayProbe {
    static var elementType: Any.Type { Element.self }
}
