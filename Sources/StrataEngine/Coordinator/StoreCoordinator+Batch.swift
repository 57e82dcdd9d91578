import StrataCore

extension StoreCoordinator {
    /// Deletes every object of `entityName` that `predicate` matches (every object of the entity
    /// for `nil`) in one transaction of its store, without loading any of them into a context,
    /// and returns the deleted IDs in key order.
    ///
    /// Delete rules do not run: other objects' relationships to the deleted ones are emptied and
    /// those objects' versions bumped, so a context still holding an older state of one gets a
    /// conflict at its next save instead of writing a dangling reference back.
    ///
    /// Contexts are not changed: merge the result into those that may hold the deleted objects
    /// (`context.mergeChanges(fromContextDidSave: ContextChanges(deleted: Set(result.objectIDs)))`).
    /// A container whose view context merges remote changes gets the batch's transaction there
    /// by itself, as a save by another process. The coordinator's row cache forgets the deleted
    /// objects and the cached objects of the entities that can refer to them at once.
    ///
    /// A store that deletes in batches itself (``BatchOperating``: SQLite, PostgreSQL, in-memory)
    /// runs one transaction of a few statements. Any other store (LMDB, XML, a third party's)
    /// gets one save through the store protocol: the matching objects and the objects of the
    /// entities that refer to `entityName` are read, and the deletes and emptied relationships
    /// saved at the versions read; a save by another process in between makes it read and try
    /// again (up to 5 times, then ``StrataError/Code/conflict``).
    ///
    /// - Throws: ``StrataError/Code/unknownEntity``; what the store throws (a read-only store's
    ///   error, ``StrataError/Code/conflict``). Nothing is deleted when it throws.
    @discardableResult
    public func batchDelete(entityName: String, where predicate: ObjectPredicate? = nil) throws -> BatchResult {
        let store = try self.store(for: entityName)
        let result = try withSavesHeld(to: store) {
            defer { writes.add(1, ordering: .releasing) }
            if let batch = store.capability((any BatchOperating).self) {
                return try batch.batchDelete(entityName: entityName, predicate: predicate)
            }
            return try StoreProtocolBatch(store: store, model: model).delete(entityName, where: predicate)
        }
        forgetCachedRows(deleting: result.objectIDs, of: entityName)
        return result
    }

    /// Deletes the objects `ids` (of any entities) as ``batchDelete(entityName:where:)`` does:
    /// one batch per entity, without loading them. IDs of objects no longer stored are passed
    /// over; the result holds those deleted, in key order within each entity.
    ///
    /// - Throws: ``StrataError/Code/invalidObjectID`` for a temporary ID (an object never saved
    ///   is in no store: nothing is deleted), or what ``batchDelete(entityName:where:)`` throws.
    ///   The entities are deleted one after another, so an error in one leaves the earlier ones
    ///   deleted.
    @discardableResult
    public func batchDelete(_ ids: some Sequence<ObjectID>) throws -> BatchResult {
        var byEntity: [String: [ObjectID]] = [:]
        var order: [String] = []
        for id in ids {
            guard !id.isTemporary else {
                throw StrataError(
                    .invalidObjectID, "\(id) is temporary: an object never saved is in no store to delete it from",
                    location: ["object": id.description])
            }
            if byEntity[id.entityName] == nil { order.append(id.entityName) }
            byEntity[id.entityName, default: []].append(id)
        }
        var deleted: [ObjectID] = []
        for entityName in order {
            let members = byEntity[entityName]!.map { ObjectPredicate.Operand.objectID($0) }
            let predicate = ObjectPredicate.comparison(.init(.evaluatedObject, .in, .list(members)))
            deleted += try batchDelete(entityName: entityName, where: predicate).objectIDs
        }
        return BatchResult(objectIDs: deleted)
    }

    /// Sets `values` (attribute name to new value) on every object of `entityName` that
    /// `predicate` matches (all of them for `nil`) in one transaction of its store, bumping each
    /// object's version, without loading any of them into a context; returns the updated IDs in
    /// key order. Contexts and the row cache are kept in step as after
    /// ``batchDelete(entityName:where:)`` (merge the IDs as `updated:`); other stores than
    /// ``BatchOperating`` ones get one save through the store protocol, as there.
    ///
    /// - Throws: ``StrataError/Code/unknownEntity``, ``StrataError/Code/unknownKey`` for a name
    ///   that is not an attribute, ``StrataError/Code/missingValue`` for `nil` on a required
    ///   attribute, ``StrataError/Code/typeMismatch`` for a value of another type,
    ///   ``StrataError/Code/uniqueConstraint``; nothing is changed when it throws.
    @discardableResult
    public func batchUpdate(entityName: String, where predicate: ObjectPredicate? = nil, set values: [String: Value])
        throws -> BatchResult
    {
        let store = try self.store(for: entityName)
        let assignments = try model.requireEntity(entityName).batchAssignments(values)
        let result = try withSavesHeld(to: store) {
            defer { writes.add(1, ordering: .releasing) }
            if let batch = store.capability((any BatchOperating).self) {
                return try batch.batchUpdate(entityName: entityName, predicate: predicate, values: values)
            }
            return try StoreProtocolBatch(store: store, model: model).update(
                entityName, where: predicate, assignments: assignments)
        }
        rowCache.remove(result.objectIDs)
        return result
    }

    /// Drops from the row cache the objects `deleted` of `entityName`, and every cached object of
    /// an entity with a relationship to it (a batch delete may have emptied that relationship
    /// and bumped the object's version).
    private func forgetCachedRows(deleting deleted: [ObjectID], of entityName: String) {
        guard !deleted.isEmpty else { return }
        rowCache.remove(deleted)
        let referring = Set(
            model.entities.filter { $0.relationships.contains { $0.destination == entityName } }.map(\.name))
        if !referring.isEmpty { rowCache.removeAll { referring.contains($0.entityName) } }
    }
}
