import StrataCore

extension ObjectContext {
    /// Whether this context merges, by itself and on its own queue, the saves other processes
    /// (or other containers on the same stores) make, as its container finds them
    /// (``PersistentContainer/remoteChangeNotification``): see ``mergeRemoteChanges(_:)``.
    /// `false` by default. The container honours it on its ``PersistentContainer/viewContext``,
    /// which then merges after the root context of a three-tier stack has.
    public var automaticallyMergesRemoteChanges: Bool {
        get { mergesRemoteChanges.load(ordering: .relaxed) }
        set { mergesRemoteChanges.store(newValue, ordering: .relaxed) }
    }

    /// Brings this context up to date with saves made elsewhere (a ``RemoteChange``), as a merge
    /// of a did-save notification does (``mergeChanges(fromContextDidSave:)``), under the
    /// context's ``mergePolicy``:
    ///
    /// - Updated objects registered here and loaded take the new state. Their unsaved edits are
    ///   kept on top of it, except where the policy says otherwise: under
    ///   ``MergePolicy/mergeByPropertyStoreTrump`` an edit to a property the other save changed
    ///   too gives way to it; under ``MergePolicy/rollback`` the object drops its unsaved edits
    ///   and becomes a fault of the new state.
    /// - Deleted objects registered here leave the context and become invalid.
    /// - Inserted objects need nothing: they fault in on demand (one this context read already,
    ///   between the save and the merge, is refreshed as an updated one).
    /// - A change with ``RemoteChange/isHistoryExpired`` says nothing of what changed: every
    ///   loaded object is refreshed as above, and one that no longer exists leaves the context.
    ///
    /// Posts ``objectsDidChangeNotification`` with the inserted IDs, the refreshed (`updated`)
    /// and the removed (`deleted`) ones, when there are any.
    ///
    /// - Throws: a ``StrataError`` when a store fails to read an updated object; objects
    ///   refreshed before it stay refreshed.
    public func mergeRemoteChanges(_ change: RemoteChange) throws {
        checkConfinement()
        if change.isHistoryExpired { return try refreshAllObjects() }
        let changes = change.changes
        coordinator.rowCache.remove(changes.inserted.union(changes.updated).union(changes.deleted))
        var merged = ContextChanges()
        for id in changes.deleted.sorted() {
            guard let object = registeredObject(for: id) else { continue }
            remove(object)
            merged.deleted.insert(id)
        }
        // An object inserted and then changed elsewhere may have been read here in between (a
        // fetch sees it before the watcher does): it is refreshed as an updated one.
        for id in changes.inserted.union(changes.updated).sorted() {
            guard let object = registeredObject(for: id), !object.state.isFault, !object.state.isInvalid else {
                if changes.inserted.contains(id) { merged.inserted.insert(id) }
                continue
            }
            try refreshUnderMergePolicy(object)
            merged.updated.insert(id)
        }
        logMerge(of: changes, merged: merged)
        liveRegistry?.apply(changes, in: self)
        if !merged.isEmpty { post(ObjectContext.objectsDidChangeNotification, merged) }
    }

    /// Refreshes every loaded object registered here, for a remote change that cannot say what
    /// changed (the history was pruned past what the container had read): each one that still
    /// exists takes the current state under the merge policy; the others leave the context.
    private func refreshAllObjects() throws {
        var merged = ContextChanges()
        let objects = registeredObjects.filter { !$0.state.isInserted && !$0.state.isFault && !$0.state.isInvalid }
        for object in objects.sorted(by: { $0.objectID < $1.objectID }) {
            guard try sourceSnapshot(for: object.objectID) != nil else {
                merged.deleted.insert(object.objectID)
                remove(object)
                continue
            }
            try refreshUnderMergePolicy(object)
            merged.updated.insert(object.objectID)
        }
        liveRegistry?.refetchAll(in: self)
        if !merged.isEmpty { post(ObjectContext.objectsDidChangeNotification, merged) }
    }

    /// Takes a deleted object out of the context, as a merged did-save does.
    private func remove(_ object: ManagedObject) {
        unregister(object)
        object.state.isInvalid = true
        object.state.isDeleted = false
        object.context = nil
    }

    /// Refreshes `object` from where this context reads, keeping its unsaved edits as the merge
    /// policy says (see ``mergeRemoteChanges(_:)``).
    private func refreshUnderMergePolicy(_ object: ManagedObject) throws {
        switch mergePolicy {
        case .rollback: try refresh(object, mergeChanges: false, storeTrumps: false)
        case .mergeByPropertyStoreTrump: try refresh(object, mergeChanges: true, storeTrumps: true)
        case .error, .mergeByPropertyObjectTrump, .overwrite:
            try refresh(object, mergeChanges: true, storeTrumps: false)
        }
    }
}
