import Foundation

/// One save, as a store's persistent history recorded it.
public struct HistoryTransaction: Sendable, Hashable {
    /// Where the transaction sits in the store's history.
    public var token: HistoryToken
    /// When the save committed.
    public var timestamp: Date
    /// Who saved (the saving context's `transactionAuthor`), when it was set.
    public var author: String?
    /// The saving context's name, when it had one.
    public var contextName: String?
    /// Every object the save inserted, updated or deleted: inserts first, then updates, then
    /// deletes, each in the order of the save.
    public var changes: [HistoryChange]

    /// Creates a transaction.
    public init(
        token: HistoryToken, timestamp: Date, author: String? = nil, contextName: String? = nil,
        changes: [HistoryChange]
    ) {
        self.token = token
        self.timestamp = timestamp
        self.author = author
        self.contextName = contextName
        self.changes = changes
    }
}

/// One object's change in a ``HistoryTransaction``.
public struct HistoryChange: Sendable, Hashable {
    /// What happened to the object.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// The save created the object.
        case insert
        /// The save changed some of its properties (see ``HistoryChange/properties``).
        case update
        /// The save deleted it (see ``HistoryChange/tombstone``).
        case delete
    }

    /// What happened.
    public var kind: Kind
    /// The object.
    public var objectID: ObjectID
    /// For an update, each changed property with its value before and after the save, in the
    /// entity's property order (attributes, then relationships). Empty for inserts and deletes.
    public var properties: [PropertyChange]
    /// For a delete, the values of the attributes the model keeps after deletion
    /// (``Attribute/preservesValueOnDeletion``), by attribute name. Empty otherwise.
    public var tombstone: [String: Value]

    /// Creates a change.
    public init(
        kind: Kind, objectID: ObjectID, properties: [PropertyChange] = [], tombstone: [String: Value] = [:]
    ) {
        self.kind = kind
        self.objectID = objectID
        self.properties = properties
        self.tombstone = tombstone
    }

    /// The entity of the changed object.
    public var entityName: String { objectID.entityName }
}

/// A property an update changed, with its values before and after.
public struct PropertyChange: Sendable, Hashable {
    /// The attribute's or relationship's name.
    public var name: String
    /// The value before the save.
    public var oldValue: PropertyValue
    /// The value after the save.
    public var newValue: PropertyValue

    /// Creates a property change.
    public init(name: String, oldValue: PropertyValue, newValue: PropertyValue) {
        self.name = name
        self.oldValue = oldValue
        self.newValue = newValue
    }
}

/// The value of an attribute or of a relationship.
public enum PropertyValue: Sendable, Hashable {
    /// An attribute's value.
    case attribute(Value)
    /// A relationship's targets.
    case relationship(RelationshipValue)
}
