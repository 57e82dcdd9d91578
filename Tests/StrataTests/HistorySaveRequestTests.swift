import Strata
import StrataTestSupport
import Testing

/// A store that records history in name only and keeps every save request it is sent: it
/// serves no snapshots from memory (so the coordinator's row cache sits in front of it), and
/// the tests read what the engine put in the requests.
private final class RequestRecordingStore: WrappingStore, HistoryRecording {
    let inner: any PersistentStore
    let recordsHistory: Bool
    private let requests = Locked<[SaveRequest]>([])

    init(_ inner: any PersistentStore, recordsHistory: Bool = true) {
        self.inner = inner
        self.recordsHistory = recordsHistory
    }

    var saved: [SaveRequest] { requests.withLock { $0 } }

    func save(_ request: SaveRequest) throws -> SaveResult {
        requests.withLock { $0.append(request) }
        return try inner.save(request)
    }

    func fetchHistory(_ request: HistoryRequest) throws -> [HistoryTransaction] { [] }
    func lastHistoryToken() throws -> HistoryToken? { nil }
    func pruneHistory(_ pruning: HistoryPruning) throws -> Int { 0 }
}

/// What a context puts in the save requests of a store that records history: its author and
/// name (also for changes that reach the store through a parent), and the state each update or
/// delete was based on, taken from the row cache, never read for the purpose.
@Suite struct HistorySaveRequestTests {
    static let model = try! Model(
        versionIdentifier: "history-save-request",
        entities: [
            Entity("Note", attributes: [Attribute("text", .string)]),
            Entity(
                "Invoice",
                attributes: [
                    Attribute("number", .string, preservesValueOnDeletion: true), Attribute("total", .integer64),
                ]),
        ])

    private func makeCoordinator(recordsHistory: Bool = true) throws -> (StoreCoordinator, RequestRecordingStore) {
        let store = RequestRecordingStore(
            try BuiltInBackends.registry.open("memory:", model: Self.model), recordsHistory: recordsHistory)
        let coordinator = StoreCoordinator(model: Self.model)
        try coordinator.addStore(store)
        return (coordinator, store)
    }

    @Test func aContextsAuthorAndNameGoWithItsSave() throws {
        let (coordinator, store) = try makeCoordinator()
        let context = ObjectContext(coordinator: coordinator, name: "importer-context")
        context.transactionAuthor = "importer"
        try context.insert("Note")["text"] = .string("a")
        try context.save()
        let request = try #require(store.saved.last)
        #expect(request.transactionAuthor == "importer")
        #expect(request.contextName == "importer-context")
    }

    @Test func aContextWithoutAuthorSendsNone() throws {
        let (coordinator, store) = try makeCoordinator()
        let context = ObjectContext(coordinator: coordinator)
        try context.insert("Note")["text"] = .string("a")
        try context.save()
        let request = try #require(store.saved.last)
        #expect(request.transactionAuthor == nil)
        #expect(request.contextName == nil)
    }

    @Test func aChildsAuthorAndNameReachTheStoreThroughItsParent() throws {
        let (coordinator, store) = try makeCoordinator()
        let root = ObjectContext(coordinator: coordinator, name: "writer")
        let child = ObjectContext(parent: root, name: "editor-context")
        child.transactionAuthor = "editor"
        try child.performAndWait {
            try child.insert("Note")["text"] = .string("from the child")
            try child.save()
        }
        try root.performAndWait { try root.save() }
        let request = try #require(store.saved.last)
        #expect(request.transactionAuthor == "editor")
        #expect(request.contextName == "editor-context")

        // The next save of the root alone records its own.
        root.transactionAuthor = "sync"
        try root.performAndWait {
            try root.insert("Note")["text"] = .string("from the root")
            try root.save()
        }
        #expect(store.saved.last?.transactionAuthor == "sync")
        #expect(store.saved.last?.contextName == "writer")
    }

    @Test func aGrandchildsAuthorClimbsEveryLevel() throws {
        let (coordinator, store) = try makeCoordinator()
        let root = ObjectContext(coordinator: coordinator, name: "writer")
        root.transactionAuthor = "app"
        let view = ObjectContext(parent: root, name: "view")
        let worker = ObjectContext(parent: view, name: "worker")
        worker.transactionAuthor = "import"
        try worker.performAndWait {
            try worker.insert("Note")["text"] = .string("deep")
            try worker.save()
        }
        try view.performAndWait { try view.save() }
        try root.performAndWait { try root.save() }
        #expect(store.saved.last?.transactionAuthor == "import")
        #expect(store.saved.last?.contextName == "worker")
    }

    @Test func aRolledBackPushLeavesNoAuthorBehind() throws {
        let (coordinator, store) = try makeCoordinator()
        let root = ObjectContext(coordinator: coordinator, name: "writer")
        let child = ObjectContext(parent: root, name: "child")
        child.transactionAuthor = "child-author"
        try child.performAndWait {
            try child.insert("Note")["text"] = .string("dropped")
            try child.save()
        }
        try root.performAndWait {
            root.rollback()
            try root.insert("Note")["text"] = .string("kept")
            try root.save()
        }
        #expect(store.saved.last?.transactionAuthor == nil)
        #expect(store.saved.last?.contextName == "writer")
    }

    @Test func updatesCarryTheCachedStateTheyWereBasedOn() throws {
        let (coordinator, store) = try makeCoordinator()
        let context = ObjectContext(coordinator: coordinator)
        let note = try context.insert("Note")
        note["text"] = .string("before")
        try context.save()
        let given = coordinator.previousStateCount
        let reads = coordinator.storeReadCount
        note["text"] = .string("after")
        try context.save()
        let update = try #require(store.saved.last?.updates.first)
        let previous = try #require(update.previous)
        #expect(previous.version == update.expectedVersion)
        #expect(previous.attributes == [.string("before")])
        #expect(coordinator.previousStateCount == given + 1)
        #expect(coordinator.storeReadCount == reads)
    }

    @Test func anObjectTheCacheDoesNotHoldGoesWithoutPreviousAndIsNotRead() throws {
        let (coordinator, store) = try makeCoordinator()
        let context = ObjectContext(coordinator: coordinator)
        let note = try context.insert("Note")
        note["text"] = .string("before")
        try context.save()
        coordinator.rowCache.remove([note.objectID])
        let reads = coordinator.storeReadCount
        note["text"] = .string("after")
        try context.save()
        let update = try #require(store.saved.last?.updates.first)
        #expect(update.previous == nil)
        #expect(coordinator.storeReadCount == reads)
    }

    @Test func aCachedStateAtAnotherVersionIsNotSent() throws {
        let (coordinator, store) = try makeCoordinator()
        let context = ObjectContext(coordinator: coordinator)
        let note = try context.insert("Note")
        note["text"] = .string("v1")
        try context.save()
        // Another context moves the object on: the cache now holds version 2.
        let other = ObjectContext(coordinator: coordinator)
        try other.existingObject(with: note.objectID)["text"] = .string("v2")
        try other.save()
        note["text"] = .string("stale edit")
        context.mergePolicy = .error
        #expect(throws: StrataError.self) { try context.save() }
        let update = try #require(store.saved.last?.updates.first)
        #expect(update.expectedVersion == 1)
        #expect(update.previous == nil)
    }

    @Test func deletesCarryTheCachedStateOnlyWhenTheEntityKeepsValues() throws {
        let (coordinator, store) = try makeCoordinator()
        let context = ObjectContext(coordinator: coordinator)
        let invoice = try context.insert("Invoice")
        invoice["number"] = .string("F-1")
        invoice["total"] = .integer(12)
        let note = try context.insert("Note")
        note["text"] = .string("gone")
        try context.save()
        context.delete(invoice)
        context.delete(note)
        try context.save()
        let deletes = try #require(store.saved.last?.deletes)
        let invoiceDelete = try #require(deletes.first { $0.objectID.entityName == "Invoice" })
        let noteDelete = try #require(deletes.first { $0.objectID.entityName == "Note" })
        #expect(invoiceDelete.previous?.attributes.first == .string("F-1"))
        #expect(invoiceDelete.previous?.version == invoiceDelete.expectedVersion)
        #expect(noteDelete.previous == nil)
    }

    @Test func aStoreWithoutHistoryGetsNoPreviousState() throws {
        let (coordinator, store) = try makeCoordinator(recordsHistory: false)
        let context = ObjectContext(coordinator: coordinator)
        let note = try context.insert("Note")
        note["text"] = .string("before")
        try context.save()
        note["text"] = .string("after")
        try context.save()
        #expect(store.saved.last?.updates.first?.previous == nil)
        #expect(coordinator.previousStateCount == 0)
    }
}
