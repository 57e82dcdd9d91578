import Foundation
import StrataCore
import StrataEngine

/// The entity of a model type and where each of its stored properties lives in it: built once
/// per type (by the `static let` that `@Model` generates), then read by every accessor, which
/// goes straight to its slot.
///
/// The entity lists attributes and relationships in declaration order; ``slots`` maps a
/// property's position in ``PersistentModel/schemaMetadata`` to its index among the entity's
/// attributes or relationships.
public final class ModelLayout: Sendable {
    /// The model's entity.
    public let entity: Entity
    /// By property position: the index of the property among the entity's attributes, or among
    /// its relationships for a relationship.
    public let slots: [Int]
    /// The entity's properties as the engine's typed slot API numbers them.
    public var declaredProperties: [DeclaredProperty] {
        entity.attributes.map(DeclaredProperty.attribute) + entity.relationships.map(DeclaredProperty.relationship)
    }
    /// A temporary ID of the entity, whose scope the IDs of new models share.
    let temporarySibling: ObjectID
    /// What is wrong with the model's declaration, if anything; ``ModelContainer`` throws it.
    let problem: StrataError?
    #if DEBUG
        /// How many detached objects were made for models of this type (debug builds, for tests
        /// of what a model's initializers allocate).
        package let detachedObjectsMade = Locked(0)
    #endif

    /// Builds the layout of `type` from its metadata and, for inverses, that of the models it
    /// relates to.
    public static func of<Model: PersistentModel>(_ type: Model.Type) -> ModelLayout {
        ModelLayout(type)
    }

    private init<Model: PersistentModel>(_ type: Model.Type) {
        let name = entityName(of: type)
        var attributes: [StrataCore.Attribute] = []
        var relationships: [StrataCore.Relationship] = []
        var slots: [Int] = []
        var unique: [[String]] = []
        var problems: [String] = []
        for property in Model.schemaMetadata {
            let valueType = Swift.type(of: property.keypath).valueType
            switch PropertyKind(of: valueType) {
            case .attribute(let attributeType, let isOptional, let storage):
                let declared = property.metadata as? Schema.Attribute
                slots.append(attributes.count)
                attributes.append(
                    StrataCore.Attribute(
                        property.name, attributeType, isOptional: isOptional,
                        defaultValue: property.defaultValue.flatMap { Self.storedDefault($0, storage) },
                        renamingIdentifier: declared?.originalName,
                        preservesValueOnDeletion: declared?.preservesValueOnDeletion ?? false))
                if declared?.isUnique == true { unique.append([property.name]) }
            case .toOne(let destination, let isOptional):
                slots.append(relationships.count)
                let declared = property.metadata as? Schema.Relationship
                let inverse = Self.inverse(of: property, in: type, destination: destination)
                if inverse == nil { problems.append(Self.missingInverse(property.name, of: name, to: destination)) }
                relationships.append(
                    StrataCore.Relationship(
                        property.name, to: entityName(of: destination), inverse: inverse ?? "", toMany: false,
                        isOptional: isOptional, deleteRule: Self.rule(declared?.deleteRule),
                        renamingIdentifier: declared?.originalName))
            case .toMany(let destination):
                slots.append(relationships.count)
                let declared = property.metadata as? Schema.Relationship
                let inverse = Self.inverse(of: property, in: type, destination: destination)
                if inverse == nil { problems.append(Self.missingInverse(property.name, of: name, to: destination)) }
                relationships.append(
                    StrataCore.Relationship(
                        property.name, to: entityName(of: destination), inverse: inverse ?? "", toMany: true,
                        deleteRule: Self.rule(declared?.deleteRule), minimumCount: declared?.minimumModelCount ?? 0,
                        maximumCount: declared?.maximumModelCount ?? 0, renamingIdentifier: declared?.originalName))
            case .unsupported:
                slots.append(-1)
                problems.append(
                    "'\(name).\(property.name)' is a \(valueType), which a model cannot store: use a type of "
                        + "docs/StrataData.md (a Foundation value, a RawRepresentable enum, a Codable type or models), "
                        + "or mark it @Transient")
            }
        }
        let declared = Self.declaredNames(of: type, entity: name, attributes: attributes, problems: &problems)
        for constraint in declared.unique where !unique.contains(constraint) { unique.append(constraint) }
        entity = Entity(
            name, attributes: attributes, relationships: relationships, uniqueConstraints: unique,
            indexes: Self.indexes(declared.indexes))
        self.slots = slots
        temporarySibling = .temporary(entityName: name)
        problem =
            problems.isEmpty
            ? nil
            : StrataError(.invalidModel, problems.joined(separator: "; "), location: ["entity": name])
    }

    /// The name of the inverse of relationship `property` of `type` on `destination`: the one
    /// it declares, the one on the other side that declares it, or the only relationship of
    /// `destination` back to `type`.
    private static func inverse<Model: PersistentModel>(
        of property: Schema.PropertyMetadata, in type: Model.Type, destination: any PersistentModel.Type
    ) -> String? {
        let others = destination.schemaMetadata
        if let declared = (property.metadata as? Schema.Relationship)?.inverse {
            return others.first { $0.keypath == declared }?.name
        }
        if let declaring = others.first(where: { ($0.metadata as? Schema.Relationship)?.inverse == property.keypath }) {
            return declaring.name
        }
        let isSelf = ObjectIdentifier(destination) == ObjectIdentifier(type)
        let back = others.filter { other in
            guard !(isSelf && other.name == property.name),
                let target = PropertyKind(of: Swift.type(of: other.keypath).valueType).destination
            else { return false }
            return ObjectIdentifier(target) == ObjectIdentifier(type)
        }
        return back.count == 1 ? back[0].name : nil
    }

    /// The attribute names of the constraints of `#Unique` and the indexes of `#Index`, and a
    /// problem for each key path that is not one of the model's stored attributes.
    private static func declaredNames<Model: PersistentModel>(
        of type: Model.Type, entity: String, attributes: [StrataCore.Attribute], problems: inout [String]
    ) -> (unique: [[String]], indexes: [[String]]) {
        let metadata = Model.schemaMetadata
        func names(_ lists: [[AnyKeyPath]], macro: String) -> [[String]] {
            lists.compactMap { keyPaths -> [String]? in
                if keyPaths.isEmpty {
                    problems.append(
                        "\(macro) of '\(entity)' has an empty list: give each list one stored attribute or more")
                    return nil
                }
                var names: [String] = []
                for keyPath in keyPaths {
                    guard let property = metadata.first(where: { $0.keypath == keyPath }) else {
                        problems.append(
                            "\(macro) of '\(entity)' names \(keyPath), which is not a stored property: list stored "
                                + "attributes")
                        return nil
                    }
                    guard attributes.contains(where: { $0.name == property.name }) else {
                        problems.append(
                            "\(macro) of '\(entity)' names '\(property.name)', a relationship: Strata's unique "
                                + "constraints and indexes cover attributes only")
                        return nil
                    }
                    if !names.contains(property.name) { names.append(property.name) }
                }
                return names
            }
        }
        return (names(Model._$uniqueConstraints, macro: "#Unique"), names(Model._$indexes, macro: "#Index"))
    }

    /// The engine indexes over `lists` of attribute names, named after their attributes
    /// (`startDate_endDate`); a list given twice makes one index.
    private static func indexes(_ lists: [[String]]) -> [Entity.Index] {
        var indexes: [Entity.Index] = []
        for properties in lists where !indexes.contains(where: { $0.properties == properties }) {
            var name = properties.joined(separator: "_")
            if name.utf8.count > 100 || !ModelNaming.isValidName(name) { name = "index\(indexes.count + 1)" }
            let base = name
            var suffix = 2
            while indexes.contains(where: { $0.name == name }) {
                name = "\(base)_\(suffix)"
                suffix += 1
            }
            indexes.append(Entity.Index(name: name, properties: properties))
        }
        return indexes
    }

    /// The stored form of a property's initial value (`var rating: Int = 3`), which existing
    /// objects take when a migration adds the attribute; `nil` for `nil` or a value of another type.
    private static func storedDefault(_ value: Any, _ storage: PropertyKind.AttributeStorage) -> StrataCore.Value? {
        let stored: StrataCore.Value?
        switch storage {
        case .plain:
            stored = (value as? any PersistentAttributeValue)?.storedValue
        case .rawValue:
            func raw<R: RawRepresentable>(_ value: R) -> Any { value.rawValue }
            stored = (value as? any RawRepresentable).flatMap { raw($0) as? any PersistentAttributeValue }?.storedValue
        case .json:
            func json<E: Encodable>(_ value: E) -> StrataCore.Value? {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                return (try? encoder.encode(value)).map { $0.elementsEqual("null".utf8) ? .null : .binary($0) }
            }
            stored = (value as? any Encodable).flatMap { json($0) }
        }
        return stored?.isNull == true ? nil : stored
    }

    private static func missingInverse(_ property: String, of entity: String, to destination: Any.Type) -> String {
        "'\(entity).\(property)' has no inverse on \(destination): declare the property of \(destination) that "
            + "points back (Strata keeps both sides of every relationship), with @Relationship(inverse:) when "
            + "there are several"
    }

    private static func rule(_ rule: Schema.Relationship.DeleteRule?) -> StrataCore.Relationship.DeleteRule {
        switch rule ?? .nullify {
        case .nullify: return .nullify
        case .cascade: return .cascade
        case .deny: return .deny
        case .noAction: return .noAction
        }
    }
}

/// The entity name of a model type: its name.
func entityName(of type: Any.Type) -> String {
    String(describing: type)
}
