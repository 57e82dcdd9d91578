import Foundation
import Strata
import StrataTestSupport
import Synchronization
import Testing

/// The bells of every ``SignalingHistoryStore`` on one in-memory store: a save through any of
/// them rings them all, as a PostgreSQL commit notifies every listener.
final class SignalHub: Sendable {
    private let bells = Locked<[HistoryChangeBell]>([])
    /// How many signals the stores made.
    var signalsMade: Int { bells.withLock { $0.count } }

    func makeBell() -> HistoryChangeBell {
        let bell = HistoryChangeBell()
        bells.withLock { $0.append(bell) }
        return bell
    }

    func ringAll() {
        for bell in bells.withLock({ $0 }) { bell.ring() }
    }

    /// How many of the signals made are closed.
    var closedCount: Int { bells.withLock { $0 }.count(where: \.isClosed) }
}

/// An in-memory store whose history signals changes: each save through it rings the bells of
/// its hub (unless ``ringsOnSave`` is off), and it counts reads of its last token.
final class SignalingHistoryStore: WrappingStore, HistoryChangeSignaling {
    let inner: any PersistentStore
    private let history: any HistoryRecording
    let hub: SignalHub
    let ringsOnSave: Bool
    private let tokenReads = Atomic<Int>(0)

    init(_ inner: any PersistentStore, hub: SignalHub, ringsOnSave: Bool = true) throws {
        self.inner = inner
        self.hub = hub
        self.ringsOnSave = ringsOnSave
        history = try #require(inner.capability((any HistoryRecording).self))
    }

    /// How many times the last token was read.
    var lastTokenReads: Int { tokenReads.load(ordering: .relaxed) }

    func save(_ request: SaveRequest) throws -> SaveResult {
        let result = try inner.save(request)
        if ringsOnSave { hub.ringAll() }
        return result
    }

    func makeHistoryChangeSignal() throws -> any HistoryChangeSignal { hub.makeBell() }

    var recordsHistory: Bool { history.recordsHistory }
    func fetchHistory(_ request: HistoryRequest) throws -> [HistoryTransaction] { try history.fetchHistory(request) }
    func lastHistoryToken() throws -> HistoryToken? {
        tokenReads.add(1, ordering: .relaxed)
        return try history.lastHistoryToken()
    }
    @discardableResult
    func pruneHistory(_ pruning: HistoryPruning) throws -> Int { try history.pruneHistory(pruning) }
}

/// A backend (`signaled:NAME`) of ``SignalingHistoryStore``s over `memory:NAME`, one hub per name.
final class SignalingMemoryBackend: StoreBackend {
    let scheme = "signaled"
    let capabilities: BackendCapabilities = [.multiProcess]
    private let hubs = Locked<[String: SignalHub]>([:])

    func hub(_ name: String) -> SignalHub {
        hubs.withLock { hubs in
            if let hub = hubs[name] { return hub }
            let hub = SignalHub()
            hubs[name] = hub
            return hub
        }
    }

    private func memoryURL(_ url: StoreURL) throws -> StoreURL { try StoreURL.parse("memory:\(url.location)") }

    func open(_ url: StoreURL, model: Model, options: StoreOptions) throws -> any PersistentStore {
        let inner = try BuiltInBackends.registry.open(memoryURL(url).description, model: model)
        return try SignalingHistoryStore(inner, hub: hub(url.location))
    }

    func metadata(at url: StoreURL) throws -> StoreMetadata? {
        try BuiltInBackends.registry.backend(for: "memory").metadata(at: memoryURL(url))
    }

    func destroyStore(at url: StoreURL) throws {
        try BuiltInBackends.registry.backend(for: "memory").destroyStore(at: memoryURL(url))
    }
}

/// A watcher whose store signals history changes waits on the signal instead of polling: it
/// reads the history when signalled (a false alarm costs one read of the last token), catches
/// a change whose signal was missed at its slow interval, and closes its signal when it stops.
@Suite struct RemoteChangeSignalTests {
    /// Two coordinators on one in-memory store through signaling stores; the watched one's store
    /// rings only if `ringing`.
    private struct Pair {
        let watched: StoreCoordinator
        let store: SignalingHistoryStore
        let other: StoreCoordinator
        let hub = SignalHub()

        init(ringing: Bool = true) throws {
            let url = "memory:signal-\(UUID().uuidString)"
            let model = SharedStorePair.model
            store = try SignalingHistoryStore(
                BuiltInBackends.registry.open(url, model: model), hub: hub, ringsOnSave: ringing)
            watched = StoreCoordinator(model: model)
            try watched.addStore(store)
            other = StoreCoordinator(model: model)
            try other.addStore(
                SignalingHistoryStore(BuiltInBackends.registry.open(url, model: model), hub: hub, ringsOnSave: ringing))
        }

        func watcher() throws -> RemoteChangeWatcher {
            try RemoteChangeWatcher(
                routedStore: store, history: store, coordinator: watched, signal: store.makeHistoryChangeSignal())
        }
    }

    /// Collects what a started watcher delivers.
    private final class Deliveries: Sendable {
        private let changes = Locked<[RemoteChange]>([])
        var all: [RemoteChange] { changes.withLock { $0 } }
        func append(_ change: RemoteChange) { changes.withLock { $0.append(change) } }
    }

    @Test func aSignalledSaveIsDeliveredWithoutWaitingForTheInterval() async throws {
        let pair = try Pair()
        let watcher = try pair.watcher()
        let deliveries = Deliveries()
        watcher.start(every: .seconds(3_600)) { deliveries.append($0) }
        let ids = try SharedStorePair.insert(2, through: pair.other)
        #expect(await eventually { deliveries.all.flatMap(\.transactions).count == 2 })
        #expect(Set(deliveries.all.map(\.changes.inserted).reduce([], +)) == Set(ids))
        watcher.stop()
    }

    @Test func withoutASignTheWatcherDoesNotReadTheHistory() async throws {
        let pair = try Pair(ringing: false)
        let watcher = try pair.watcher()
        let readsAfterStart = pair.store.lastTokenReads
        let deliveries = Deliveries()
        watcher.start(every: .seconds(3_600)) { deliveries.append($0) }
        try SharedStorePair.insert(1, through: pair.other)
        // A polling watcher (every 5 ms) would have read the last token many times by now.
        try await Task.sleep(for: .milliseconds(100))
        #expect(pair.store.lastTokenReads == readsAfterStart)
        #expect(deliveries.all.isEmpty)
        // The sign comes late: the change is read then, whole.
        pair.hub.ringAll()
        #expect(await eventually { deliveries.all.flatMap(\.transactions).count == 1 })
        #expect(pair.store.lastTokenReads == readsAfterStart + 1)
        watcher.stop()
    }

    @Test func aFalseAlarmCostsOneReadOfTheLastTokenAndDeliversNothing() async throws {
        let pair = try Pair(ringing: false)
        let watcher = try pair.watcher()
        let readsAfterStart = pair.store.lastTokenReads
        let deliveries = Deliveries()
        watcher.start(every: .seconds(3_600)) { deliveries.append($0) }
        pair.hub.ringAll()
        #expect(await eventually { pair.store.lastTokenReads == readsAfterStart + 1 })
        try SharedStorePair.insert(1, through: pair.other)
        pair.hub.ringAll()
        #expect(await eventually { deliveries.all.count == 1 })
        #expect(deliveries.all.first?.transactions.count == 1)
        watcher.stop()
    }

    @Test func aMissedSignalIsCaughtUpAtTheSlowInterval() async throws {
        let pair = try Pair(ringing: false)
        let watcher = try pair.watcher()
        let deliveries = Deliveries()
        watcher.start(every: .milliseconds(20)) { deliveries.append($0) }
        let ids = try SharedStorePair.insert(3, through: pair.other)
        #expect(await eventually { deliveries.all.flatMap(\.transactions).count == 3 })
        #expect(Set(deliveries.all.map(\.changes.inserted).reduce([], +)) == Set(ids))
        watcher.stop()
    }

    @Test func ownSavesRingButAreNeverDelivered() async throws {
        let pair = try Pair()
        let watcher = try pair.watcher()
        let deliveries = Deliveries()
        watcher.start(every: .seconds(3_600)) { deliveries.append($0) }
        try SharedStorePair.insert(3, through: pair.watched)
        let theirs = try SharedStorePair.insert(1, through: pair.other)
        #expect(await eventually { !deliveries.all.isEmpty })
        #expect(deliveries.all.flatMap(\.transactions).map(\.changes.first?.objectID) == theirs)
        watcher.stop()
    }

    @Test func stoppingClosesTheSignal() throws {
        let pair = try Pair()
        let signal = pair.hub.makeBell()
        let watcher = try RemoteChangeWatcher(
            routedStore: pair.store, history: pair.store, coordinator: pair.watched, signal: signal)
        watcher.start(every: .seconds(3_600)) { _ in }
        #expect(!signal.isClosed)
        watcher.stop()
        #expect(signal.isClosed)
    }

    @Test func aContainerWaitsOnTheSignalOfEachStoreThatGivesOne() async throws {
        let backend = SignalingMemoryBackend()
        let registry = StoreRegistry()
        registry.register(backend)
        let name = "container-\(UUID().uuidString)"
        func make(_ containerName: String) async throws -> PersistentContainer {
            let container = PersistentContainer(
                name: containerName, model: SharedStorePair.model,
                storeDescriptions: [try StoreDescription("signaled:\(name)")], stack: .threeTier, migrator: nil,
                environment: [:], registry: registry)
            container.viewContext.automaticallyMergesRemoteChanges = true
            try await container.loadPersistentStores()
            return container
        }
        let first = try await make("first")
        let second = try await make("second")
        #expect(backend.hub(name).signalsMade == 2)
        let id = try await first.performBackgroundTask { context in
            let note = try context.insert("Note")
            note["text"] = .string("rung")
            try context.obtainPermanentIDs(for: [note])
            try context.save()
            return note.objectID
        }
        let view = second.viewContext
        #expect(
            try await eventually {
                try await view.perform { (try? view.existingObject(with: id))?["text"] } == .string("rung")
            })
        try first.closeStores()
        try second.closeStores()
        #expect(backend.hub(name).closedCount == 2)
    }

    @Test func aBellKeepsOneSignUntilAWaitTakesIt() {
        let bell = HistoryChangeBell()
        #expect(!bell.wait(timeout: .zero))
        bell.ring()
        bell.ring()
        #expect(bell.wait(timeout: .seconds(10)))
        #expect(!bell.wait(timeout: .milliseconds(1)))
        bell.close()
        bell.ring()
        #expect(!bell.wait(timeout: .seconds(10)))
    }
}
