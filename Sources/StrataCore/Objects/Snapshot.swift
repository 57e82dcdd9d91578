/// The stored state of one object: what a store returns from a fetch and receives in a save.
///
/// Values are indexed by property, in the order the entity declares them (``Entity/attributes``
/// and ``Entity/relationships``), so a snapshot is two small arrays rather than a dictionary.
/// Use ``Entity/attributeIndex(named:)`` or the name-based accessors to address a property.
///
/// ``version`` is the optimistic-locking counter: a store writes an inserted object at version 1
/// and each update at the expected version plus one.
public struct Snapshot: Sendable, Hashable {
    /// The object's identity.
    public var objectID: ObjectID
    /// The optimistic-locking version this state was stored at (0 for a state never stored).
    public var version: Int64
    /// Attribute values, indexed like ``Entity/attributes``.
    public var attributes: [Value]
    /// Relationship targets, indexed like ``Entity/relationships``.
    public var relationships: [RelationshipValue]

    /// Creates a snapshot from already-indexed storage.
    public init(objectID: ObjectID, version: Int64, attributes: [Value], relationships: [RelationshipValue]) {
        self.objectID = objectID
        self.version = version
        self.attributes = attributes
        self.relationships = relationships
    }

    /// A snapshot with every attribute at its default (or null) and every relationship empty.
    public init(objectID: ObjectID, entity: Entity, version: Int64 = 0) {
        self.objectID = objectID
        self.version = version
        self.attributes = entity.attributes.map { $0.defaultValue ?? .null }
        self.relationships = entity.relationships.map { $0.isToMany ? .toMany([]) : .toOne(nil) }
    }

    /// The value of the attribute named `name`, or `nil` when `entity` has no such attribute.
    public func value(of name: String, in entity: Entity) -> Value? {
        entity.attributeIndex(named: name).map { attributes[$0] }
    }

    /// The target(s) of the relationship named `name`, or `nil` when `entity` has no such relationship.
    public func relationship(_ name: String, in entity: Entity) -> RelationshipValue? {
        entity.relationshipIndex(named: name).map { relationships[$0] }
    }
}

/// The target(s) of one relationship in a ``Snapshot``.
public enum RelationshipValue: Sendable, Hashable {
    /// A to-one relationship: the target, or `nil`.
    case toOne(ObjectID?)
    /// A to-many relationship. For ordered relationships the order is the user's; for unordered
    /// ones stores return the targets sorted by ``ObjectID`` order.
    case toMany([ObjectID])

    /// Every target, whatever the kind (empty for a `nil` to-one).
    public var targets: [ObjectID] {
        switch self {
        case .toOne(let id): return id.map { [$0] } ?? []
        case .toMany(let ids): return ids
        }
    }
}
