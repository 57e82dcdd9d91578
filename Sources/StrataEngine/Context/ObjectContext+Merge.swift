import StrataCore

extension ObjectContext {
    /// Brings this context up to date with another context's save (the ``ContextChanges`` of its
    /// ``didSaveNotification``), typically from an observer:
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: ObjectContext.didSaveNotification, object: background, queue: nil) { note in
    ///     guard let changes = note.userInfo?[ObjectContext.changesKey] as? ContextChanges else { return }
    ///     viewContext.perform { try? viewContext.mergeChanges(fromContextDidSave: changes) }
    /// }
    /// ```
    ///
    /// - Updated objects registered here and loaded are refreshed with `mergeChanges: true`:
    ///   they take the saved state and keep this context's own unsaved edits on top. Faults need
    ///   nothing: they load the saved state when touched.
    /// - Deleted objects registered here leave the context: they become invalid, their
    ///   ``ManagedObject/context`` turns `nil`, and changing one throws.
    /// - Inserted objects need nothing: they fault in on demand (through relationships of the
    ///   refreshed objects, or ``object(with:)``).
    ///
    /// Posts ``objectsDidChangeNotification`` with the refreshed (`updated`) and removed
    /// (`deleted`) IDs when there were any.
    ///
    /// - Throws: a ``StrataError`` when a store fails to read an updated object; objects
    ///   refreshed before it stay refreshed.
    public func mergeChanges(fromContextDidSave changes: ContextChanges) throws {
        try mergeChanges(fromContextDidSave: changes, parentStates: [:])
    }

    /// ``mergeChanges(fromContextDidSave:)`` of a save pushed into this context's parent, with
    /// `parentStates`, the parent's states of (some of) the changed objects, which live queries
    /// then take instead of reading them from the parent, and `prepared`, the live queries'
    /// decisions for the inserted objects made from those states before the merge.
    func mergeChanges(
        fromContextDidSave changes: ContextChanges, parentStates: [ObjectID: Snapshot],
        prepared: PreparedLiveMerge? = nil
    ) throws {
        checkConfinement()
        coordinator.rowCache.remove(changes.updated)
        var merged = ContextChanges()
        for id in changes.deleted.sorted() {
            guard let object = registeredObject(for: id) else { continue }
            unregister(object)
            object.state.isInvalid = true
            object.state.isDeleted = false
            object.context = nil
            merged.deleted.insert(id)
        }
        if !changes.deleted.isEmpty { forgetDeletedTargets(changes.deleted) }
        for id in changes.updated.sorted() {
            guard let object = registeredObject(for: id), !object.state.isFault, !object.state.isInvalid else {
                continue
            }
            try refresh(object, mergeChanges: true)
            merged.updated.insert(id)
        }
        logMerge(of: changes, merged: merged)
        liveRegistry?.apply(changes, in: self, knownStates: parentStates, prepared: prepared)
        if !merged.isEmpty { post(ObjectContext.objectsDidChangeNotification, merged) }
    }

    /// Takes the objects another context's save deleted out of the relationships of this
    /// context's changed objects, which would otherwise keep them through their unsaved edits
    /// (and a merge policy that keeps those) and fail their save: as the saved state already
    /// does for every other object.
    private func forgetDeletedTargets(_ deleted: Set<ObjectID>) {
        for object in changed.values where !object.state.isFault && !object.state.isDeleted {
            guard object.relationshipValues.contains(where: { $0.targets.contains(where: deleted.contains) }) else {
                continue
            }
            object.relationshipValues = Self.removing(deleted, from: object.relationshipValues)
            if let original = object.original {
                object.original?.relationships = Self.removing(deleted, from: original.relationships)
            }
        }
    }

    /// `values` without the targets in `ids`.
    static func removing(_ ids: Set<ObjectID>, from values: [RelationshipValue]) -> [RelationshipValue] {
        values.map { value in
            switch value {
            case .toOne(let id): return .toOne(id.flatMap { ids.contains($0) ? nil : $0 })
            case .toMany(let targets): return .toMany(targets.filter { !ids.contains($0) })
            }
        }
    }
}
