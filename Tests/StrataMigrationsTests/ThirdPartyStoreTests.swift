import Foundation
import StrataCore
import StrataInMemory
import StrataMigrations
import StrataTestSupport
import Testing

/// A third-party store as the streaming executor sees it: no native migration, no native
/// queries, but `KeyPreservingStore` and a backend that adopts `StoreReplacing`.
final class KeyPreservingTestStore: WrappingStore, KeyPreservingStore {
    let inner: any PersistentStore
    let url: StoreURL
    let reservations: Locked<[String: Int64]>

    init(inner: any PersistentStore, url: StoreURL, reservations: Locked<[String: Int64]>) {
        self.inner = inner
        self.url = url
        self.reservations = reservations
    }

    /// Reserves by taking keys from the inner store until `key` is reached.
    func reserveKeys(through key: Int64, for entityName: String) throws {
        var last: Int64 = 0
        while last < key {
            last =
                try inner.obtainPermanentIDs(for: entityName, count: Int(min(key - last, 1_000))).last?.primaryKey
                ?? key
        }
        reservations.withLock { $0[entityName] = max($0[entityName] ?? 0, key) }
    }
}

/// `alias:NAME` stores: in-memory stores behind a table of names, so that replacing one store by
/// another is an atomic change of the table.
struct AliasBackend: StoreBackend, StoreReplacing {
    let scheme = "alias"
    let capabilities: BackendCapabilities = [.persistent]
    let aliases = Locked<[String: String]>([:])
    let reservations = Locked<[String: Int64]>([:])

    private func memoryURL(_ url: StoreURL, create: Bool) -> StoreURL? {
        aliases.withLock { table in
            if let name = table[url.location] { return StoreURL(scheme: "memory", location: name) }
            guard create else { return nil }
            let name = "alias-\(UUID().uuidString)"
            table[url.location] = name
            return StoreURL(scheme: "memory", location: name)
        }
    }

    func open(_ url: StoreURL, model: Model, options: StoreOptions) throws -> any PersistentStore {
        guard let memory = memoryURL(url, create: options.createsIfMissing) else {
            throw StrataError(.storeNotFound, "no alias store \(url)", location: ["url": url.description])
        }
        return KeyPreservingTestStore(
            inner: try InMemoryBackend().open(memory, model: model, options: options), url: url,
            reservations: reservations)
    }

    func metadata(at url: StoreURL) throws -> StoreMetadata? {
        guard let memory = memoryURL(url, create: false) else { return nil }
        return try InMemoryBackend().metadata(at: memory)
    }

    func destroyStore(at url: StoreURL) throws {
        if let memory = memoryURL(url, create: false) { try InMemoryBackend().destroyStore(at: memory) }
        _ = aliases.withLock { $0.removeValue(forKey: url.location) }
    }

    func stagingURL(for url: StoreURL) throws -> StoreURL {
        StoreURL(scheme: scheme, location: url.location + ".staging")
    }

    func replaceStore(at url: StoreURL, withStoreAt staging: StoreURL) throws {
        let old = aliases.withLock { table -> String? in
            let old = table[url.location]
            table[url.location] = table.removeValue(forKey: staging.location)
            return old
        }
        if let old { try InMemoryBackend().destroyStore(at: StoreURL(scheme: "memory", location: old)) }
    }
}

@Suite struct ThirdPartyStoreTests {
    @Test func streamingExecutorUsesKeyPreservationAndTheBackendsReplacement() throws {
        let backend = AliasBackend()
        let registry = StoreRegistry()
        registry.register(backend)
        let versions = try Repository.companyVersions()
        let url = StoreURL(scheme: "alias", location: "company")
        do {
            let store = try registry.open(url, model: versions.versions[0])
            try CompanySeed.seed(store, employees: 20)
            try store.close()
        }
        let before = backend.aliases.withLock { $0["company"] }
        try StoreMigrator(versions: versions, registry: registry, batchSize: 7).migrate(storeAt: url)
        #expect(backend.aliases.withLock { $0["company"] } != before)
        #expect(backend.aliases.withLock { $0["company.staging"] } == nil)
        #expect(backend.reservations.withLock { $0["Employee"] } == 20)
        let store = try registry.open(url, model: versions.current)
        defer { try? store.close() }
        #expect(try companyProblems(store, version: "v3", employees: 20) == [])
        #expect(try store.obtainPermanentIDs(for: "Employee", count: 1)[0].primaryKey == 21)
        try backend.destroyStore(at: url)
    }
}
