import StrataCore

/// The object IDs a context inserted, updated and deleted: the payload of its notifications
/// (under ``ObjectContext/changesKey``) and of ``ObjectContext/changes(named:)``.
///
/// `Sendable`, so it crosses queues; pass it to another context's
/// ``ObjectContext/mergeChanges(fromContextDidSave:)``.
public struct ContextChanges: Sendable, Hashable {
    /// IDs of inserted objects (permanent in a did-save, temporary before).
    public var inserted: Set<ObjectID>
    /// IDs of objects whose values or relationships changed.
    public var updated: Set<ObjectID>
    /// IDs of deleted objects.
    public var deleted: Set<ObjectID>

    /// Changes with the given IDs.
    public init(inserted: Set<ObjectID> = [], updated: Set<ObjectID> = [], deleted: Set<ObjectID> = []) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }

    /// Whether no ID is listed.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

extension ContextChanges {
    /// These changes with each ID that `newID` gives a new one for (a temporary ID made
    /// permanent) replaced by it.
    func renaming(_ newID: (ObjectID) -> ObjectID?) -> ContextChanges {
        func renamed(_ ids: Set<ObjectID>) -> Set<ObjectID> { Set(ids.map { newID($0) ?? $0 }) }
        var result = self
        result.inserted = renamed(inserted)
        result.updated = renamed(updated)
        result.deleted = renamed(deleted)
        return result
    }
}
