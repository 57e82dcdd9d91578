import Strata
import StrataTestSupport
import Testing

/// A large unique check of an integer key first asks a store that finds the ends of its index
/// cheaply (``UniqueIntegerBounds``: SQLite, LMDB, PostgreSQL) for the least and greatest stored
/// key, then asks about the new keys between them only. Keys outside cannot collide; keys at the
/// ends and between them are still checked, and every collision is reported as before. The
/// in-memory store, without the capability, is asked about every key.
@Suite struct UniqueBoundsCheckTests {
    static let model = try! Model(
        versionIdentifier: "unique-bounds-check",
        entities: [
            .uniqueItem
        ])

    private struct Stack {
        let writer: ObjectContext
        let store: FetchCountingStore

        /// A background context under the writer, as a three-tier container makes.
        func child() -> ObjectContext { ObjectContext(parent: writer) }

        /// Saves `keys` through a child and the writer.
        func saveThroughWriter(_ keys: some Sequence<Int64>) throws {
            let child = child()
            try child.insertItems(keys)
            try child.save()
            try writer.save()
        }
    }

    private func stack(_ scheme: String) throws -> Stack {
        let coordinator = StoreCoordinator(model: Self.model)
        let directory = TemporaryDirectory()
        let url =
            switch scheme {
            case "sqlite": StoreURL(scheme: "sqlite", location: directory.file("items.sqlite"))
            case "lmdb": StoreURL(scheme: "lmdb", location: directory.file("items.lmdb"))
            default: StoreURL("memory:")!
            }
        let store = FetchCountingStore(
            try BuiltInBackends.registry.open(url, model: Self.model), keepingCapabilities: true)
        try coordinator.addStore(store)
        return Stack(writer: ObjectContext(coordinator: coordinator), store: store)
    }

    @Test(arguments: ["sqlite", "lmdb"])
    func newKeysOutsideTheStoredOnesAskTheStoreNothing(_ scheme: String) throws {
        let stack = try stack(scheme)
        // An empty store: a first import.
        #expect(try stack.store.fetches { try stack.saveThroughWriter(0..<200) } == 0)
        // Keys above and below every stored one.
        #expect(try stack.store.fetches { try stack.saveThroughWriter(200..<400) } == 0)
        #expect(try stack.store.fetches { try stack.saveThroughWriter(-300..<0) } == 0)
        let reader = ObjectContext(coordinator: stack.writer.coordinator)
        #expect(try reader.count(FetchRequest(entityName: "Item")) == 700)
    }

    @Test(arguments: ["sqlite", "lmdb", "memory"])
    func collisionsAtTheEndsAndBetweenAreReported(_ scheme: String) throws {
        let stack = try stack(scheme)
        try stack.saveThroughWriter([10, 20, 30])
        let child = stack.child()
        // 100 free keys around the stored ones, then the least, one between, the greatest.
        let free = Array(Int64(1_000)..<1_095) + [Int64.min, 5, 25, 31, .max]
        let taken: [Int64] = [10, 20, 30]
        let objects = try child.insertItems(free + taken)
        let error = #expect(throws: StrataError.self) { try child.save() }
        #expect(error?.code == .validationFailed)
        let failed = Set((error?.validationFailures ?? []).map(\.objectID))
        #expect(failed == Set(objects.suffix(taken.count).map(\.objectID)))
        #expect(
            (error?.validationFailures ?? []).allSatisfy { $0.reason.contains("is already used by") },
            "\(error?.validationFailures ?? [])")
        // Nothing reached the writer; the child keeps its objects.
        #expect(!stack.writer.hasChanges)
        #expect(child.insertedObjects.count == free.count + taken.count)
    }

    @Test(arguments: ["sqlite", "lmdb"])
    func theExtremeKeysAreInsideTheirOwnBounds(_ scheme: String) throws {
        let stack = try stack(scheme)
        try stack.saveThroughWriter([.min, .max])
        let child = stack.child()
        let objects = try child.insertItems(Array(Int64(-50)..<50) + [.min, .max])
        let error = #expect(throws: StrataError.self) { try child.save() }
        #expect(Set((error?.validationFailures ?? []).map(\.objectID)) == Set(objects.suffix(2).map(\.objectID)))
    }

    @Test(arguments: ["sqlite", "lmdb"])
    func aChangedKeyMovingOntoAStoredOneIsReported(_ scheme: String) throws {
        let stack = try stack(scheme)
        try stack.saveThroughWriter(0..<100)
        let child = stack.child()
        let items = try child.fetch(FetchRequest(entityName: "Item", sorts: [Sort("key")]))
        // 60 keys move above every stored one; one moves onto 99, which the last item keeps.
        for item in items.prefix(60) {
            item["key"] = .integer(try item.value(for: "key", as: Int64.self) + 1_000)
        }
        items[60]["key"] = .integer(99)
        let error = #expect(throws: StrataError.self) { try child.save() }
        #expect((error?.validationFailures ?? []).map(\.objectID) == [items[60].objectID])
        // Moved off it in the same save, 99 is free.
        items[99]["key"] = .integer(-1)
        try child.save()
        try stack.writer.save()
    }
}
