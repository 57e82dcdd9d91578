import StrataCore

extension ObjectContext {
    /// Throws away every unsaved change: inserted objects disappear, deleted ones come back, and
    /// changed ones return to their last saved state.
    public func rollback() {
        checkConfinement()
        noteChangeForChildren()
        pushedOrigin = nil
        for object in changed.values {
            if object.state.isInserted {
                registryRemove(object)
                object.state.isInvalid = true
            } else if let original = object.original {
                object.apply(original)
                object.state.isDeleted = false
            } else {
                // A fault deleted without being loaded: it has nothing to put back.
                object.state.isDeleted = false
            }
        }
        changed.removeAll()
        pendingChanges = ContextChanges()
        liveRegistry?.refetchAll(in: self)
    }

    /// Forgets every object: the context is as new. Objects you still hold become invalid
    /// (changing one throws; reading one stops the program).
    public func reset() {
        checkConfinement()
        noteChangeForChildren()
        for object in registeredObjects + Array(changed.values) {
            object.state.isInvalid = true
            object.context = nil
        }
        changed.removeAll()
        pendingChanges = ContextChanges()
        pushedOrigin = nil
        resetRegistry()
        liveRegistry?.refetchAll(in: self)
    }

    /// Refreshes `object` from its store (from its parent's current state, in a child context).
    ///
    /// - `mergeChanges: false` throws away the object's unsaved changes and turns it into a fault:
    ///   its next access reads the store's current state.
    /// - `mergeChanges: true` reads the store's current state and keeps the object's own unsaved
    ///   edits on top of it, property by property.
    ///
    /// An inserted object is left as it is; an object deleted from the store becomes invalid
    /// when not merging, and keeps its values when merging.
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) throws {
        try refresh(object, mergeChanges: mergeChanges, storeTrumps: false)
    }

    /// ``refresh(_:mergeChanges:)``; with `storeTrumps`, a merge keeps only the edits to
    /// properties the current state still has as the object read them (where both changed a
    /// property, the current state's value wins).
    func refresh(_ object: ManagedObject, mergeChanges: Bool, storeTrumps: Bool) throws {
        checkConfinement()
        guard !object.state.isInserted, parent != nil || !object.objectID.isTemporary else { return }
        coordinator.rowCache.remove([object.objectID])
        if !mergeChanges {
            changed.removeValue(forKey: object.objectID)
            object.state.isDeleted = false
            guard try sourceSnapshot(for: object.objectID) != nil else {
                object.state.isInvalid = true
                return
            }
            object.turnIntoFault()
            return
        }
        guard let latest = try sourceSnapshot(for: object.objectID) else { return }
        object.fulfill()
        let base = object.original
        var merged = latest
        for index in object.attributeValues.indices
        where base.map({
            $0.attributes[index] != object.attributeValues[index]
                && (!storeTrumps || $0.attributes[index] == latest.attributes[index])
        }) ?? false {
            merged.attributes[index] = object.attributeValues[index]
        }
        for index in object.relationshipValues.indices
        where base.map({
            $0.relationships[index] != object.relationshipValues[index]
                && (!storeTrumps || $0.relationships[index] == latest.relationships[index])
        }) ?? false {
            merged.relationships[index] = object.relationshipValues[index]
        }
        let wasDeleted = object.state.isDeleted
        object.apply(latest)
        object.attributeValues = merged.attributes
        object.relationshipValues = merged.relationships
        object.state.isDeleted = wasDeleted
        object.state.isDirty = merged != latest || wasDeleted
        if object.state.isDirty {
            changed[object.objectID] = object
        } else {
            changed.removeValue(forKey: object.objectID)
        }
    }
}
