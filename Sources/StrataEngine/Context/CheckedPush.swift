import StrataCore

/// A child's save that a context took in whole while it had nothing else pending, after the
/// child had validated exactly those changes (their rules, and their unique constraints against
/// the stores), at the coordinator's write generation ``generation``.
///
/// The context's own validation checks the same values against the same model, with the same
/// objects deleted, asks the stores the same questions and counts the same objects as freed,
/// while its change set is still exactly what the push left (the same members in the same states
/// with equal values) and no save went through the coordinator since
/// (``StoreCoordinator/writeGeneration``): it can take the child's answer. This is the default
/// three-tier stack's insert: a background context validates, the writer saves what it pushed,
/// and the validation is not made twice.
///
/// Writes to the stores that bypass the coordinator (another coordinator or process) can slip
/// in between, as they can between any check and its write: the stores enforce unique
/// constraints themselves, and refuse such a save.
struct CheckedPush {
    /// The coordinator's write generation when the child's check began.
    let generation: UInt64
    /// The child's inserted and updated objects, as pushed.
    let inserts: [Snapshot]
    let updates: [Snapshot]
    /// The objects the child deleted.
    let deletes: [ObjectID]
    /// How many objects the context's change set held once it took the push.
    let memberCount: Int

    /// Whether `changed` is still exactly what the push left and the coordinator's write
    /// generation is still `generation`. O(objects pushed), one lookup each; an unchanged
    /// member's values compare by identity.
    func stillHolds(for changed: ChangeSet, generation now: UInt64) -> Bool {
        guard now == generation, changed.count == memberCount,
            inserts.count + updates.count + deletes.count == memberCount
        else { return false }
        for snapshot in inserts {
            guard let object = changed[snapshot.objectID], object.state.isInserted,
                Self.holds(snapshot, in: object)
            else { return false }
        }
        for snapshot in updates {
            guard let object = changed[snapshot.objectID], !object.state.isInserted,
                Self.holds(snapshot, in: object)
            else { return false }
        }
        for id in deletes {
            guard let object = changed[id], object.state.isDeleted, !object.state.isInvalid else { return false }
        }
        return true
    }

    /// Whether `object` is live and holds the values of `snapshot`.
    private static func holds(_ snapshot: Snapshot, in object: ManagedObject) -> Bool {
        !object.state.isDeleted && !object.state.isInvalid && object.attributeValues == snapshot.attributes
            && object.relationshipValues == snapshot.relationships
    }
}
