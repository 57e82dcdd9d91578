import StrataCore

/// A weak reference to a child context.
struct WeakContext: Sendable {
    weak var context: ObjectContext?
}

extension ObjectContext {
    // MARK: Reading through the parent

    /// The current state of `id` where this context reads from: the stores (through the row
    /// cache) for a root context, the parent's current state (unsaved changes included) for a
    /// child. `nil` when it does not exist there.
    func sourceSnapshot(for id: ObjectID) throws -> Snapshot? {
        guard let parent else { return id.isTemporary ? nil : try coordinator.snapshot(for: id, lastRoute: &lastRoute) }
        return try parent.performAndWait { try parent.snapshotForChild(id) }
    }

    /// ``sourceSnapshot(for:)`` of each of `ids`, for those that exist: a root context reads
    /// those the row cache lacks with one store request per entity, not one per object; a child
    /// asks its parent once for them all.
    func sourceSnapshots(for ids: [ObjectID]) throws -> [ObjectID: Snapshot] {
        guard let parent else { return try coordinator.snapshots(for: ids) }
        return try parent.performAndWait { try parent.snapshotsForChild(ids) }
    }

    /// The snapshots matching `request` where this context reads from: the stores for a root
    /// context, the parent's answer including its pending changes for a child.
    func sourceFetch(_ request: FetchRequest) throws -> [Snapshot] {
        var fromStores = true
        return try sourceFetch(request, fromStores: &fromStores)
    }

    /// ``sourceFetch(_:)``, setting `fromStores` to `false` when an ancestor's pending changes
    /// are in the answer (it is then not the stores' answer).
    func sourceFetch(_ request: FetchRequest, fromStores: inout Bool) throws -> [Snapshot] {
        guard let parent else { return try coordinator.fetch(request).snapshots() }
        return try parent.performAndWait { try parent.resolveForChild(request, fromStores: &fromStores) }
    }

    /// This context's current state of each of `ids` that exists here, for a child: those not
    /// loaded here read from this context's source at once.
    private func snapshotsForChild(_ ids: [ObjectID]) throws -> [ObjectID: Snapshot] {
        checkConfinement()
        var found: [ObjectID: Snapshot] = [:]
        var unloaded: [ObjectID] = []
        for id in ids {
            if let object = registeredObject(for: id) {
                if object.state.isDeleted || object.state.isInvalid { continue }
                if !object.state.isFault {
                    found[id] = object.currentSnapshot()
                    continue
                }
            }
            unloaded.append(id)
        }
        if !unloaded.isEmpty {
            for (id, snapshot) in try sourceSnapshots(for: unloaded) { found[id] = snapshot }
        }
        return found
    }

    /// This context's current state of `id`, for a child.
    private func snapshotForChild(_ id: ObjectID) throws -> Snapshot? {
        checkConfinement()
        if let object = registeredObject(for: id) {
            if object.state.isDeleted || object.state.isInvalid { return nil }
            if !object.state.isFault { return object.currentSnapshot() }
        }
        return try sourceSnapshot(for: id)
    }

    // MARK: Saving into the parent

    /// A child's save: hands the changes to the parent in one step, then marks them saved here.
    /// `generation` is the coordinator's write generation at which this save's validation (its
    /// unique check included) began.
    func pushToParent(_ live: [ManagedObject], checkedAt generation: UInt64) throws -> SavedChanges {
        guard let parent else { preconditionFailure("\(debugName) has no parent") }
        let inserted = live.filter { $0.state.isInserted }
        let updated = live.filter { !$0.state.isInserted }
        let deleted = changed.values.filter { $0.state.isDeleted && !$0.state.isInserted }
        let inserts = inserted.map { $0.currentSnapshot() }
        let updates = updated.map { $0.currentSnapshot() }
        let deletes = deleted.map(\.objectID)
        var readStates: [ObjectID: Snapshot] = [:]
        for object in updated + deleted { readStates[object.objectID] = object.original }
        let saved = ContextChanges(
            inserted: Set(inserts.map(\.objectID)), updated: Set(updates.map(\.objectID)), deleted: Set(deletes))
        let origin = transactionOrigin
        do {
            try parent.performAndWait {
                try parent.absorb(
                    inserts: inserts, updates: updates, deletes: deletes, readStates: readStates, checkedAt: generation)
                parent.pushedOrigin = origin
                parent.announceToChildren(saved, states: [inserts, updates], from: self)
            }
        } catch var error as StrataError where error.code == .conflict {
            error.conflicts = error.conflicts.map(describeConflict)
            throw error
        }
        // Success: from here on nothing can fail, and nothing will be put back.
        journal?.forgetChangedBefore()
        pushedOrigin = nil
        // When every member of the change set was pushed (the usual case), the set is emptied
        // at once at the end instead of losing its members one by one.
        let emptiesChangeSet = live.count + deleted.count == changed.count
        // The new objects join the registry below: make room once, not by repeated growth.
        reserveRegistryCapacity(inserted.count)
        // Each object's saved state is the snapshot it pushed (no second copy of it).
        for (object, snapshot) in zip(inserted, inserts) {
            object.apply(snapshot)
            registerSaved(object)
            object.state.isInserted = false
            if !emptiesChangeSet { changed.removeValue(forKey: object.objectID) }
        }
        for (object, snapshot) in zip(updated, updates) {
            object.apply(snapshot)
            if !emptiesChangeSet { changed.removeValue(forKey: object.objectID) }
        }
        for object in deleted {
            unregister(object, inChangeSet: !emptiesChangeSet)
            object.state.isInvalid = true
        }
        if emptiesChangeSet { changed.removeAll() }
        settleUnchangedObjects()
        return SavedChanges(changes: saved, objects: ChangedObjects(inserted: inserted, updated: updated))
    }

    /// Has every child that ``automaticallyMergesChangesFromParent`` merge a save that `source`
    /// pushed into this context, on the child's queue. `states` are the pushed objects' states
    /// (the inserts' and the updates'), this context's current ones: handed along, they spare
    /// each child's live queries a read from this context, which would wait for this context's
    /// queue (behind its save to the store). Indexed only when some child merges and has live
    /// queries that read them: a merge into a child without any (the usual view context of an
    /// import) takes no states, and a query made before that merge runs reads what it needs.
    private func announceToChildren(_ changes: ContextChanges, states: [[Snapshot]], from source: ObjectContext) {
        let siblings = children.withLock { list in list.compactMap(\.context) }.filter {
            $0 !== source && $0.automaticallyMergesChangesFromParent
        }
        guard !siblings.isEmpty else { return }
        let plans = siblings.map { sibling in sibling.liveMergePlan.withLock { $0 } }
        var byID: [ObjectID: Snapshot] = [:]
        if plans.contains(where: { !$0.queries.isEmpty }) {
            byID.reserveCapacity(states.reduce(0) { $0 + $1.count })
            for part in states { for state in part { byID[state.objectID] = state } }
        }
        let pushed = byID
        for (sibling, plan) in zip(siblings, plans) {
            // The sibling's live queries' share of the merge that needs only the pushed states,
            // done here rather than on the sibling's queue (the main queue, for a view context).
            let prepared =
                plan.queries.isEmpty || changes.inserted.isEmpty
                ? nil : PreparedLiveMerge(plan: plan, inserted: changes.inserted, states: pushed, model: sibling.model)
            sibling.permanentIDsInTransit.withLock { $0.beginMerge() }
            sibling.perform { sibling.mergeParentPush(changes, states: pushed, prepared: prepared) }
        }
    }

    /// Takes a child's saved changes as this context's own unsaved changes. All or nothing:
    /// every updated or deleted object is found and checked before anything changes.
    ///
    /// The parent plays the store for its child: `readStates` holds, for each object the child
    /// updated or deleted, the state the child read from this context. An object whose current
    /// state here differs from it (this context, or a sibling's save, changed it meanwhile) or
    /// that no longer exists here (deleted here, or gone from the store) is in conflict.
    ///
    /// When this context had nothing pending, it keeps the push as a ``CheckedPush``: the child
    /// checked the unique constraints of these changes at write generation `generation`, and
    /// this context's next save need not check them again while nothing changed since.
    ///
    /// - Throws: ``StrataError/Code/conflict`` listing every object in conflict with this
    ///   context's current state as the stored snapshot (`nil` when deleted); nothing changes.
    private func absorb(
        inserts: [Snapshot], updates: [Snapshot], deletes: [ObjectID], readStates: [ObjectID: Snapshot],
        checkedAt generation: UInt64
    ) throws {
        checkConfinement()
        let hadNothingPending = changed.isEmpty
        checkedPush = nil
        var targets: [ObjectID: ManagedObject] = [:]
        var conflicts: [SaveConflict] = []
        var loads: [Snapshot] = []
        let ids = updates.map(\.objectID) + deletes
        // The objects not loaded here are read from the source at once (a child that deletes
        // objects it never read hands over their IDs alone).
        // Objects deleted here, loaded or not (a delete leaves a fault unloaded), are conflicts.
        let sources = try sourceSnapshots(
            for: ids.filter { id in
                registeredObject(for: id).map { $0.state.isFault && !$0.state.isDeleted && !$0.state.isInvalid } ?? true
            })
        for id in ids {
            let read = readStates[id]
            if let object = registeredObject(for: id), object.state.isDeleted || object.state.isInvalid {
                conflicts.append(SaveConflict(objectID: id, expectedVersion: read?.version ?? 0, storedSnapshot: nil))
                continue
            }
            if let object = registeredObject(for: id), !object.state.isFault {
                let current = object.currentSnapshot()
                if let read, read.attributes != current.attributes || read.relationships != current.relationships {
                    conflicts.append(SaveConflict(objectID: id, expectedVersion: read.version, storedSnapshot: current))
                    continue
                }
                targets[id] = object
                continue
            }
            guard let snapshot = sources[id] else {
                conflicts.append(SaveConflict(objectID: id, expectedVersion: read?.version ?? 0, storedSnapshot: nil))
                continue
            }
            if let read, read.attributes != snapshot.attributes || read.relationships != snapshot.relationships {
                conflicts.append(SaveConflict(objectID: id, expectedVersion: read.version, storedSnapshot: snapshot))
                continue
            }
            loads.append(snapshot)
        }
        if !conflicts.isEmpty {
            throw StrataError(
                .conflict,
                "\(conflicts.count) object(s) changed in \(debugName) since its child read them; nothing was saved",
                conflicts: conflicts)
        }
        // Pushes are runs of one entity: its entity is looked up once per scope of IDs, not by
        // name for every object.
        var lastEntity: (scope: ObjectID.Scope, entity: Entity)?
        func entity(of id: ObjectID) throws -> Entity {
            if let lastEntity, lastEntity.scope == id.scope { return lastEntity.entity }
            let entity = try model.requireEntity(id.entityName)
            lastEntity = (id.scope, entity)
            return entity
        }
        for snapshot in loads {
            let object: ManagedObject
            if let registered = registeredObject(for: snapshot.objectID) {
                object = registered
            } else {
                object = makeObject(entity: try entity(of: snapshot.objectID), id: snapshot.objectID)
                register(object)
            }
            object.apply(snapshot)
            targets[snapshot.objectID] = object
        }
        // The pushed inserts join the change set and the next notification's inserted IDs: make
        // room once.
        changed.reserveCapacity(forAdding: inserts.count)
        pendingChanges.inserted.reserveCapacity(pendingChanges.inserted.count + inserts.count)
        for snapshot in inserts {
            let object: ManagedObject
            if let existing = registeredObject(for: snapshot.objectID) {
                object = existing
            } else {
                // As for an object inserted here, the change set holds it until its save (which
                // registers it), and lookups by ID look there too.
                object = makeObject(entity: try entity(of: snapshot.objectID), id: snapshot.objectID)
                object.state.isInserted = true
                noteInserted(object.objectID)
            }
            willChange(object)
            object.attributeValues = snapshot.attributes
            object.relationshipValues = snapshot.relationships
            object.state.isDirty = true
        }
        for snapshot in updates {
            guard let object = targets[snapshot.objectID] else { continue }
            willChange(
                object,
                slots: ChangeSet.slots(
                    changingAttributes: object.attributeValues, object.relationshipValues, to: snapshot.attributes,
                    snapshot.relationships))
            object.attributeValues = snapshot.attributes
            object.relationshipValues = snapshot.relationships
            object.state.isDirty = true
        }
        if !deletes.isEmpty { deletesNeedLoading = true }
        for id in deletes {
            guard let object = targets[id] else { continue }
            if object.state.isInserted {
                unregister(object)
                object.state.isInvalid = true
            } else {
                willChange(object, slots: 0)
                object.state.isDeleted = true
            }
            noteDeleted(id)
        }
        if hadNothingPending {
            checkedPush = CheckedPush(
                generation: generation, inserts: inserts, updates: updates, deletes: deletes,
                memberCount: changed.count)
        }
    }

    // MARK: Permanent IDs

    /// Tells every child (and, through them, every level below) the permanent IDs a save gave
    /// to temporary ones. Each child holds the mapping until it adopts it: on its own queue, in
    /// order with the work already enqueued there, or sooner, when it saves or fetches first
    /// (``catchUpWithPermanentIDs()``).
    func propagatePermanentIDs(_ mapping: [ObjectID: ObjectID]) {
        guard !mapping.isEmpty else { return }
        let live = children.withLock { list in
            list.removeAll { $0.context == nil }
            return list.compactMap(\.context)
        }
        for child in live {
            child.permanentIDsInTransit.withLock { $0.append(mapping) }
            child.perform { child.adoptPermanentIDsInTransitOnQueue() }
        }
    }

    /// Merges a save a sibling pushed into the parent (see ``announceToChildren(_:states:from:)``),
    /// naming its objects by the permanent IDs this context knows by now: the parent may have
    /// saved, and this context adopted the new IDs, between the push and this merge.
    ///
    /// `states` are the pushed objects' states in the parent at the push, which the merge takes
    /// instead of reading them from the parent (see ``announceToChildren(_:states:from:)``), and
    /// `prepared` the live queries' decisions made from them there.
    private func mergeParentPush(
        _ changes: ContextChanges, states: [ObjectID: Snapshot], prepared: PreparedLiveMerge?
    ) {
        defer { permanentIDsInTransit.withLock { $0.endMerge() } }
        catchUpWithPermanentIDs()
        // One look under the lock; most merges run before the parent saves, with nothing to rename.
        let transit = permanentIDsInTransit.withLock { $0 }
        guard !transit.isEmpty else {
            try? mergeChanges(fromContextDidSave: changes, parentStates: states, prepared: prepared)
            return
        }
        // Objects named by the IDs the preparation read are renamed: it no longer answers.
        if prepared != nil { liveRegistry?.notePreparationRenamed() }
        let newID = { (id: ObjectID) in id.isTemporary ? transit.permanentID(for: id) : nil }
        try? mergeChanges(fromContextDidSave: changes.renaming(newID), parentStates: Self.renaming(states, newID))
    }

    /// `states` under the permanent IDs `newID` gives their objects. A state that names another
    /// object by a temporary ID `newID` renames is left out (it is read from the parent again).
    private static func renaming(_ states: [ObjectID: Snapshot], _ newID: (ObjectID) -> ObjectID?) -> [ObjectID:
        Snapshot]
    {
        var renamed: [ObjectID: Snapshot] = [:]
        renamed.reserveCapacity(states.count)
        for var state in states.values {
            let namesRenamed = state.relationships.contains { value in
                value.targets.contains { newID($0) != nil }
            }
            guard !namesRenamed else { continue }
            if let new = newID(state.objectID) { state.objectID = new }
            renamed[state.objectID] = state
        }
        return renamed
    }

    /// The permanent ID the parent gave the temporary `id` lately (handed down or adopted
    /// here), if any: for IDs that a merge or a read named just before they became permanent.
    func permanentID(for id: ObjectID) -> ObjectID? {
        guard id.isTemporary else { return nil }
        return permanentIDsInTransit.withLock { $0.permanentID(for: id) }
    }

    /// Adopts the mappings in transit from a block on this context's queue, unless a thread
    /// adopted the context (uses it outside perform blocks): this block would then run beside
    /// that thread's work, so the mappings wait for the context's next save or fetch on it
    /// (``catchUpWithPermanentIDs()``).
    private func adoptPermanentIDsInTransitOnQueue() {
        let me = ThreadIdentity.current
        let adoptedByAnotherThread = confinement.withLock { state in
            state.adoptedThread.map { $0 != me } ?? false
        }
        guard !adoptedByAnotherThread else { return }
        adoptPermanentIDsInTransit()
    }

    /// Adopts every permanent ID the parent handed down and this context has not adopted yet,
    /// after having each ancestor do the same: a child that saves or fetches in the same
    /// perform block as the root's save (an import that saves every level after each
    /// chunk) then names the saved objects by their permanent IDs, as its parent does, instead
    /// of by temporary IDs its parent no longer knows. A few lock acquisitions when nothing is
    /// in transit.
    func catchUpWithPermanentIDs() {
        guard let parent else { return }
        if parent.hasPermanentIDsInTransit { parent.performAndWait { parent.catchUpWithPermanentIDs() } }
        adoptPermanentIDsInTransit()
    }

    /// Whether this context or one of its ancestors has permanent IDs still to adopt.
    ///
    /// A context hands a mapping down to its children before it drops the mapping from its own
    /// list, so the levels are read from the top down: a level found with nothing in transit
    /// has already handed everything to the next one, which is read after it.
    private var hasPermanentIDsInTransit: Bool {
        if let parent, parent.hasPermanentIDsInTransit { return true }
        return permanentIDsInTransit.withLock { !$0.mappings.isEmpty }
    }

    /// Adopts the mappings in transit to this context, in the order they were made. They stay
    /// in the list until they are adopted and handed to the children (see
    /// ``hasPermanentIDsInTransit``). An adoption that runs inside another (or after it, from a
    /// perform block queued before the first finished) finds the mappings already gone or adopts
    /// them again, which changes nothing; either way it removes only the mappings it adopted.
    private func adoptPermanentIDsInTransit() {
        let pending = permanentIDsInTransit.withLock { $0 }
        guard let last = pending.lastSerial else { return }
        for mapping in pending.mappings { adoptPermanentIDs(mapping) }
        permanentIDsInTransit.withLock { transit in
            for mapping in pending.mappings { transit.noteAdopted(mapping) }
            transit.removeMappings(through: last)
        }
    }

    /// Re-keys this context's objects from temporary to permanent IDs, everywhere they appear.
    private func adoptPermanentIDs(_ mapping: [ObjectID: ObjectID]) {
        checkConfinement()
        let objects = Set(registeredObjects + Array(changed.values))
        for object in objects {
            if let permanent = mapping[object.objectID] {
                let old = object.objectID
                object.objectID = permanent
                if object.original != nil { object.original?.objectID = permanent }
                rekey(object, from: old)
            }
            guard !object.state.isFault else { continue }
            object.relationshipValues = ObjectContext.remap(object.relationshipValues, of: object.entity, with: mapping)
            if let original = object.original {
                object.original?.relationships = ObjectContext.remap(
                    original.relationships, of: object.entity, with: mapping)
            }
        }
        for (old, new) in mapping {
            if pendingChanges.updated.remove(old) != nil { pendingChanges.updated.insert(new) }
            if pendingChanges.deleted.remove(old) != nil { pendingChanges.deleted.insert(new) }
        }
        propagatePermanentIDs(mapping)
        if let liveRegistry {
            // Live results name objects this context never registered, by their parent's IDs.
            for (old, new) in mapping { liveRegistry.noteRename(from: old, to: new) }
            liveRegistry.flushRenames(in: self)
        }
    }

    /// `values` with every mapped target replaced (unordered to-many kept sorted).
    static func remap(_ values: [RelationshipValue], of entity: Entity, with mapping: [ObjectID: ObjectID])
        -> [RelationshipValue]
    {
        values.enumerated().map { index, value in
            guard value.targets.contains(where: { mapping[$0] != nil }) else { return value }
            let ids = value.targets.map { mapping[$0] ?? $0 }
            let relationship = entity.relationships[index]
            return relationship.isToMany ? .toMany(relationship.isOrdered ? ids : ids.sorted()) : .toOne(ids.first)
        }
    }
}
