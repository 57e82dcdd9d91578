/// A kind of object: its attributes, relationships, unique constraints and indexes.
///
/// Property lookups by name are O(1): an entity precomputes its name-to-index tables.
public struct Entity: Sendable {
    /// The entity's name: a letter followed by letters, digits or underscores.
    public let name: String
    /// The attributes, in declaration order (the order of ``Snapshot/attributes``).
    public let attributes: [Attribute]
    /// The relationships, in declaration order (the order of ``Snapshot/relationships``).
    public let relationships: [Relationship]
    /// Groups of attribute names whose combined values must be unique across the entity.
    public let uniqueConstraints: [[String]]
    /// Indexes a store should build to speed up fetches.
    public let indexes: [Index]
    /// The name this entity had in an earlier model version. Not part of the version hash.
    public let renamingIdentifier: String?

    private let attributeIndexes: [String: Int]
    private let relationshipIndexes: [String: Int]

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
        self.name = name
        self.attributes = attributes
        self.relationships = relationships
        self.uniqueConstraints = uniqueConstraints
        self.indexes = indexes
        self.renamingIdentifier = renamingIdentifier
        var a: [String: Int] = [:]
        for (i, attribute) in attributes.enumerated() where a[attribute.name] == nil { a[attribute.name] = i }
        var r: [String: Int] = [:]
        for (i, relationship) in relationships.enumerated() where r[relationship.name] == nil { r[relationship.name] = i }
        attributeIndexes = a
        relationshipIndexes = r
    }

    /// The position of the attribute named `name` in ``attributes``. O(1).
    public func attributeIndex(named name: String) -> Int? { attributeIndexes[name] }
    /// The position of the relationship named `name` in ``relationships``. O(1).
    public func relationshipIndex(named name: String) -> Int? { relationshipIndexes[name] }
    /// The attribute named `name`. O(1).
    public func attribute(named name: String) -> Attribute? { attributeIndexes[name].map { attributes[$0] } }
    /// The relationship named `name`. O(1).
    public func relationship(named name: String) -> Relationship? { relationshipIndexes[name].map { relationships[$0] } }
}

extension Entity: Hashable {
    /// Entities are equal when their declarations are equal.
    public static func == (lhs: Entity, rhs: Entity) -> Bool {
        lhs.name == rhs.name && lhs.attributes == rhs.attributes && lhs.relationships == rhs.relationships
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
