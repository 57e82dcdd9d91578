import StrataCore

/// The coordinator's stand-in for one store of a container, added when the container is made so
/// that every entity is routed from the start.
///
/// Until the store is loaded it is an empty, unwritable graph: fetches return nothing, and saves,
/// ID requests and metadata throw ``StrataError/Code/storeNotFound`` saying the store is not
/// loaded (or, after a failed load, why). Once loaded it forwards every call to the real store,
/// fetches included, so the real store's own querying answers them, and hands out the real
/// store's capabilities (``capability(_:)``): batch operations, snapshot lookups, key
/// preservation; a store keeps its fast paths behind a container.
final class ContainerStoreSlot: PersistentStore {
    /// What the slot forwards to.
    enum Content {
        case pending
        case failed(StrataError)
        case loaded(any PersistentStore)
    }

    let url: StoreURL
    let model: Model
    private let content = Locked<Content>(.pending)

    init(url: StoreURL, model: Model) {
        self.url = url
        self.model = model
    }

    /// The real store, once loaded.
    var store: (any PersistentStore)? {
        if case .loaded(let store) = content.withLock({ $0 }) { return store }
        return nil
    }

    /// Makes `store` the slot's content. The coordinator must then refresh what it decided from
    /// the slot's capabilities (``StoreCoordinator/refreshCapabilities(of:)``); so after
    /// ``markFailed(_:)`` and ``markPending()``.
    func attach(_ store: any PersistentStore) { content.withLock { $0 = .loaded(store) } }
    func markFailed(_ error: StrataError) { content.withLock { $0 = .failed(error) } }
    func markPending() { content.withLock { $0 = .pending } }

    private func loaded() throws -> any PersistentStore {
        switch content.withLock({ $0 }) {
        case .loaded(let store): return store
        case .pending:
            throw StrataError(
                .storeNotFound,
                "the store at \(url) is not loaded yet; wait for PersistentContainer.loadPersistentStores() to finish",
                location: ["url": url.description])
        case .failed(let error):
            throw StrataError(
                .storeNotFound, "the store at \(url) failed to load: \(error.message)",
                location: ["url": url.description], underlying: error.description)
        }
    }

    var identifier: String { store?.identifier ?? "" }

    func metadata() throws -> StoreMetadata { try loaded().metadata() }

    func snapshots(of entityName: String, among ids: [ObjectID]?) throws -> [Snapshot] {
        if let store { return try store.snapshots(of: entityName, among: ids) }
        _ = try model.requireEntity(entityName)
        return []
    }

    /// The real store's answer; while nothing is loaded, an empty one (for a valid request).
    func fetch(_ request: FetchRequest) throws -> FetchResult {
        if let store { return try store.fetch(request) }
        try request.checkUnlessValidated(for: model)
        switch request.resultType {
        case .snapshots: return .snapshots([])
        case .objectIDs: return .objectIDs([])
        case .count: return .count(0)
        case .dictionaries: return .dictionaries([])
        }
    }

    /// The real store's capability once loaded; none before.
    func capability<C>(_ type: C.Type) -> C? { store?.capability(type) }

    @discardableResult
    func save(_ request: SaveRequest) throws -> SaveResult { try loaded().save(request) }

    func obtainPermanentIDs(for entityName: String, count: Int) throws -> [ObjectID] {
        try loaded().obtainPermanentIDs(for: entityName, count: count)
    }

    /// Closes the real store, if one is loaded.
    func close() throws { try store?.close() }
}
