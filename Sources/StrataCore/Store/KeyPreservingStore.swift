/// A store that accepts inserts under primary keys chosen elsewhere: copies and migrations that
/// stream objects into a new store keep every object's key, so relationships need no mapping
/// table and memory stays bounded however large the store is.
///
/// Without this capability a save may only insert IDs the store handed out
/// (``PersistentStore/obtainPermanentIDs(for:count:)``).
public protocol KeyPreservingStore: PersistentStore {
    /// Reserves every key up to and including `key` for `entityName`: afterwards a save may insert
    /// objects of that entity under any of those keys (with this store's identifier) that no
    /// object holds, and ``PersistentStore/obtainPermanentIDs(for:count:)`` hands out only larger
    /// keys, in this process and after reopening.
    ///
    /// Reserving keys already reserved or handed out changes nothing.
    ///
    /// - Throws: ``StrataError/Code/unknownEntity`` for an entity the model lacks,
    ///   ``StrataError/Code/invalidRequest`` for a key below 1, ``StrataError/Code/readOnly`` for a
    ///   store opened read-only.
    func reserveKeys(through key: Int64, for entityName: String) throws
}
