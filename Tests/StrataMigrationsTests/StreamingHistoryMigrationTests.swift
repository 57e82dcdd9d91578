import Foundation
import StrataCore
import StrataMigrations
import StrataTestSupport
import Testing

/// A migration that copies the objects into a new store (``StreamingMigrationExecutor``, the
/// general path) keeps the store identifier, records none of its copies, and goes on with the
/// history after the old last transaction: a reader holding a token from before the migration
/// gets `historyExpired`, never transactions under sequences it has already seen.
@Suite struct StreamingHistoryMigrationTests {
    static let source = try! Model(
        versionIdentifier: "v1", entities: [Entity("Note", attributes: [Attribute("title", .string)])])
    static let destination = try! Model(
        versionIdentifier: "v2",
        entities: [
            Entity(
                "Note",
                attributes: [Attribute("title", .string), Attribute("rating", .integer64, defaultValue: .integer(0))])
        ])

    private static func history(_ store: any PersistentStore) throws -> any HistoryRecording {
        try #require(store.capability((any HistoryRecording).self))
    }

    static func insert(_ store: any PersistentStore, _ attributes: [Value]) throws {
        let id = try store.obtainPermanentIDs(for: "Note", count: 1)[0]
        try store.save(
            SaveRequest(inserts: [Snapshot(objectID: id, version: 0, attributes: attributes, relationships: [])]))
    }

    /// Three saves recorded, the first one pruned; the store closed. Returns its identifier and
    /// its last token.
    private static func seed(_ url: StoreURL, backend: any StoreBackend) throws -> HistoryToken {
        let store = try backend.open(url, model: source, options: StoreOptions())
        defer { try? store.close() }
        for title in ["a", "b", "c"] { try insert(store, [.string(title)]) }
        let history = try Self.history(store)
        try history.pruneHistory(.keepingLast(2))
        return try #require(try history.lastHistoryToken())
    }

    @Test(arguments: [BackendKind.sqlite, .xml, .memory])
    func theHistoryGoesOnAfterTheOldLastTransaction(_ kind: BackendKind) throws {
        try withTemporaryDirectory { directory in
            let url = kind.url(in: directory)
            let backend = kind.backend
            let last = try Self.seed(url, backend: backend)
            #expect(last.sequence == 3)
            try StreamingMigrationExecutor().execute(
                try MigrationStep.infer(from: Self.source, to: Self.destination), at: url, backend: backend,
                options: StoreOptions(), metadataChanges: [:], progress: { _ in }, isCancelled: { false })

            let store = try backend.open(url, model: Self.destination, options: StoreOptions())
            defer {
                try? store.close()
                try? backend.destroyStore(at: url)
            }
            #expect(store.identifier == last.storeIdentifier)
            #expect(try store.snapshots(of: "Note", among: nil).count == 3)
            let history = try Self.history(store)
            // The copies are not recorded; the old transactions read as pruned.
            #expect(try history.lastHistoryToken() == last)
            #expect(try history.fetchHistory(HistoryRequest(after: last)).isEmpty)
            #expect(try history.fetchHistory(HistoryRequest()).isEmpty)
            let stale = HistoryToken(storeIdentifier: last.storeIdentifier, sequence: 2)
            let error = #expect(throws: StrataError.self) { try history.fetchHistory(HistoryRequest(after: stale)) }
            #expect(error?.code == .historyExpired)

            try Self.insert(store, [.string("d"), .integer(1)])
            let next = try history.fetchHistory(HistoryRequest(after: last))
            #expect(next.map(\.token.sequence) == [4])
            #expect(next.first?.changes.map(\.kind) == [.insert])
        }
    }

    /// An LMDB store is a directory, which the general path cannot replace atomically: it refuses,
    /// and the store keeps its history (LMDB migrates natively, keeping it: LMDBHistoryMigrationTests).
    @Test func anLMDBStoreIsNotRebuiltAndKeepsItsHistory() throws {
        try withTemporaryDirectory { directory in
            let url = BackendKind.lmdb.url(in: directory)
            let backend = BackendKind.lmdb.backend
            let last = try Self.seed(url, backend: backend)
            let error = #expect(throws: StrataError.self) {
                try StreamingMigrationExecutor().execute(
                    try MigrationStep.infer(from: Self.source, to: Self.destination), at: url, backend: backend,
                    options: StoreOptions(), metadataChanges: [:], progress: { _ in }, isCancelled: { false })
            }
            #expect(error?.code == .unsupported)
            let store = try backend.open(url, model: Self.source, options: StoreOptions())
            defer { try? store.close() }
            let history = try Self.history(store)
            #expect(try history.lastHistoryToken() == last)
            #expect(try history.fetchHistory(HistoryRequest()).map(\.token.sequence) == [2, 3])
        }
    }
}
