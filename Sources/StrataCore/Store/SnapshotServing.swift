/// A store that keeps every snapshot in memory and answers a lookup by ID without I/O (the
/// in-memory store, or a third-party store of the same kind).
///
/// A coordinator keeps no row cache in front of such a store, which would only copy what the
/// store already holds, and fires faults with ``snapshot(for:)`` instead of a fetch request.
/// The conformance kit checks that the lookup agrees with ``PersistentStore/snapshots(of:among:)``.
public protocol SnapshotServing: PersistentStore {
    /// The stored snapshot of `id`; `nil` when this store does not hold it (deleted, never
    /// saved, temporary, or an ID of another store or entity).
    ///
    /// - Throws: ``StrataError/Code/storeClosed`` when the store is closed.
    func snapshot(for id: ObjectID) throws -> Snapshot?
}
