import Foundation
import StrataCore
import StrataMigrations
import StrataSQLite
import StrataTestSupport
import Testing

/// A native SQLite migration keeps the store's history: the transactions recorded before it read
/// as they were written (with the old model's names), and the sequence goes on after it.
@Suite struct SQLiteHistoryMigrationTests {
    private static func model(_ version: String, extra: Bool) throws -> Model {
        var attributes = [Attribute("title", .string)]
        if extra { attributes.append(Attribute("rating", .integer64, defaultValue: .integer(0))) }
        return try Model(versionIdentifier: version, entities: [Entity("Note", attributes: attributes)])
    }

    private static func history(_ store: any PersistentStore) throws -> any HistoryRecording {
        try #require(store.capability((any HistoryRecording).self))
    }

    @Test func aNativeMigrationKeepsTheHistoryAndItsSequence() throws {
        let source = try Self.model("v1", extra: false)
        let destination = try Self.model("v2", extra: true)
        let step = try MigrationStep.infer(from: source, to: destination)
        try withTemporaryDirectory { directory in
            let url = storeURL("sqlite", in: directory)
            let backend = SQLiteBackend()
            let before: [HistoryTransaction]
            do {
                let store = try backend.open(url, model: source, options: StoreOptions())
                defer { try? store.close() }
                for title in ["a", "b"] {
                    let id = try store.obtainPermanentIDs(for: "Note", count: 1)[0]
                    try store.save(
                        SaveRequest(
                            inserts: [
                                Snapshot(objectID: id, version: 0, attributes: [.string(title)], relationships: [])
                            ]
                        ))
                }
                before = try Self.history(store).fetchHistory(HistoryRequest())
            }
            #expect(before.count == 2)
            try backend.migrateNatively(
                step, at: url, options: StoreOptions(), metadataChanges: [:], progress: { _ in }, isCancelled: { false }
            )
            let store = try backend.open(url, model: destination, options: StoreOptions())
            defer { try? store.close() }
            let history = try Self.history(store)
            #expect(try history.fetchHistory(HistoryRequest()) == before)
            let note = try store.snapshots(of: "Note", among: nil)[0]
            var changed = note
            changed.attributes[1] = .integer(5)
            try store.save(SaveRequest(updates: [.init(changed, expectedVersion: note.version)]))
            let after = try history.fetchHistory(HistoryRequest(after: before.last?.token))
            #expect(after.map(\.token.sequence) == [3])
            #expect(
                after.first?.changes.first?.properties == [
                    PropertyChange(name: "rating", oldValue: .attribute(.integer(0)), newValue: .attribute(.integer(5)))
                ])
        }
    }
}
