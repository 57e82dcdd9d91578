import Foundation
import StrataCore

extension ObjectContext {
    /// Posted by ``save()`` before it saves (when there is something to save), with the pending
    /// changes (inserted objects still have temporary IDs).
    public static let willSaveNotification = Notification.Name("StrataObjectContextWillSave")
    /// Posted by ``save()`` after a successful save, with what was written: inserted objects
    /// under their permanent IDs, updated ones, and deleted ones (cascades included).
    public static let didSaveNotification = Notification.Name("StrataObjectContextDidSave")
    /// Posted by ``processPendingChanges()`` (which runs at the end of every outermost perform
    /// block and at the start of a save) when objects were inserted, changed or deleted since
    /// the last post, and by ``mergeChanges(fromContextDidSave:)`` with the objects it refreshed
    /// (`updated`) and invalidated (`deleted`).
    public static let objectsDidChangeNotification = Notification.Name("StrataObjectContextObjectsDidChange")
    /// The `userInfo` key of every notification above: a ``ContextChanges``.
    public static let changesKey = "changes"
    /// `userInfo` key: the `Set<ManagedObject>` of the inserted IDs still registered in the
    /// posting context. Objects are not `Sendable`: use them only in observers that run on the
    /// posting context's queue (observers run synchronously, where the context posts).
    public static let insertedObjectsKey = "insertedObjects"
    /// `userInfo` key: the `Set<ManagedObject>` of the updated IDs registered in the posting
    /// context (same-queue observers only).
    public static let updatedObjectsKey = "updatedObjects"
    /// `userInfo` key: the `Set<ManagedObject>` of the deleted IDs still registered in the
    /// posting context: pending deletes in objects-did-change; empty in did-save and after a
    /// merge, whose deleted objects have left the context (same-queue observers only).
    public static let deletedObjectsKey = "deletedObjects"
    /// `userInfo` key of ``didSaveNotification``: the `[SaveConflict]` that the context's
    /// ``mergePolicy`` resolved during that save (empty when there was none), each with the
    /// in-memory, snapshot and stored values of its properties as they were when the conflict
    /// was found, and a `nil` stored snapshot for an object deleted in the store (or the parent),
    /// which left the context. So no change a policy discards goes unreported.
    public static let resolvedConflictsKey = "resolvedConflicts"

    /// Posts the pending `objectsDidChange` notification now, if anything changed since the
    /// last one. Runs by itself at the end of each outermost perform block and before a save;
    /// call it yourself after direct (non-perform) use when observers must hear at once.
    public func processPendingChanges() {
        checkConfinement()
        postPendingChanges()
    }

    /// Posts the pending `objectsDidChange` notification, if any.
    ///
    /// `insertedMembers`: the change set's inserted objects, when the caller has them (a save).
    /// When they are exactly the objects of the pending inserted IDs (every insert since the
    /// last notification, the usual case of a run of inserts then a save), their set is made
    /// from them instead of by looking each ID up, and returned with the IDs, for the caller
    /// to post again; `nil` otherwise.
    @discardableResult
    func postPendingChanges(insertedMembers: [ManagedObject]? = nil) -> (
        objects: Set<ManagedObject>, ids: Set<ObjectID>
    )? {
        guard !pendingChanges.isEmpty else { return nil }
        let changes = pendingChanges
        pendingChanges = ContextChanges()
        if let liveRegistry { liveRegistry.apply(changes, in: self) }
        guard let insertedMembers, !insertedMembers.isEmpty, changes.inserted.count == insertedMembers.count,
            insertedMembers.allSatisfy({ changes.inserted.contains($0.objectID) })
        else {
            post(ObjectContext.objectsDidChangeNotification, changes)
            return nil
        }
        let inserted = Set(insertedMembers)
        post(
            ObjectContext.objectsDidChangeNotification, changes,
            sets: ObjectSets(
                inserted: inserted, updated: registeredObjectSet(of: changes.updated),
                deleted: registeredObjectSet(of: changes.deleted)))
        return (inserted, changes.inserted)
    }

    /// The objects of `ids` registered here (or changed here).
    private func registeredObjectSet(of ids: Set<ObjectID>) -> Set<ManagedObject> {
        var found = Set<ManagedObject>(minimumCapacity: ids.count)
        for id in ids { if let object = registeredObject(for: id) { found.insert(object) } }
        return found
    }

    /// The changes of every future notification `name` of this context, as an asynchronous
    /// sequence; the sequence ends when the context goes away. Elements are delivered in order,
    /// buffered without bound, to any task.
    public func changes(named name: Notification.Name = ObjectContext.didSaveNotification) -> AsyncStream<
        ContextChanges
    > {
        let (stream, continuation) = AsyncStream<ContextChanges>.makeStream()
        let key = streams.withLock { table -> Int in
            table.next += 1
            table.continuations[table.next] = (name, continuation)
            return table.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.streams.withLock { $0.continuations.removeValue(forKey: key) }
        }
        return stream
    }

    /// Posts `name` through `NotificationCenter.default` (observers run synchronously, on this
    /// context's queue) and yields to the streams that asked for it; returns the object sets it
    /// posted: `sets` when the caller has them already, else the registered objects of the IDs.
    @discardableResult
    func post(
        _ name: Notification.Name, _ changes: ContextChanges, sets: ObjectSets? = nil,
        resolvedConflicts: [SaveConflict]? = nil
    ) -> ObjectSets {
        let posted =
            sets
            ?? ObjectSets(
                inserted: registeredObjectSet(of: changes.inserted), updated: registeredObjectSet(of: changes.updated),
                deleted: registeredObjectSet(of: changes.deleted))
        var userInfo: [AnyHashable: Any] = [
            ObjectContext.changesKey: changes,
            ObjectContext.insertedObjectsKey: posted.inserted,
            ObjectContext.updatedObjectsKey: posted.updated,
            ObjectContext.deletedObjectsKey: posted.deleted,
        ]
        if let resolvedConflicts { userInfo[ObjectContext.resolvedConflictsKey] = resolvedConflicts }
        NotificationCenter.default.post(name: name, object: self, userInfo: userInfo)
        let targets = streams.withLock { table in
            table.continuations.values.filter { $0.name == name }.map(\.continuation)
        }
        for continuation in targets { continuation.yield(changes) }
        return posted
    }

    /// Notes an insert for the next `objectsDidChange`.
    func noteInserted(_ id: ObjectID) {
        pendingChanges.inserted.insert(id)
    }

    /// Notes a change for the next `objectsDidChange` (not for objects inserted since the last).
    func noteUpdated(_ id: ObjectID) {
        if !pendingChanges.inserted.contains(id) { pendingChanges.updated.insert(id) }
    }

    /// Notes a delete for the next `objectsDidChange`; an object inserted since the last one
    /// simply drops out.
    func noteDeleted(_ id: ObjectID) {
        pendingChanges.updated.remove(id)
        if pendingChanges.inserted.remove(id) == nil { pendingChanges.deleted.insert(id) }
    }
}

/// The streams handed out by ``ObjectContext/changes(named:)``.
struct ChangeStreams {
    var next = 0
    var continuations: [Int: (name: Notification.Name, continuation: AsyncStream<ContextChanges>.Continuation)] = [:]
}
