import Foundation
import StrataCore

extension ObjectContext {
    /// How this context resolves conflicts when it saves (``MergePolicy/error`` by default).
    /// Applies to saves into the stores and, for a child context, into its parent.
    public var mergePolicy: MergePolicy {
        get { mergePolicyStorage.withLock { $0 } }
        set { mergePolicyStorage.withLock { $0 = newValue } }
    }

    /// The save gives up after this many rounds of resolving and saving again (each round means
    /// another context changed one of the objects in between) and throws the last conflict.
    static let maximumMergeRounds = 1_000

    /// After this many rounds in a row lost to other savers, a context attached to the
    /// coordinator resolves and saves while holding the coordinator's saves
    /// (``StoreCoordinator/withSavesHeld(_:)``): otherwise a context whose round of resolving
    /// takes as long as another's save can lose every round to it, in lockstep. Only another
    /// process can then still change the objects in between.
    static let roundsBeforeExclusiveSave = 4

    /// A child context (whose conflicts come from its parent) after a few rounds in a row lost
    /// to its siblings, waits a random while before the next
    /// (up to 0.1 ms per round so far, at most 10 ms), so that contexts racing on the same
    /// objects stop colliding in lockstep: without it, a context whose round of resolving takes
    /// longer than the others' saves can lose every round.
    static func backOff(afterRound round: Int) {
        guard round >= 4 else { return }
        let limit = min(0.010, 0.000_1 * Double(round))
        Thread.sleep(forTimeInterval: Double.random(in: 0...limit))
    }

    /// Resolves every conflict in `conflicts` on the context's state as it was before the save
    /// (the journal restored it), by ``mergePolicy``. Each conflict carries the latest known
    /// state of its object where the context saves (`nil`: deleted there).
    ///
    /// Objects deleted where the context saves go to ``vanished``: they are unlinked from the
    /// loaded objects of this context and left out of the save, then leave the context when the
    /// save succeeds.
    func resolveConflicts(_ conflicts: [SaveConflict]) {
        let policy = mergePolicy
        for conflict in conflicts.sorted(by: { $0.objectID < $1.objectID }) {
            guard let object = changed[conflict.objectID] ?? registeredObject(for: conflict.objectID) else { continue }
            if object.state.isFault {
                // A fault deleted without being loaded: gone where the context saves, its delete
                // is done; else it is resolved against the stored state, as a loaded one.
                guard object.state.isDeleted else { continue }
                journal?.record(object)
                guard let stored = conflict.storedSnapshot else {
                    changed[object.objectID] = object
                    vanished.insert(object.objectID)
                    continue
                }
                object.apply(stored)
            }
            guard let stored = conflict.storedSnapshot else {
                vanish(object)
                continue
            }
            journal?.record(object)
            changed[object.objectID] = object
            let memory = object.currentSnapshot()
            let base = object.original ?? stored
            if object.state.isDeleted {
                if policy == .rollback {
                    object.apply(stored)
                    object.state.isDeleted = false
                } else {
                    // The delete stands, against the stored state (whose relationships the
                    // delete rules then follow).
                    let merged = merge(
                        memory: memory, base: base, stored: stored, by: .mergeByPropertyObjectTrump,
                        entity: object.entity)
                    object.apply(stored)
                    object.relationshipValues = merged.relationships
                    object.state.isDeleted = true
                    object.state.isDirty = true
                }
                continue
            }
            let merged = merge(memory: memory, base: base, stored: stored, by: policy, entity: object.entity)
            object.apply(stored)
            object.attributeValues = merged.attributes
            object.relationshipValues = merged.relationships
            object.state.isDirty =
                merged.attributes != stored.attributes || merged.relationships != stored.relationships
            repairInverses(of: object, from: memory.relationships)
        }
    }

    /// The resolved values of one object updated both in memory and in the store.
    private func merge(memory: Snapshot, base: Snapshot, stored: Snapshot, by policy: MergePolicy, entity: Entity)
        -> Snapshot
    {
        func pick<T: Equatable>(_ m: T, _ s: T, _ t: T) -> T {
            switch policy {
            case .error, .overwrite: return m
            case .rollback: return t
            case .mergeByPropertyStoreTrump: return t != s ? t : m
            case .mergeByPropertyObjectTrump: return m != s ? m : t
            }
        }
        var result = stored
        for index in entity.attributes.indices {
            result.attributes[index] = pick(memory.attributes[index], base.attributes[index], stored.attributes[index])
        }
        for (index, relationship) in entity.relationships.enumerated() {
            let m = memory.relationships[index]
            let s = base.relationships[index]
            let t = stored.relationships[index]
            if relationship.isToMany {
                result.relationships[index] = mergeTargets(
                    memory: m.targets, base: s.targets, stored: t.targets, ordered: relationship.isOrdered)
            } else {
                result.relationships[index] = pick(m, s, t)
            }
        }
        return result
    }

    /// A to-many relationship merged element by element: the store's targets, minus those
    /// removed in memory, plus those added in memory (in memory's order, after the store's).
    private func mergeTargets(memory: [ObjectID], base: [ObjectID], stored: [ObjectID], ordered: Bool)
        -> RelationshipValue
    {
        let memorySet = Set(memory)
        let baseSet = Set(base)
        let removed = baseSet.subtracting(memorySet)
        var result = stored.filter { !removed.contains($0) }
        var present = Set(result)
        for id in memory where !baseSet.contains(id) && present.insert(id).inserted { result.append(id) }
        return .toMany(ordered ? result : result.sorted())
    }

    /// After a to-one relationship of `object` was resolved to another target than memory held,
    /// makes the loaded targets agree: the old one forgets `object`, the new one lists it.
    private func repairInverses(of object: ManagedObject, from memory: [RelationshipValue]) {
        for (index, relationship) in object.entity.relationships.enumerated() where !relationship.isToMany {
            let old = memory[index].targets.first
            let new = object.relationshipValues[index].targets.first
            guard old != new else { continue }
            if let old, let target = loadedObject(old) { target.unlink(object.objectID, fromInverseOf: relationship) }
            if let new, let target = loadedObject(new) { target.link(object.objectID, intoInverseOf: relationship) }
        }
    }

    /// The registered, loaded, live object for `id`; faults load their state when touched.
    private func loadedObject(_ id: ObjectID) -> ManagedObject? {
        guard let object = changed[id] ?? registeredObject(for: id), !object.state.isFault, !object.state.isInvalid,
            !vanished.contains(id)
        else { return nil }
        return object
    }

    /// An object deleted where the context saves: unlinked from the loaded objects here and left
    /// out of the save.
    private func vanish(_ object: ManagedObject) {
        journal?.record(object)
        changed[object.objectID] = object
        vanished.insert(object.objectID)
        for (index, relationship) in object.entity.relationships.enumerated() {
            for target in object.relationshipValues[index].targets {
                loadedObject(target)?.unlink(object.objectID, fromInverseOf: relationship)
            }
        }
    }

    /// After a successful save: the objects deleted where the context saves leave it.
    func removeVanishedObjects() {
        for id in vanished.sorted() {
            guard let object = changed[id] ?? registeredObject(for: id) else { continue }
            unregister(object)
            object.state.isInvalid = true
            object.state.isDeleted = false
            object.context = nil
        }
        vanished = []
    }
}
