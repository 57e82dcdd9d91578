/// How the objects of one destination entity come from the source version: which source entity,
/// and for every destination property which source property (or none) and how values change.
///
/// Built by inference (StrataMigrations' `MigrationStep.infer(from:to:stage:)`); executors
/// (StrataMigrations' and the backends' native ones) read it.
public struct EntityMapping: Sendable, Hashable {
    /// The destination entity's name.
    public var destinationEntity: String
    /// The source entity's name, or `nil` for a new entity (no objects to carry over).
    public var sourceEntity: String?
    /// One mapping per destination attribute, in the destination entity's declaration order.
    public var attributes: [AttributeMapping]
    /// One mapping per destination relationship, in the destination entity's declaration order.
    public var relationships: [RelationshipMapping]

    /// Creates a mapping.
    public init(
        destinationEntity: String, sourceEntity: String?, attributes: [AttributeMapping],
        relationships: [RelationshipMapping]
    ) {
        self.destinationEntity = destinationEntity
        self.sourceEntity = sourceEntity
        self.attributes = attributes
        self.relationships = relationships
    }

}

/// Where one destination attribute's values come from.
public struct AttributeMapping: Sendable, Hashable {
    /// The destination attribute's name.
    public var name: String
    /// The source attribute's name, or `nil` for a new attribute.
    public var source: String?
    /// The source attribute's position in the source entity, or `nil` for a new attribute.
    public var sourceIndex: Int?
    /// The value a new attribute starts with (its default, or null).
    public var initialValue: Value
    /// For an attribute that becomes required: the value that replaces nulls (its default).
    public var fillNulls: Value?

    /// Creates a mapping.
    public init(name: String, source: String?, sourceIndex: Int?, initialValue: Value, fillNulls: Value?) {
        self.name = name
        self.source = source
        self.sourceIndex = sourceIndex
        self.initialValue = initialValue
        self.fillNulls = fillNulls
    }
}

/// Where one destination relationship's targets come from.
public struct RelationshipMapping: Sendable, Hashable {
    /// How the targets' shape changes.
    public enum Conversion: String, Sendable, Hashable {
        /// Same kind.
        case none
        /// A to-one becomes a to-many of at most one target.
        case toOneToMany
        /// A to-many becomes a to-one (a stage made sure there is at most one target).
        case toManyToOne
    }

    /// The destination relationship's name.
    public var name: String
    /// The source relationship's name, or `nil` for a new relationship (empty).
    public var source: String?
    /// The source relationship's position in the source entity.
    public var sourceIndex: Int?
    /// The shape change.
    public var conversion: Conversion

    /// Creates a mapping.
    public init(name: String, source: String?, sourceIndex: Int?, conversion: Conversion) {
        self.name = name
        self.source = source
        self.sourceIndex = sourceIndex
        self.conversion = conversion
    }
}
