/// A kind of object: its attributes, relationships, unique constraints and indexes.
///
/// Property lookups by name are O(1): an entity precomputes its name-to-index tables.
public struct Entity: Sendable {
    /// The entity's name: a letter followed by letters, digits or underscores.
    public var name: String { declaration.name }
    /// The attributes, in declaration order (the order of ``Snapshot/attributes``).
    public var attributes: [Attribute] { declaration.attributes }
    /// The relationships, in declaration order (the order of ``Snapshot/relationships``).
    public var relationships: [Relationship] { declaration.relationships }
    /// Groups of attribute names whose combined values must be unique across the entity.
    public var uniqueConstraints: [[String]] { declaration.uniqueConstraints }
    /// Indexes a store should build to speed up fetches.
    public var indexes: [Index] { declaration.indexes }
    /// The name this entity had in an earlier model version. Not part of the version hash.
    public var renamingIdentifier: String? { declaration.renamingIdentifier }

    /// Everything an entity holds, in one immutable object: every managed object keeps its
    /// entity, and copying one reference costs one retain where copying eight fields cost eight
    /// (an entity was a quarter of the retains of materializing a fetched object).
    private let declaration: Declaration

    private final class Declaration: Sendable {
        let name: String
        let attributes: [Attribute]
        let relationships: [Relationship]
        let uniqueConstraints: [[String]]
        let indexes: [Index]
        let renamingIdentifier: String?
        let attributeIndexes: PropertyNameTable
        let relationshipIndexes: PropertyNameTable

        init(
            name: String, attributes: [Attribute], relationships: [Relationship], uniqueConstraints: [[String]],
            indexes: [Index], renamingIdentifier: String?
        ) {
            self.name = name
            self.attributes = attributes
            self.relationships = relationships
            self.uniqueConstraints = uniqueConstraints
            self.indexes = indexes
            self.renamingIdentifier = renamingIdentifier
            attributeIndexes = PropertyNameTable(attributes.map(\.name))
            relationshipIndexes = PropertyNameTable(relationships.map(\.name))
        }
    }

    /// A named index over one or more attributes.
    public struct Index: Sendable, Hashable {
        /// The index's name, unique within the entity.
        public var name: String
        /// The attributes it covers, in order.
        public var properties: [String]
        /// Creates an index.
        public init(name: String, properties: [String]) {
            self.name = name
            self.properties = properties
        }
    }

    /// Creates an entity. Consistency with the rest of the model is checked by ``Model/init(versionIdentifier:entities:configurations:)``.
    public init(
        _ name: String,
        attributes: [Attribute] = [],
        relationships: [Relationship] = [],
        uniqueConstraints: [[String]] = [],
        indexes: [Index] = [],
        renamingIdentifier: String? = nil
    ) {
        declaration = Declaration(
            name: name, attributes: attributes, relationships: relationships, uniqueConstraints: uniqueConstraints,
            indexes: indexes, renamingIdentifier: renamingIdentifier)
    }

    /// Whether `other` is a copy of this very entity value (the same entity of the same model
    /// instance): one pointer comparison. `false` does not mean the two differ; compare names
    /// or values for that.
    public func isSameDeclaration(as other: Entity) -> Bool { declaration === other.declaration }

    /// The type of the attribute at `index` in ``attributes``, read in place (no copy of the
    /// attribute list: this runs for every value written).
    public func attributeType(at index: Int) -> AttributeType { declaration.attributes[index].type }

    /// The position of the attribute named `name` in ``attributes``. O(1).
    public func attributeIndex(named name: String) -> Int? { declaration.attributeIndexes.index(of: name) }
    /// The position of the relationship named `name` in ``relationships``. O(1).
    public func relationshipIndex(named name: String) -> Int? { declaration.relationshipIndexes.index(of: name) }
    /// The attribute named `name`. O(1).
    public func attribute(named name: String) -> Attribute? {
        attributeIndex(named: name).map { declaration.attributes[$0] }
    }
    /// The relationship named `name`. O(1).
    public func relationship(named name: String) -> Relationship? {
        relationshipIndex(named: name).map { declaration.relationships[$0] }
    }
}

extension Entity: Hashable {
    /// Entities are equal when their declarations are equal.
    public static func == (lhs: Entity, rhs: Entity) -> Bool {
        lhs.declaration === rhs.declaration
            || lhs.name == rhs.name && lhs.attributes == rhs.attributes && lhs.relationships == rhs.relationships
                && lhs.uniqueConstraints == rhs.uniqueConstraints && lhs.indexes == rhs.indexes
                && lhs.renamingIdentifier == rhs.renamingIdentifier
    }

    /// Hashes the declaration.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(attributes)
        hasher.combine(relationships)
    }
}

extension Entity: CustomStringConvertible {
    /// `Employee(name: string, height: double?, department -> Department)`.
    public var description: String {
        let attributes = self.attributes.map { "\($0.name): \($0.type.rawValue)\($0.isOptional ? "?" : "")" }
        let relationships = self.relationships.map { "\($0.name) \($0.isToMany ? "->>" : "->") \($0.destination)" }
        return "\(name)(\((attributes + relationships).joined(separator: ", ")))"
    }
}
