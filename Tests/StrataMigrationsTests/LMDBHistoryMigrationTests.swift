import Foundation
import StrataCore
import StrataLMDB
import StrataMigrations
import StrataTestSupport
import Testing

/// A native LMDB migration rewrites records in place and leaves the history alone: the
/// transactions recorded before it keep their tokens, and sequences go on after it.
@Suite struct LMDBHistoryMigrationTests {
    @Test func aNativeMigrationKeepsTheHistoryAndItsSequence() throws {
        let source = try Model(
            versionIdentifier: "v1", entities: [Entity("Gauge", attributes: [Attribute("label", .string)])])
        let destination = try Model(
            versionIdentifier: "v2",
            entities: [
                Entity(
                    "Gauge", attributes: [Attribute("label", .string), Attribute("unit", .string, isOptional: true)])
            ])
        let step = try MigrationStep.infer(from: source, to: destination)
        try withTemporaryDirectory { directory in
            let url = storeURL("lmdb", in: directory)
            let backend = LMDBBackend()
            let before: [HistoryTransaction]
            do {
                let store = try backend.openStore(url, model: source)
                defer { try? store.close() }
                for label in ["a", "b"] {
                    let id = try store.obtainPermanentIDs(for: "Gauge", count: 1)[0]
                    try store.save(
                        SaveRequest(inserts: [
                            Snapshot(objectID: id, version: 0, attributes: [.string(label)], relationships: [])
                        ]))
                }
                before = try store.fetchHistory(HistoryRequest())
            }
            #expect(before.count == 2)
            try backend.migrateNatively(
                step, at: url, options: StoreOptions(), metadataChanges: [:], progress: { _ in }, isCancelled: { false }
            )
            let store = try backend.openStore(url, model: destination)
            defer { try? store.close() }
            #expect(try store.fetchHistory(HistoryRequest()) == before)
            let id = try store.obtainPermanentIDs(for: "Gauge", count: 1)[0]
            try store.save(
                SaveRequest(inserts: [
                    Snapshot(objectID: id, version: 0, attributes: [.string("c"), .null], relationships: [])
                ]))
            #expect(try store.lastHistoryToken()?.sequence == 3)
        }
    }
}
