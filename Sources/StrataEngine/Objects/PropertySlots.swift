import StrataCore

/// Where a typed class's slots are in one entity: slot k (the class's k-th attribute, or k-th
/// relationship, in declaration order; see ``DeclaredProperty``) is the entity's attribute
/// `attributes[k]` (relationship `relationships[k]`).
///
/// Made and checked once per class and entity, when a coordinator binds the class
/// (``StoreCoordinator/registerClasses(_:)``); every object of the class the coordinator's
/// contexts make shares it, so an access costs one array read, with no lookup by name. The
/// entity may come from a model file whose properties are in another order than the class's.
public final class PropertySlots: Sendable {
    /// The entity's attribute index of each attribute slot.
    @usableFromInline
    let attributes: [Int]
    /// The entity's relationship index of each relationship slot.
    let relationships: [Int]

    /// Maps `properties`, declared by `className`, onto `entity`.
    ///
    /// - Throws: ``StrataError/Code/invalidModel``, naming the class, the property and the
    ///   entity, when the entity has no such property, or has it with another type: another
    ///   attribute type or optionality, another destination, or another to-one, to-many or
    ///   ordered kind.
    public init(binding properties: [DeclaredProperty], of className: String, to entity: Entity) throws {
        var attributes: [Int] = []
        var relationships: [Int] = []
        for property in properties {
            let location = ["class": className, "property": property.name, "entity": entity.name]
            switch property {
            case .attribute(let declared):
                guard let index = entity.attributeIndex(named: declared.name) else {
                    throw StrataError(
                        .invalidModel,
                        "\(className).\(declared.name) is an attribute, but entity '\(entity.name)' has no attribute '\(declared.name)'",
                        location: location)
                }
                let found = entity.attributes[index]
                guard found.type == declared.type, found.isOptional == declared.isOptional else {
                    throw StrataError(
                        .invalidModel,
                        "\(className).\(declared.name) is \(Self.describe(declared)), but entity '\(entity.name)' stores it as \(Self.describe(found))",
                        location: location)
                }
                attributes.append(index)
            case .relationship(let declared):
                guard let index = entity.relationshipIndex(named: declared.name) else {
                    throw StrataError(
                        .invalidModel,
                        "\(className).\(declared.name) is a relationship, but entity '\(entity.name)' has no relationship '\(declared.name)'",
                        location: location)
                }
                let found = entity.relationships[index]
                guard found.destination == declared.destination, found.isToMany == declared.isToMany,
                    found.isOrdered == declared.isOrdered
                else {
                    throw StrataError(
                        .invalidModel,
                        "\(className).\(declared.name) is \(Self.describe(declared)), but entity '\(entity.name)' has it \(Self.describe(found))",
                        location: location)
                }
                relationships.append(index)
            }
        }
        self.attributes = attributes
        self.relationships = relationships
    }

    private static func describe(_ attribute: Attribute) -> String {
        "\(attribute.isOptional ? "an optional" : "a non-optional") \(attribute.type.rawValue)"
    }

    private static func describe(_ relationship: Relationship) -> String {
        let kind = relationship.isToMany ? (relationship.isOrdered ? "ordered to-many" : "to-many") : "to-one"
        return "\(kind) to '\(relationship.destination)'"
    }
}
