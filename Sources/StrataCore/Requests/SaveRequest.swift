/// A change for a store to apply atomically: all of it, or none of it.
///
/// The engine sends inverse-consistent changes: when an employee moves from one department to
/// another, the request holds the employee and both departments. A store may persist both sides
/// or derive one from the other; either way, a later fetch returns both sides as saved.
///
/// Inserts carry permanent IDs the store handed out through
/// ``PersistentStore/obtainPermanentIDs(for:count:)``.
public struct SaveRequest: Sendable, Hashable {
    /// New objects. Their ``Snapshot/version`` is ignored; the store writes version 1.
    public var inserts: [Snapshot]
    /// Changed objects, each with the version it was read at.
    public var updates: [Update]
    /// Deleted objects, each with the version it was read at.
    public var deletes: [Delete]
    /// User metadata keys to set in the same transaction (a `nil` value removes the key).
    public var metadataChanges: [String: String?]

    /// A changed object and the version the change was based on.
    public struct Update: Sendable, Hashable {
        /// The new state. Its ``Snapshot/version`` is ignored; the store writes `expectedVersion + 1`.
        public var snapshot: Snapshot
        /// The version the object was read at. If the store holds another version (or no longer
        /// holds the object), the whole save fails with a ``SaveConflict``.
        public var expectedVersion: Int64
        /// Creates an update.
        public init(_ snapshot: Snapshot, expectedVersion: Int64) {
            self.snapshot = snapshot
            self.expectedVersion = expectedVersion
        }
    }

    /// A deleted object and the version the delete was based on.
    public struct Delete: Sendable, Hashable {
        /// The object to delete.
        public var objectID: ObjectID
        /// The version the object was read at; a mismatch is a conflict, as for updates.
        /// A store that no longer holds the object reports a conflict with a `nil` stored snapshot.
        public var expectedVersion: Int64
        /// Creates a delete.
        public init(_ objectID: ObjectID, expectedVersion: Int64) {
            self.objectID = objectID
            self.expectedVersion = expectedVersion
        }
    }

    /// Creates a save request.
    public init(
        inserts: [Snapshot] = [], updates: [Update] = [], deletes: [Delete] = [],
        metadataChanges: [String: String?] = [:]
    ) {
        self.inserts = inserts
        self.updates = updates
        self.deletes = deletes
        self.metadataChanges = metadataChanges
    }

    /// Whether the request changes nothing.
    public var isEmpty: Bool { inserts.isEmpty && updates.isEmpty && deletes.isEmpty && metadataChanges.isEmpty }
}

/// What a store reports after applying a ``SaveRequest``.
public struct SaveResult: Sendable, Hashable {
    /// The version each inserted or updated object now has in the store.
    public var versions: [ObjectID: Int64]

    /// Creates a result.
    public init(versions: [ObjectID: Int64] = [:]) { self.versions = versions }
}
