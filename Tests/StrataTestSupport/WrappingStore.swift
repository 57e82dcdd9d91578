import StrataCore

/// A test double around a real store: every call it does not implement itself goes to `inner`,
/// so that a double states only the behaviour it changes (a planted flaw, a failing save).
/// Fetches are answered by the store protocol's default over ``snapshots(of:among:)``, as for a
/// store without native queries, unless the double implements `fetch` itself.
package protocol WrappingStore: PersistentStore {
    /// The store the calls go to.
    var inner: any PersistentStore { get }
}

extension WrappingStore {
    package var url: StoreURL { inner.url }
    package var model: Model { inner.model }
    package var identifier: String { inner.identifier }
    package func metadata() throws -> StoreMetadata { try inner.metadata() }
    package func snapshots(of entityName: String, among ids: [ObjectID]?) throws -> [Snapshot] {
        try inner.snapshots(of: entityName, among: ids)
    }
    package func save(_ request: SaveRequest) throws -> SaveResult { try inner.save(request) }
    package func obtainPermanentIDs(for entityName: String, count: Int) throws -> [ObjectID] {
        try inner.obtainPermanentIDs(for: entityName, count: count)
    }
    package func close() throws { try inner.close() }
}
