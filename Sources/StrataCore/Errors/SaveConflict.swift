/// One object that changed in the store after a context read it: the unit of optimistic locking.
///
/// A store that rejects a save lists every such object, and writes nothing.
public struct SaveConflict: Sendable, Hashable, CustomStringConvertible {
    /// The object in conflict.
    public var objectID: ObjectID
    /// The version the save expected (the one the object was read at).
    public var expectedVersion: Int64
    /// The store's current snapshot, or `nil` when the object was deleted from the store.
    public var storedSnapshot: Snapshot?
    /// Filled by the engine: the properties that differ, with their three values.
    public var properties: [PropertyConflict]

    /// Creates a conflict record.
    public init(
        objectID: ObjectID, expectedVersion: Int64, storedSnapshot: Snapshot?, properties: [PropertyConflict] = []
    ) {
        self.objectID = objectID
        self.expectedVersion = expectedVersion
        self.storedSnapshot = storedSnapshot
        self.properties = properties
    }

    /// The store's current version, or `nil` when the object was deleted from the store.
    public var storedVersion: Int64? { storedSnapshot?.version }

    /// `Employee p12: expected version 3, store has 4 (name: memory "a", snapshot "b", store "c")`.
    public var description: String {
        var text = "\(objectID): expected version \(expectedVersion), "
        if let storedVersion { text += "store has version \(storedVersion)" } else { text += "deleted in the store" }
        if !properties.isEmpty { text += " (" + properties.map(\.description).joined(separator: "; ") + ")" }
        return text
    }
}

/// One property in conflict: its value in memory, in the snapshot the context read, and in the store.
public struct PropertyConflict: Sendable, Hashable, CustomStringConvertible {
    /// The property's name.
    public var property: String
    /// The value the context wants to write.
    public var memoryValue: String
    /// The value when the context read the object.
    public var snapshotValue: String
    /// The value in the store now.
    public var storeValue: String

    /// Creates a property conflict; values are rendered as text so any property kind fits.
    public init(property: String, memoryValue: String, snapshotValue: String, storeValue: String) {
        self.property = property
        self.memoryValue = memoryValue
        self.snapshotValue = snapshotValue
        self.storeValue = storeValue
    }

    /// `name: memory "a", snapshot "b", store "c"`. A value longer than 300 characters (a
    /// to-many relationship's targets, say) is shown by its beginning and its length; the
    /// properties hold it whole.
    public var description: String {
        "\(property): memory \(memoryValue.shortenedForMessages), snapshot \(snapshotValue.shortenedForMessages), store \(storeValue.shortenedForMessages)"
    }
}

/// One validation failure: which object, which property, why.
public struct ValidationFailure: Sendable, Hashable, CustomStringConvertible {
    /// The object that failed (temporary IDs for unsaved inserts).
    public var objectID: ObjectID
    /// The property that failed, or `nil` for an object-level rule (a unique constraint spans
    /// several properties: they are joined with commas).
    public var property: String?
    /// What is wrong, including the offending value.
    public var reason: String

    /// Creates a failure record.
    public init(objectID: ObjectID, property: String?, reason: String) {
        self.objectID = objectID
        self.property = property
        self.reason = reason
    }

    /// `Employee p12.name: is shorter than 1 character ("")`. A reason longer than 300
    /// characters (one quoting a long value) is shown by its beginning and its length;
    /// ``reason`` holds it whole.
    public var description: String {
        "\(objectID)" + (property.map { ".\($0)" } ?? "") + ": \(reason.shortenedForMessages)"
    }
}
