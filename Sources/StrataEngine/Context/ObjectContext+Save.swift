import StrataCore

extension ObjectContext {
    /// Saves every change to the stores, atomically; in a child context, into its parent.
    ///
    /// In order: delete rules run (cascades transitively, nullifies inverses, and a `deny` rule
    /// with targets stops the save with ``StrataError/Code/deleteDenied``); every inserted and
    /// changed object is validated and *all* failures are reported together in one
    /// ``StrataError/Code/validationFailed`` error; inserted objects get permanent IDs; the
    /// coordinator writes one save request with the version each object was read at.
    ///
    /// If any step fails, the context is exactly as it was before the call and nothing is
    /// written. A conflict (objects changed or deleted where the context saves since it read
    /// them) is resolved by ``mergePolicy``: under ``MergePolicy/error`` (the default) the save
    /// throws ``StrataError/Code/conflict``, listing for each object the properties in conflict
    /// with their in-memory, snapshot and store values; under the other policies the context
    /// resolves every conflict and saves again (see ``MergePolicy``), and the did-save
    /// notification lists what was resolved (``resolvedConflictsKey``).
    ///
    /// A child context (``parent`` set) runs the same delete rules and validation, then pushes
    /// its inserts, updates and deletes into the parent in one step, with no store I/O (the
    /// parent checks them against the state the child read, as a store checks versions); they
    /// reach the stores when the root context saves, which then tells every level the permanent
    /// IDs of the inserted objects. A child adopts the permanent IDs its ancestors' saves made
    /// before it saves, so saving every level in turn inside one perform block works.
    ///
    /// Posts ``willSaveNotification`` before saving and ``didSaveNotification`` after a
    /// successful save (after ``processPendingChanges()``); nothing when there is nothing to save.
    public func save() throws {
        checkConfinement()
        catchUpWithPermanentIDs()
        guard hasChanges else { return }
        // The objects-did-change notification of what changed since the last one comes first.
        // After a run of inserts its inserted objects are those of the change set: their sets
        // are then made once, for both notifications, unless its observers changed the context.
        let beforeObservers = pendingObjects()
        let posted = postPendingChanges(insertedMembers: beforeObservers.inserted)
        let pending = pendingObjects()
        let reused = posted.flatMap { posted in
            ObjectContext.areSameObjects(pending.inserted, beforeObservers.inserted) ? posted : nil
        }
        let willSaveSets = ObjectSets(
            inserted: reused?.objects ?? Set(pending.inserted), updated: Set(pending.updated),
            deleted: Set(pending.deleted))
        post(
            ObjectContext.willSaveNotification,
            ContextChanges(
                inserted: reused?.ids ?? Set(pending.inserted.map(\.objectID)),
                updated: Set(pending.updated.map(\.objectID)), deleted: Set(pending.deleted.map(\.objectID))),
            sets: willSaveSets)
        // While the journal exists, every change must reach it (see ``ManagedObject/set(_:for:)``).
        journal = Journal(changedBefore: changed)
        SaveActivity.requireContext(forChangesIn: self)
        vanished = []
        defer {
            journal = nil
            vanished = []
        }
        var resolved: [ObjectID: SaveConflict] = [:]
        let saved = try saveResolvingConflicts(&resolved)
        deletesNeedLoading = false
        removeVanishedObjects()
        pendingChanges = ContextChanges()
        /// `objects` as a set: `made`, the will-save set of `before`, when they are the same
        /// objects in the same order (the usual case), which costs no hashing.
        func asSet(_ objects: [ManagedObject], reusing made: Set<ManagedObject>, of before: [ManagedObject])
            -> Set<ManagedObject>
        {
            ObjectContext.areSameObjects(objects, before) ? made : Set(objects)
        }
        post(
            ObjectContext.didSaveNotification, saved.changes,
            sets: ObjectSets(
                inserted: asSet(saved.objects.inserted, reusing: willSaveSets.inserted, of: pending.inserted),
                updated: asSet(saved.objects.updated, reusing: willSaveSets.updated, of: pending.updated),
                deleted: asSet(saved.objects.deleted, reusing: willSaveSets.deleted, of: pending.deleted)),
            resolvedConflicts: resolved.values.sorted { $0.objectID < $1.objectID })
        if let liveRegistry {
            liveRegistry.flushRenames(in: self)
            // A merge policy may have given objects the stored state: match them again.
            if !resolved.isEmpty { liveRegistry.apply(saved.changes, in: self) }
        }
    }

    /// The change set's inserted, deleted and updated objects, in its order.
    private func pendingObjects() -> ChangedObjects {
        var pending = ChangedObjects()
        for object in changed.values {
            if object.state.isInserted {
                pending.inserted.append(object)
            } else if object.state.isDeleted {
                pending.deleted.append(object)
            } else if object.isUpdated {
                pending.updated.append(object)
            }
        }
        return pending
    }

    /// Whether `objects` and `others` are the same objects in the same order (no hashing).
    static func areSameObjects(_ objects: [ManagedObject], _ others: [ManagedObject]) -> Bool {
        objects.count == others.count && zip(objects, others).allSatisfy { $0 === $1 }
    }

    /// Saves; under a merge policy other than ``MergePolicy/error``, each conflict puts the
    /// context back to its state before the save, resolves every conflict seen so far against
    /// the latest state where it saves (collected in `resolved`), and saves again. Any other
    /// failure (or a conflict under the error policy) leaves the context as before the call.
    private func saveResolvingConflicts(_ resolved: inout [ObjectID: SaveConflict]) throws -> SavedChanges {
        var rounds = 0
        var exclusive = false
        while true {
            do {
                guard exclusive else { return try saveOnce() }
                // Lost too many rounds in a row: resolve against the latest stored state and save
                // while no other context of this process can save in between.
                // The report describes what is resolved: the latest stored state, against the
                // caller's memory and snapshot.
                return try coordinator.withSavesHeld {
                    for id in Array(resolved.keys) {
                        guard var latest = resolved[id] else { continue }
                        latest.properties = []
                        latest.storedSnapshot = try coordinator.snapshot(for: id)
                        resolved[id] = describeConflict(latest)
                    }
                    resolveConflicts(Array(resolved.values))
                    return try saveOnce()
                }
            } catch let error as StrataError
                where error.code == .conflict && mergePolicy != .error && rounds < Self.maximumMergeRounds
            {
                rounds += 1
                logConflicts(error.conflicts, resolving: true, round: rounds)
                journal?.restore()
                if let before = journal?.changedBefore { changed.restore(before) }
                vanished = []
                // Described against the state before the save: what the caller had in memory
                // and the snapshot it read, whatever earlier rounds resolved.
                for var conflict in error.conflicts {
                    conflict.properties = []
                    resolved[conflict.objectID] = describeConflict(conflict)
                }
                if rounds >= Self.roundsBeforeExclusiveSave && parent == nil {
                    exclusive = true
                    continue
                }
                Self.backOff(afterRound: rounds)
                resolveConflicts(Array(resolved.values))
            } catch var error as StrataError where error.code == .conflict && rounds >= Self.maximumMergeRounds {
                logConflicts(error.conflicts, resolving: false, round: rounds + 1)
                restoreAfterFailedSave()
                error.message += " (still in conflict after \(rounds) rounds of merging under \(mergePolicy))"
                throw error
            } catch {
                if let conflict = error as? StrataError, conflict.code == .conflict {
                    logConflicts(conflict.conflicts, resolving: false, round: rounds + 1)
                }
                restoreAfterFailedSave()
                throw error
            }
        }
    }

    /// Puts the context back to its state before the save.
    private func restoreAfterFailedSave() {
        journal?.restore()
        if let before = journal?.changedBefore { changed.restore(before) }
        vanished = []
        pendingChanges = ContextChanges()
    }

    /// One attempt: delete rules, validation, then the write (or the push into the parent).
    private func saveOnce() throws -> SavedChanges {
        // Taken before anything can change: a later round (after a conflict) checks in full.
        let push = checkedPush
        checkedPush = nil
        let loadedForDeletes = deletesNeedLoading ? try loadForDeletes() : []
        try withExtendedLifetime(loadedForDeletes) { try applyDeleteRules() }
        let live = changed.values.filter {
            !vanished.contains($0.objectID) && !$0.state.isDeleted && ($0.state.isInserted || $0.hasChangedValues)
        }
        // Read before the check asks the stores anything: a save that ends after this moves it on.
        let generation = coordinator.writeGeneration
        let checked = push?.stillHolds(for: changed, generation: generation) ?? false
        // A root context on one store leaves the inserts' collisions with stored objects to a
        // store that rejects them as it writes (``UniqueConstraintEnforcing``; see ``write(_:)``).
        // Across stores, a part already written would stay: the stores are asked first.
        let leftToStore = parent == nil && coordinator.hasOneStore
        // A push the child validated in full (its rules and unique constraints), still exactly
        // what this context holds, passes here too: the same values against the same model, with
        // the same objects deleted. Anything else is validated in full.
        let failures =
            checked
            ? []
            : try validationFailures(of: live, askingStoresAboutInserts: !leftToStore).sorted {
                ($0.objectID, $0.property ?? "") < ($1.objectID, $1.property ?? "")
            }
        if !failures.isEmpty {
            throw StrataError(
                .validationFailed, "\(failures.count) validation failure(s); nothing was saved",
                validationFailures: failures)
        }
        return try parent == nil
            ? write(live, insertCollisionsLeftToStore: leftToStore) : pushToParent(live, checkedAt: generation)
    }

    /// Runs the delete rules of every deleted object until nothing more changes.
    private func applyDeleteRules() throws {
        // Only objects with relationships have rules to run; the rest need neither order nor a
        // visit (objects a cascade reaches join the queue as it runs).
        // A deleted fault still unloaded no longer exists where the context saves (see
        // ``loadForDeletes()``): the save reports it, and there is nothing to follow from it.
        var queue = changed.values.filter {
            !$0.entity.relationships.isEmpty && $0.state.isDeleted && !$0.state.isFault
                && !vanished.contains($0.objectID)
        }
        guard !queue.isEmpty else { return }
        queue.sort { $0.objectID < $1.objectID }
        var denied: [String] = []
        var visited: Set<ObjectID> = []
        while let object = queue.popLast() {
            guard visited.insert(object.objectID).inserted else { continue }
            for (index, relationship) in object.entity.relationships.enumerated() {
                let targets = object.relationshipValues[index].targets.map { self.object(with: $0) }.filter {
                    !$0.state.isDeleted && !$0.state.isInvalid
                }
                switch relationship.deleteRule {
                case .deny where !targets.isEmpty:
                    denied.append(
                        "\(object.objectID).\(relationship.name) still has \(targets.count) target(s) (\(targets.prefix(3).map { $0.objectID.description }.joined(separator: ", ")))"
                    )
                case .cascade:
                    for target in targets {
                        if target.state.isInserted {
                            // Recorded first, so that a save that fails after this point puts the
                            // new object back as it was (inserted and valid), not invalid.
                            journal?.record(target)
                            detach(target)
                            unregister(target)
                            target.state.isInvalid = true
                            continue
                        }
                        target.fulfill()
                        willChange(target)
                        target.state.isDeleted = true
                        queue.append(target)
                    }
                case .nullify:
                    for target in targets { target.unlink(object.objectID, fromInverseOf: relationship) }
                default:
                    break
                }
            }
        }
        if !denied.isEmpty {
            // The first few in full, the rest counted: the message stays short however many
            // objects the delete reaches.
            var message = "a deny rule blocks the delete: " + denied.prefix(5).joined(separator: "; ")
            if denied.count > 5 { message += "; and \(denied.count - 5) more object(s) whose deny rules block it" }
            throw StrataError(.deleteDenied, message, location: ["object": denied[0]])
        }
    }

    /// Obtains permanent IDs, writes, and on success moves every object to its saved state.
    /// `insertCollisionsLeftToStore`: the check before the write did not ask a store that
    /// enforces unique constraints about the values of the objects inserted (it rejects a
    /// collision, which is then reported as the check would have).
    ///
    /// Each object's snapshot is built once, under its permanent ID, and the same snapshot
    /// becomes the object's saved state: no second copy, no lookup of the store's answer beyond
    /// the version.
    private func write(_ live: [ManagedObject], insertCollisionsLeftToStore: Bool) throws -> SavedChanges {
        var inserted: [ManagedObject] = []
        var updated: [ManagedObject] = []
        for object in live {
            if object.state.isInserted { inserted.append(object) } else { updated.append(object) }
        }
        // Listed as the will-save notification listed them, so the did-save one reuses its set.
        let insertedAsListed = inserted
        inserted = Self.inCreationOrder(inserted)
        let newIDs = try permanentIDs(for: inserted)
        // A temporary → permanent map is needed only to rewrite relationship targets and to tell
        // child contexts; a plain insert of unrelated objects goes by position.
        let remapsTargets = live.contains { $0.hasTemporaryTargets }
        var mapping: [ObjectID: ObjectID] = [:]
        if remapsTargets || hasChildren {
            mapping.reserveCapacity(inserted.count)
            for (object, id) in zip(inserted, newIDs) where object.objectID != id { mapping[object.objectID] = id }
        }
        func snapshot(of object: ManagedObject, as id: ObjectID) -> Snapshot {
            Snapshot(
                objectID: id, version: object.version, attributes: object.attributeValues,
                relationships: remapsTargets
                    ? ObjectContext.remap(object.relationshipValues, of: object.entity, with: mapping)
                    : object.relationshipValues)
        }
        let deleted = changed.values.filter {
            $0.state.isDeleted && !$0.state.isInserted && !vanished.contains($0.objectID)
        }
        var request = SaveRequest()
        request.inserts.reserveCapacity(inserted.count)
        for (object, id) in zip(inserted, newIDs) { request.inserts.append(snapshot(of: object, as: id)) }
        request.updates.reserveCapacity(updated.count)
        for object in updated {
            request.updates.append(.init(snapshot(of: object, as: object.objectID), expectedVersion: object.version))
        }
        request.deletes = deleted.map { .init($0.objectID, expectedVersion: $0.version) }
        let origin = transactionOrigin
        request.transactionAuthor = origin.author
        request.contextName = origin.contextName
        let result: SaveResult
        do {
            result = try coordinator.save(request)
        } catch var error as StrataError where error.code == .conflict {
            // The check before the write left the inserts' collisions with stored objects to the
            // stores, which found a conflict first: a collision still comes first, as it did
            // when the check asked the stores before the write (whatever the merge policy).
            if insertCollisionsLeftToStore && leavesCollisionsToStores(inserted) {
                try throwUniqueFailures(of: live)
            }
            error.conflicts = error.conflicts.map(describeConflict)
            throw error
        } catch let error as StrataError where error.code == .uniqueConstraint {
            // A store refused a collision the check before the write left to it: name the
            // objects in collision, as the check would have (the store wrote nothing).
            try throwUniqueFailures(of: live)
            throw error
        }
        // Success: from here on nothing can fail, and nothing will be put back.
        journal?.forgetChangedBefore()
        pushedOrigin = nil
        // When every object of the change set was saved or deleted (the usual case), the set is
        // emptied at once at the end instead of losing its entries one by one.
        let emptiesChangeSet = inserted.count + updated.count + deleted.count == changed.count
        // The new objects join the registry below: make room once, not by repeated growth.
        reserveRegistryCapacity(inserted.count)
        var insertedIDs = Set<ObjectID>(minimumCapacity: inserted.count)
        for (object, written) in zip(inserted, request.inserts) {
            var saved = written
            saved.version = result.versions[saved.objectID] ?? 1
            let old = object.objectID
            if !emptiesChangeSet { changed.removeValue(forKey: old) }
            if saved.objectID != old {
                object.objectID = saved.objectID
                rekey(object, from: old, inChangeSet: false)
            } else {
                registerSaved(object)
            }
            object.apply(saved)
            object.state.isInserted = false
            insertedIDs.insert(saved.objectID)
        }
        var updatedIDs = Set<ObjectID>(minimumCapacity: updated.count)
        for (object, update) in zip(updated, request.updates) {
            var saved = update.snapshot
            saved.version = result.versions[saved.objectID] ?? (update.expectedVersion + 1)
            object.apply(saved)
            if !emptiesChangeSet { changed.removeValue(forKey: object.objectID) }
            updatedIDs.insert(saved.objectID)
        }
        for object in deleted {
            unregister(object, inChangeSet: !emptiesChangeSet)
            object.state.isInvalid = true
        }
        if emptiesChangeSet { changed.removeAll() }
        settleUnchangedObjects()
        propagatePermanentIDs(mapping)
        return SavedChanges(
            changes: ContextChanges(
                inserted: insertedIDs, updated: updatedIDs, deleted: Set(request.deletes.map(\.objectID))),
            objects: ChangedObjects(inserted: insertedAsListed, updated: updated))
    }

    /// `inserted` in the order this process made them: those with a permanent ID already
    /// first, then the temporary ones by their counters. Keys then go out in that order (see
    /// ``permanentIDs(for:)``), so a new object's permanent ID sorts where its temporary one did
    /// among its entity's new objects, and after the saved ones: ties in fetches and live
    /// results, and unordered to-many relationships, keep their order across the save; and the
    /// save request lists inserts by ascending key, the order stores append fastest in.
    ///
    /// Complexity: O(n) when the counters span at most a few times the objects' number (what
    /// one context made; a change set holds them in hash order); a sort, O(n log n), otherwise,
    /// or when temporary IDs of another process share counters with this one's.
    static func inCreationOrder(_ inserted: [ManagedObject]) -> [ManagedObject] {
        guard inserted.count > 1 else { return inserted }
        // Each object's counter (UInt64.max when its ID is permanent), asking whether an ID is
        // temporary once per run of one scope.
        var counters: [UInt64] = []
        counters.reserveCapacity(inserted.count)
        var lastScope: ObjectID.Scope?
        var lastIsTemporary = false
        var low = UInt64.max
        var high = UInt64.min
        for object in inserted {
            let id = object.objectID
            if id.scope != lastScope {
                lastScope = id.scope
                lastIsTemporary = id.isTemporary
            }
            guard lastIsTemporary else {
                counters.append(.max)
                continue
            }
            let counter = id.temporaryCounter
            counters.append(counter)
            low = min(low, counter)
            high = max(high, counter)
        }
        if counters.indices.dropFirst().allSatisfy({ counters[$0 - 1] < counters[$0] }) { return inserted }
        let permanent = inserted.indices.filter { counters[$0] == .max }.map { inserted[$0] }
        let temporary = inserted.count - permanent.count
        if low <= high, high - low < UInt64(temporary) * 4 + 64 {
            var slots = [Int](repeating: -1, count: Int(high - low) + 1)
            var collided = false
            for (index, counter) in counters.enumerated() where counter != .max {
                collided = collided || slots[Int(counter - low)] >= 0
                slots[Int(counter - low)] = index
            }
            if !collided {
                var ordered = permanent
                ordered.reserveCapacity(inserted.count)
                for index in slots where index >= 0 { ordered.append(inserted[index]) }
                return ordered
            }
        }
        // Temporary IDs of another process among this one's: by ID (entity, process, counter).
        return permanent + inserted.filter { $0.objectID.isTemporary }.sorted { $0.objectID < $1.objectID }
    }

    /// The permanent ID of each of `objects`, in order: its own when it has one (given early by
    /// ``obtainPermanentIDs(for:)``), else a new one from its entity's store, which is asked
    /// once per entity.
    ///
    /// Objects are grouped by the scope of their temporary IDs (one per entity in a process),
    /// so grouping costs no hashing of entity names; the scopes of one entity (temporary IDs
    /// parsed from another process's URIs) are then merged, to ask the store once per entity.
    private func permanentIDs(for objects: [ManagedObject]) throws -> [ObjectID] {
        var result = objects.map(\.objectID)
        // The usual save of new objects: all temporary, all of one entity (one scope): one
        // request to the store, no grouping.
        if let first = result.first, first.isTemporary, result.allSatisfy({ $0.scope == first.scope && $0.isTemporary })
        {
            let ids = try coordinator.obtainPermanentIDs(for: first.entityName, count: result.count)
            for (position, id) in zip(result.indices, ids) { result[position] = id }
            return result
        }
        var byScope: [ObjectID.Scope: [Int]] = [:]
        for index in result.indices where result[index].isTemporary {
            byScope[result[index].scope, default: []].append(index)
        }
        var groups: [String: [Int]] = [:]
        var merged: Set<String> = []
        for (scope, positions) in byScope {
            let name = scope.entityName
            if groups[name] != nil { merged.insert(name) }
            groups[name, default: []].append(contentsOf: positions)
        }
        // Keys go out in the objects' order within each entity.
        for name in merged { groups[name]?.sort() }
        for (entityName, positions) in groups {
            let ids = try coordinator.obtainPermanentIDs(for: entityName, count: positions.count)
            for (position, id) in zip(positions, ids) { result[position] = id }
        }
        return result
    }

    /// Whether some of `inserted` have unique constraints that their stores enforce as they
    /// write, so that the check before the write did not ask the stores about their values.
    private func leavesCollisionsToStores(_ inserted: [ManagedObject]) -> Bool {
        var lastEntity: Entity?
        for object in inserted where !object.entity.uniqueConstraints.isEmpty {
            if let lastEntity, lastEntity.isSameDeclaration(as: object.entity) { continue }
            lastEntity = object.entity
            if coordinator.enforcesUniqueConstraints(of: object.entity.name) { return true }
        }
        return false
    }

    /// Throws ``StrataError/Code/validationFailed`` with the unique-constraint failures of
    /// `objects`, the stores asked about every value, when there are any.
    private func throwUniqueFailures(of objects: [ManagedObject]) throws {
        let failures = try uniqueFailuresAfterRejectedSave(of: objects)
        guard !failures.isEmpty else { return }
        throw StrataError(
            .validationFailed, "\(failures.count) validation failure(s); nothing was saved",
            validationFailures: failures)
    }

    /// Whether child contexts may need to hear of new permanent IDs.
    private var hasChildren: Bool { children.withLock { list in list.contains { $0.context != nil } } }

    /// Forgets objects that were touched but end up with no change.
    func settleUnchangedObjects() {
        for object in changed.values
        where !object.hasChangedValues && !object.state.isInserted && !object.state.isDeleted {
            changed.removeValue(forKey: object.objectID)
            object.state.isDirty = false
        }
    }

    /// Adds the per-property detail to a store's conflict: memory, snapshot and store values.
    func describeConflict(_ conflict: SaveConflict) -> SaveConflict {
        guard let object = registeredObject(for: conflict.objectID), let original = object.original else {
            return conflict
        }
        var detailed = conflict
        let stored = conflict.storedSnapshot
        for (index, attribute) in object.entity.attributes.enumerated() {
            let memory = object.attributeValues[index]
            let snapshot = original.attributes[index]
            let store = stored?.attributes[index]
            if store != snapshot || memory != snapshot {
                detailed.properties.append(
                    PropertyConflict(
                        property: attribute.name, memoryValue: memory.description, snapshotValue: snapshot.description,
                        storeValue: store?.description ?? "(deleted)"))
            }
        }
        for (index, relationship) in object.entity.relationships.enumerated() {
            let memory = object.relationshipValues[index]
            let snapshot = original.relationships[index]
            let store = stored?.relationships[index]
            if store != snapshot || memory != snapshot {
                func show(_ v: RelationshipValue?) -> String {
                    v.map { "[" + $0.targets.map(\.description).joined(separator: ", ") + "]" } ?? "(deleted)"
                }
                detailed.properties.append(
                    PropertyConflict(
                        property: relationship.name, memoryValue: show(memory), snapshotValue: show(snapshot),
                        storeValue: show(store)))
            }
        }
        return detailed
    }

    /// Obtains permanent IDs for inserted objects now, before saving (so their IDs can be passed
    /// to other contexts). The objects stay inserted.
    public func obtainPermanentIDs(for objects: [ManagedObject]) throws {
        checkConfinement()
        let temporary = objects.filter { $0.objectID.isTemporary }
        var mapping: [ObjectID: ObjectID] = [:]
        for (object, id) in zip(temporary, try permanentIDs(for: temporary)) { mapping[object.objectID] = id }
        guard !mapping.isEmpty else { return }
        for object in temporary {
            let old = object.objectID
            object.objectID = mapping[old]!
            rekey(object, from: old)
        }
        for object in registeredObjects where !object.state.isFault && object.hasTemporaryTargets {
            object.relationshipValues = ObjectContext.remap(object.relationshipValues, of: object.entity, with: mapping)
        }
        propagatePermanentIDs(mapping)
        liveRegistry?.flushRenames(in: self)
    }
}
