import StrataCore

/// A store that forwards every call to another one, capabilities included, as a container's
/// store or a decorator does: the pattern for a wrapper that keeps the inner store's fast paths.
///
/// The kit's `capabilitiesSurviveAForwardingWrapper` check runs each store through a wrapper,
/// this one unless the subject names another (``ConformanceSubject/wrap``).
public final class ForwardingStore: PersistentStore {
    /// The store every call goes to.
    public let inner: any PersistentStore

    /// Wraps `inner`.
    public init(_ inner: any PersistentStore) { self.inner = inner }

    /// The inner store's.
    public var url: StoreURL { inner.url }
    /// The inner store's.
    public var model: Model { inner.model }
    /// The inner store's.
    public var identifier: String { inner.identifier }

    /// The inner store's.
    public func metadata() throws -> StoreMetadata { try inner.metadata() }

    /// The inner store's snapshots.
    public func snapshots(of entityName: String, among ids: [ObjectID]?) throws -> [Snapshot] {
        try inner.snapshots(of: entityName, among: ids)
    }

    /// The inner store's answer, so its own querying answers.
    public func fetch(_ request: FetchRequest) throws -> FetchResult { try inner.fetch(request) }

    /// Saves `request` to the inner store.
    @discardableResult
    public func save(_ request: SaveRequest) throws -> SaveResult { try inner.save(request) }

    /// New IDs from the inner store.
    public func obtainPermanentIDs(for entityName: String, count: Int) throws -> [ObjectID] {
        try inner.obtainPermanentIDs(for: entityName, count: count)
    }

    /// Closes the inner store.
    public func close() throws { try inner.close() }

    /// The inner store's capability.
    public func capability<C>(_ type: C.Type) -> C? { inner.capability(type) }
}
