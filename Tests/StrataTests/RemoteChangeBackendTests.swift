import Foundation
import Strata
import StrataTestSupport
import Testing

/// Remote changes on the persistent backends, in one process: every store's save returns the
/// token of the transaction it appended, and two containers on one SQLite or LMDB store see each
/// other's saves merged into their view contexts.
@Suite struct RemoteChangeBackendTests {
    static let model = SharedStorePair.model

    @Test(arguments: ["memory", "sqlite", "lmdb", "xml"])
    func aSaveReturnsTheTokenOfItsTransaction(scheme: String) throws {
        let directory = TemporaryDirectory()
        let url = scheme == "memory" ? try StoreURL.parse("memory:") : directory.storeURL(scheme)
        let store = try BuiltInBackends.registry.open(url, model: Self.model)
        defer { try? store.close() }
        let history = try #require(store.capability((any HistoryRecording).self))
        let entity = try #require(Self.model.entity(named: "Note"))
        var tokens: [HistoryToken?] = []
        for _ in 0..<3 {
            let id = try store.obtainPermanentIDs(for: "Note", count: 1)[0]
            var note = Snapshot(objectID: id, entity: entity)
            note.attributes[0] = .string("note")
            tokens.append(try store.save(SaveRequest(inserts: [note])).historyToken)
            #expect(tokens.last == (try history.lastHistoryToken()))
        }
        #expect(tokens.compactMap { $0?.sequence } == [1, 2, 3])
        // A save that changes no object records nothing and returns no token.
        #expect(try store.save(SaveRequest(metadataChanges: ["key": "value"])).historyToken == nil)
    }

    /// SQLite opens a connection per store; LMDB shares one environment among the stores of a
    /// process that open one directory. XML (one writer per file) is left out.
    @Test(arguments: ["sqlite", "lmdb"])
    func twoContainersOnOneStoreMergeEachOthersSaves(scheme: String) async throws {
        let url = TemporaryDirectory().storeURL(scheme).description
        func make(_ name: String) async throws -> PersistentContainer {
            let container = PersistentContainer(
                name: name, model: Self.model, storeDescriptions: [try StoreDescription(url)], environment: [:])
            container.remoteChangePollInterval = .milliseconds(1)
            container.viewContext.automaticallyMergesRemoteChanges = true
            try await container.loadPersistentStores()
            return container
        }
        let first = try await make("first")
        let second = try await make("second")
        let id = try await first.performBackgroundTask { context in
            let note = try context.insert("Note")
            note["text"] = .string("from the first")
            try context.obtainPermanentIDs(for: [note])
            try context.save()
            return note.objectID
        }
        let view = second.viewContext
        // Loaded in the second view context, then changed by the first container.
        #expect(
            try await eventually {
                try await view.perform { (try? view.existingObject(with: id))?["text"] } == .string("from the first")
            })
        try await first.performBackgroundTask { context in
            try context.existingObject(with: id)["text"] = .string("changed by the first")
            try context.save()
        }
        #expect(
            try await eventually {
                try await view.perform { view.registeredObject(for: id)?["text"] } == .string("changed by the first")
            })
        try first.closeStores()
        try second.closeStores()
    }
}
