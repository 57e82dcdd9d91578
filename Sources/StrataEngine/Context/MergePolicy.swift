/// How a context resolves optimistic-locking conflicts when it saves: the objects it changed
/// were changed or deleted meanwhile in the store (for a context on the coordinator) or in its
/// parent (for a child context). Core Data's five merge policies; see docs/Concurrency.md for
/// the table of policy and kind of conflict.
///
/// For every object in conflict the context knows three states: the one it read (its snapshot),
/// its own (memory), and the current one where it saves (the store's, or the parent's). A
/// property *changed in memory* differs between memory and snapshot; one *changed in the store*
/// differs between store and snapshot.
///
/// - To-many relationships are always merged element by element (except under ``error``):
///   targets added or removed in memory are added or removed, every other target follows the
///   store. They mirror the to-one side of their inverse, which is saved with its own object,
///   so that both sides stay in step, as in Core Data, where a to-many is derived from its
///   inverse.
/// - An object deleted in the store (or in the parent) stays deleted under every policy but
///   ``error``: it leaves the context, and its unsaved changes are dropped (a deleted object's ID
///   is never used again, so it cannot be written back).
/// - An object deleted in memory whose stored state changed is deleted under every policy but
///   ``error`` and ``rollback``; ``rollback`` brings it back with the store's state.
///
/// After resolving, the context saves again against the new versions, until the save succeeds
/// (or fails for another reason, which leaves the context as it was before the call).
public enum MergePolicy: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The default: the save fails with ``StrataError/Code/conflict`` listing every object in
    /// conflict and, per property, the in-memory, snapshot and store values; neither the context
    /// nor the store changes.
    case error
    /// Per property: where both the store and memory changed a property, the store's value wins;
    /// other in-memory changes are kept and saved.
    case mergeByPropertyStoreTrump
    /// Per property: where memory changed a property, memory's value wins; properties only the
    /// store changed take the store's value.
    case mergeByPropertyObjectTrump
    /// Whole object: every attribute and to-one relationship of the in-memory object is written,
    /// replacing the store's changes, even to properties memory did not change.
    case overwrite
    /// Whole object: the in-memory changes of each object in conflict are discarded and it takes
    /// the store's state (its to-many relationships keep the targets added or removed through
    /// objects that are saved). Changes to objects not in conflict are saved.
    case rollback

    /// The policy's name, as in the case.
    public var description: String { rawValue }
}
