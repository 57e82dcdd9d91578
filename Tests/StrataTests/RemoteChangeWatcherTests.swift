import Foundation
import Strata
import StrataTestSupport
import Testing

/// A store that forwards its history to the store it wraps and serves no snapshots from
/// memory, so the coordinator puts its row cache in front of it (as for SQLite or LMDB).
final class CachedHistoryStore: WrappingStore, HistoryRecording {
    let inner: any PersistentStore
    private let history: any HistoryRecording

    init(_ inner: any PersistentStore) throws {
        self.inner = inner
        history = try #require(inner.capability((any HistoryRecording).self))
    }

    var recordsHistory: Bool { history.recordsHistory }
    func fetchHistory(_ request: HistoryRequest) throws -> [HistoryTransaction] { try history.fetchHistory(request) }
    func lastHistoryToken() throws -> HistoryToken? { try history.lastHistoryToken() }
    @discardableResult
    func pruneHistory(_ pruning: HistoryPruning) throws -> Int { try history.pruneHistory(pruning) }
}

/// Two coordinators on one store, as two processes would be: one watches, the other writes.
struct SharedStorePair {
    static let model = try! Model(
        versionIdentifier: "remote-change",
        entities: [
            Entity(
                "Note",
                attributes: [Attribute("text", .string), Attribute("rank", .integer64, defaultValue: .integer(0))])
        ])

    let watched: StoreCoordinator
    let watchedStore: CachedHistoryStore
    let other: StoreCoordinator

    /// Both on the in-memory store named uniquely for this pair.
    init() throws {
        let url = "memory:remote-\(UUID().uuidString)"
        watchedStore = try CachedHistoryStore(BuiltInBackends.registry.open(url, model: Self.model))
        watched = StoreCoordinator(model: Self.model)
        try watched.addStore(watchedStore)
        other = StoreCoordinator(model: Self.model)
        try other.addStore(CachedHistoryStore(BuiltInBackends.registry.open(url, model: Self.model)))
    }

    func watcher(pageSize: Int = 1_000) throws -> RemoteChangeWatcher {
        try RemoteChangeWatcher(
            routedStore: watchedStore, history: watchedStore, coordinator: watched, pageSize: pageSize)
    }

    /// Saves `count` new notes through `coordinator`, one save each; returns their IDs.
    @discardableResult
    static func insert(_ count: Int, through coordinator: StoreCoordinator, text: String = "note") throws -> [ObjectID]
    {
        let context = ObjectContext(coordinator: coordinator)
        var ids: [ObjectID] = []
        for index in 0..<count {
            let note = try context.insert("Note")
            note["text"] = .string("\(text) \(index)")
            note["rank"] = .integer(Int64(index))
            try context.save()
            ids.append(note.objectID)
        }
        return ids
    }
}

/// The watcher a container runs per store, polled by hand: it finds other writers' saves in
/// the history, never its own coordinator's, pages through many, drops what it learns is stale
/// from the row cache, and says so when the history it had not read was pruned.
@Suite struct RemoteChangeWatcherTests {
    @Test func anotherWritersSaveIsARemoteChange() throws {
        let pair = try SharedStorePair()
        let watcher = try pair.watcher()
        #expect(try watcher.poll() == nil)
        let ids = try SharedStorePair.insert(2, through: pair.other)
        let change = try #require(try watcher.poll())
        #expect(change.transactions.count == 2)
        #expect(change.changes.inserted == Set(ids))
        #expect(change.token == change.transactions.last?.token)
        #expect(!change.isHistoryExpired)
        #expect(try watcher.poll() == nil)
        watcher.stop()
    }

    @Test func ownSavesNeverComeBack() throws {
        let pair = try SharedStorePair()
        let watcher = try pair.watcher()
        let own = try SharedStorePair.insert(3, through: pair.watched, text: "own")
        #expect(try watcher.poll() == nil)
        // Interleaved: only the other writer's save is remote.
        try SharedStorePair.insert(1, through: pair.watched, text: "own")
        let theirs = try SharedStorePair.insert(1, through: pair.other, text: "theirs")
        try SharedStorePair.insert(1, through: pair.watched, text: "own")
        let change = try #require(try watcher.poll())
        #expect(change.transactions.count == 1)
        #expect(change.changes.inserted == Set(theirs))
        #expect(change.changes.inserted.isDisjoint(with: own))
        #expect(try watcher.poll() == nil)
        watcher.stop()
    }

    @Test func manyTransactionsArriveThroughSeveralPages() throws {
        let pair = try SharedStorePair()
        let watcher = try pair.watcher(pageSize: 2)
        let ids = try SharedStorePair.insert(7, through: pair.other)
        let change = try #require(try watcher.poll())
        #expect(change.transactions.map(\.changes.first?.objectID) == ids)
        #expect(Set(change.transactions.map(\.token)).count == 7)
        watcher.stop()
    }

    @Test func savesBeforeTheWatcherStartedAreNotRemote() throws {
        let pair = try SharedStorePair()
        try SharedStorePair.insert(2, through: pair.other)
        let watcher = try pair.watcher()
        #expect(try watcher.poll() == nil)
        watcher.stop()
    }

    @Test func aRemoteUpdateDropsTheStaleSnapshotFromTheRowCache() throws {
        let pair = try SharedStorePair()
        let watcher = try pair.watcher()
        let id = try #require(try SharedStorePair.insert(1, through: pair.watched).first)
        // The watched coordinator caches the note as it saved it.
        #expect(try pair.watched.snapshot(for: id)?.attributes.first == .string("note 0"))
        let writer = ObjectContext(coordinator: pair.other)
        try writer.existingObject(with: id)["text"] = .string("changed elsewhere")
        try writer.save()
        // Stale until the watcher has seen the change...
        #expect(try pair.watched.snapshot(for: id)?.attributes.first == .string("note 0"))
        let change = try #require(try watcher.poll())
        #expect(change.changes.updated == [id])
        // ... and fresh after.
        #expect(try pair.watched.snapshot(for: id)?.attributes.first == .string("changed elsewhere"))
        watcher.stop()
    }

    @Test func aRemoteDeleteDropsTheSnapshotToo() throws {
        let pair = try SharedStorePair()
        let watcher = try pair.watcher()
        let id = try #require(try SharedStorePair.insert(1, through: pair.watched).first)
        let writer = ObjectContext(coordinator: pair.other)
        writer.delete(try writer.existingObject(with: id))
        try writer.save()
        #expect(try pair.watched.snapshot(for: id) != nil)
        let change = try #require(try watcher.poll())
        #expect(change.changes.deleted == [id])
        #expect(try pair.watched.snapshot(for: id) == nil)
        watcher.stop()
    }

    @Test func prunedUnreadHistoryIsReportedAsExpiredAndEmptiesTheCache() throws {
        let pair = try SharedStorePair()
        let watcher = try pair.watcher()
        try SharedStorePair.insert(2, through: pair.watched)
        #expect(pair.watched.cachedSnapshotCount == 2)
        try SharedStorePair.insert(3, through: pair.other)
        let last = try #require(try pair.watchedStore.lastHistoryToken())
        try pair.watchedStore.pruneHistory(.through(last))
        let change = try #require(try watcher.poll())
        #expect(change.isHistoryExpired)
        #expect(change.transactions.isEmpty)
        #expect(change.token == last)
        #expect(pair.watched.cachedSnapshotCount == 0)
        // Watching goes on from the newest token.
        #expect(try watcher.poll() == nil)
        let later = try SharedStorePair.insert(1, through: pair.other)
        #expect(try watcher.poll()?.changes.inserted == Set(later))
        watcher.stop()
    }

    @Test func aBatchOperationOnTheStoreItselfComesBackAsARemoteChange() throws {
        let pair = try SharedStorePair()
        let watcher = try pair.watcher()
        let ids = try SharedStorePair.insert(3, through: pair.watched)
        #expect(try watcher.poll() == nil)
        let batch = try #require(pair.watchedStore.inner.capability((any BatchOperating).self))
        _ = try batch.batchUpdate(entityName: "Note", predicate: nil, values: ["rank": .integer(9)])
        let change = try #require(try watcher.poll())
        #expect(change.changes.updated == Set(ids))
        #expect(try pair.watched.snapshot(for: ids[0])?.attributes[1] == .integer(9))
        watcher.stop()
    }

    @Test func anObjectInsertedAndDeletedInBetweenAppearsInNoSet() throws {
        let pair = try SharedStorePair()
        let watcher = try pair.watcher()
        let writer = ObjectContext(coordinator: pair.other)
        let note = try writer.insert("Note")
        note["text"] = .string("brief")
        try writer.save()
        note["rank"] = .integer(5)
        try writer.save()
        let kept = try writer.insert("Note")
        kept["text"] = .string("kept")
        writer.delete(note)
        try writer.save()
        let change = try #require(try watcher.poll())
        #expect(change.transactions.count == 3)
        #expect(change.changes == ContextChanges(inserted: [kept.objectID]))
        watcher.stop()
    }
}
