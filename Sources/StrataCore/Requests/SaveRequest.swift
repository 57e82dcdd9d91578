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
    /// Who saves, recorded in the store's history (a context's `transactionAuthor`).
    public var transactionAuthor: String?
    /// The saving context's name, recorded in the store's history.
    public var contextName: String?

    /// A changed object and the version the change was based on.
    public struct Update: Sendable, Hashable {
        /// The new state. Its ``Snapshot/version`` is ignored; the store writes `expectedVersion + 1`.
        public var snapshot: Snapshot
        /// The version the object was read at. If the store holds another version (or no longer
        /// holds the object), the whole save fails with a ``SaveConflict``.
        public var expectedVersion: Int64
        /// The stored state the change was based on, when the caller holds it: a store that
        /// records history takes the old values from it instead of reading the row. A store
        /// uses it only when its version equals ``expectedVersion``.
        public var previous: Snapshot?
        /// Creates an update without its previous state.
        public init(_ snapshot: Snapshot, expectedVersion: Int64) {
            self.init(snapshot, expectedVersion: expectedVersion, previous: nil)
        }
        /// Creates an update.
        public init(_ snapshot: Snapshot, expectedVersion: Int64, previous: Snapshot?) {
            self.snapshot = snapshot
            self.expectedVersion = expectedVersion
            self.previous = previous
        }
    }

    /// A deleted object and the version the delete was based on.
    public struct Delete: Sendable, Hashable {
        /// The object to delete.
        public var objectID: ObjectID
        /// The version the object was read at; a mismatch is a conflict, as for updates.
        /// A store that no longer holds the object reports a conflict with a `nil` stored snapshot.
        public var expectedVersion: Int64
        /// The stored state before the delete, when the caller holds it (see
        /// ``Update/previous``); history keeps its values marked to survive deletion.
        public var previous: Snapshot?
        /// Creates a delete without its previous state.
        public init(_ objectID: ObjectID, expectedVersion: Int64) {
            self.init(objectID, expectedVersion: expectedVersion, previous: nil)
        }
        /// Creates a delete.
        public init(_ objectID: ObjectID, expectedVersion: Int64, previous: Snapshot?) {
            self.objectID = objectID
            self.expectedVersion = expectedVersion
            self.previous = previous
        }
    }

    /// Creates a save request.
    public init(
        inserts: [Snapshot] = [], updates: [Update] = [], deletes: [Delete] = [],
        metadataChanges: [String: String?] = [:]
    ) {
        self.init(
            inserts: inserts, updates: updates, deletes: deletes, metadataChanges: metadataChanges,
            transactionAuthor: nil, contextName: nil)
    }

    /// Creates a save request recorded in the history with its author and context name.
    public init(
        inserts: [Snapshot] = [], updates: [Update] = [], deletes: [Delete] = [],
        metadataChanges: [String: String?] = [:], transactionAuthor: String?, contextName: String? = nil
    ) {
        self.inserts = inserts
        self.updates = updates
        self.deletes = deletes
        self.metadataChanges = metadataChanges
        self.transactionAuthor = transactionAuthor
        self.contextName = contextName
    }

    /// Whether the request changes nothing.
    public var isEmpty: Bool { inserts.isEmpty && updates.isEmpty && deletes.isEmpty && metadataChanges.isEmpty }
}

/// What a store reports after applying a ``SaveRequest``.
public struct SaveResult: Sendable, Hashable {
    /// The version each inserted or updated object now has in the store.
    public var versions: [ObjectID: Int64]
    /// The history transaction the save appended, for a store that records history
    /// (``HistoryRecording``); `nil` when it records none (history off, or an empty save).
    /// A container compares it with the tokens it polls, so its own saves never come back to it
    /// as another process's.
    public var historyToken: HistoryToken?

    /// Creates a result.
    public init(versions: [ObjectID: Int64] = [:]) { self.versions = versions }

    /// Creates the result of a save that appended the history transaction `historyToken`.
    public init(versions: [ObjectID: Int64], historyToken: HistoryToken?) {
        self.versions = versions
        self.historyToken = historyToken
    }
}
