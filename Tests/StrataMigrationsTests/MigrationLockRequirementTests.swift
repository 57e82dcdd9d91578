import Foundation
import StrataCore
import StrataInMemory
import StrataMigrations
import StrataTestSupport
import Testing

/// `memory:` stores whose backend takes its own migration lock, as a server's backend does,
/// and counts the locks taken and released.
struct OwnLockBackend: StoreBackend {
    let scheme = "ownlock"
    let capabilities: BackendCapabilities = [.persistent]
    let taken = Locked<[Int]>([])
    let released = Locked(0)

    private func memoryURL(_ url: StoreURL) -> StoreURL { StoreURL(scheme: "memory", location: url.location) }

    func open(_ url: StoreURL, model: Model, options: StoreOptions) throws -> any PersistentStore {
        try InMemoryBackend().open(memoryURL(url), model: model, options: options)
    }

    func metadata(at url: StoreURL) throws -> StoreMetadata? { try InMemoryBackend().metadata(at: memoryURL(url)) }

    func destroyStore(at url: StoreURL) throws { try InMemoryBackend().destroyStore(at: memoryURL(url)) }

    func lockForMigration(of url: StoreURL, timeoutMilliseconds: Int) throws -> StoreAccessLock? {
        taken.withLock { $0.append(timeoutMilliseconds) }
        let released = released
        return StoreAccessLock(heldElsewhere: { released.withLock { $0 += 1 } })
    }
}

/// A backend's own `lockForMigration(of:timeoutMilliseconds:)` is the one callers get through
/// `any StoreBackend` (a requirement, not a helper of the protocol's extension), with the usual
/// wait when they give none; a lock held elsewhere is released once.
@Suite struct MigrationLockRequirementTests {
    @Test func theMigratorTakesTheBackendsOwnLockAndReleasesIt() throws {
        let backend = OwnLockBackend()
        let registry = StoreRegistry()
        registry.register(backend)
        let url = StoreURL(scheme: "ownlock", location: "lock-\(UUID().uuidString)")
        let v1 = try Model(
            versionIdentifier: "v1", entities: [Entity("Note", attributes: [Attribute("text", .string)])])
        let v2 = try Model(
            versionIdentifier: "v2",
            entities: [Entity("Note", attributes: [Attribute("text", .string), Attribute("rank", .integer64)])])
        // Already at the target: the migrator locks, finds nothing to do, and lets go.
        try backend.open(url, model: v2, options: StoreOptions()).close()
        let migrator = try StoreMigrator(
            versions: VersionedModel(name: "Note", versions: [v1, v2]), registry: registry)
        let plan = try migrator.migrate(storeAt: url)
        #expect(plan.steps.isEmpty)
        #expect(backend.taken.withLock { $0 } == [StoreAccessLock.defaultTimeoutMilliseconds])
        #expect(backend.released.withLock { $0 } == 1)
    }

    @Test func aLockHeldElsewhereIsReleasedOnce() {
        let count = Locked(0)
        do {
            let lock = StoreAccessLock(heldElsewhere: { count.withLock { $0 += 1 } })
            lock.release()
            lock.release()
        }
        #expect(count.withLock { $0 } == 1)
        do { _ = StoreAccessLock(heldElsewhere: { count.withLock { $0 += 1 } }) }
        #expect(count.withLock { $0 } == 2)
    }
}
