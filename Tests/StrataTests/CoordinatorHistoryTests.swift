import Foundation
import Strata
import Testing

@Suite struct CoordinatorHistoryTests {
    /// Notes and tags in two in-memory stores, one per configuration.
    func twoStores() throws -> (StoreCoordinator, notes: any PersistentStore, tags: any PersistentStore) {
        let model = NotesModel.v1
        let coordinator = StoreCoordinator(model: model)
        let notes = try BuiltInBackends.registry.open("memory:", model: model)
        let tags = try BuiltInBackends.registry.open("memory:", model: model)
        try coordinator.addStore(notes, configuration: "Notes")
        try coordinator.addStore(tags, configuration: "Tags")
        return (coordinator, notes, tags)
    }

    func save(_ coordinator: StoreCoordinator, notes: Int, tags: Int, author: String?) throws {
        let model = coordinator.model
        var request = SaveRequest(transactionAuthor: author, contextName: "test")
        for (entity, count) in [("Note", notes), ("Tag", tags)] where count > 0 {
            for id in try coordinator.obtainPermanentIDs(for: entity, count: count) {
                var snapshot = Snapshot(objectID: id, entity: model.entity(named: entity)!)
                snapshot.attributes[0] = .string("x")
                request.inserts.append(snapshot)
            }
        }
        try coordinator.save(request)
    }

    @Test func aSaveSpanningStoresRecordsItsAuthorInEachStore() throws {
        let (coordinator, notes, tags) = try twoStores()
        try save(coordinator, notes: 2, tags: 1, author: "importer")
        let noteHistory = try coordinator.fetchHistory(HistoryRequest(), storeIdentifier: notes.identifier)
        let tagHistory = try coordinator.fetchHistory(HistoryRequest(), storeIdentifier: tags.identifier)
        #expect(noteHistory.map(\.changes.count) == [2])
        #expect(tagHistory.map(\.changes.count) == [1])
        #expect((noteHistory + tagHistory).allSatisfy { $0.author == "importer" && $0.contextName == "test" })
    }

    @Test func aTokenPicksItsStoreAndNoTokenPicksTheFirst() throws {
        let (coordinator, notes, tags) = try twoStores()
        try save(coordinator, notes: 1, tags: 0, author: nil)
        try save(coordinator, notes: 0, tags: 1, author: nil)
        try save(coordinator, notes: 0, tags: 1, author: nil)
        #expect(try coordinator.fetchHistory(HistoryRequest()).map(\.token.storeIdentifier) == [notes.identifier])
        let tagToken = try #require(try coordinator.lastHistoryToken(storeIdentifier: tags.identifier))
        #expect(tagToken.sequence == 2)
        let after = HistoryToken(storeIdentifier: tags.identifier, sequence: 1)
        #expect(try coordinator.fetchHistory(HistoryRequest(after: after)).map(\.token) == [tagToken])
        #expect(try coordinator.pruneHistory(.through(after)) == 1)
        let stranger = #expect(throws: StrataError.self) {
            _ = try coordinator.fetchHistory(HistoryRequest(after: HistoryToken(storeIdentifier: "nope", sequence: 1)))
        }
        #expect(stranger?.code == .invalidRequest)
    }

    @Test func aStoreWithHistoryOffIsNotAHistoryStore() throws {
        let model = NotesModel.v1
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addStore(
            BuiltInBackends.registry.open("memory:", model: model, options: StoreOptions(options: ["history": "off"])))
        #expect(coordinator.historyRecordingStores.isEmpty)
        let error = #expect(throws: StrataError.self) { _ = try coordinator.fetchHistory(HistoryRequest()) }
        #expect(error?.code == .unsupported)
    }
}
