import Strata
import StrataTestSupport
import Testing

/// A store whose key values read back as another value than the one compared (as a decimal
/// stored as a double can): each snapshot a fetch returns has its `key` offset by a half.
private final class ShiftedKeyStore: WrappingStore {
    let inner: any PersistentStore

    init(_ inner: any PersistentStore) { self.inner = inner }

    func fetch(_ request: FetchRequest) throws -> FetchResult {
        guard request.resultType == .snapshots else { return try inner.fetch(request) }
        return .snapshots(
            try inner.fetch(request).snapshots().map { snapshot in
                var shifted = snapshot
                if case .double(let key) = shifted.attributes[0] { shifted.attributes[0] = .double(key + 0.5) }
                return shifted
            })
    }
}

/// The unique-constraint check of a save asks the store about new and changed values in
/// batches: the number of fetches a save makes does not grow with the objects saved, and an
/// update that leaves the constrained values alone makes none. The failures stay the same.
@Suite struct UniqueCheckFetchCountTests {
    static let model = try! Model(
        versionIdentifier: "unique-check",
        entities: [
            .uniqueItem,
            Entity(
                "Seat",
                attributes: [Attribute("row", .integer64), Attribute("number", .integer64)],
                uniqueConstraints: [["row", "number"]]),
        ])

    private func context(_ scheme: String) throws -> (ObjectContext, FetchCountingStore) {
        let coordinator = StoreCoordinator(model: Self.model)
        let url =
            scheme == "sqlite"
            ? StoreURL(scheme: "sqlite", location: TemporaryDirectory().file("items.sqlite")) : StoreURL("memory:")!
        let store = FetchCountingStore(try BuiltInBackends.registry.open(url, model: Self.model))
        try coordinator.addStore(store)
        return (ObjectContext(coordinator: coordinator), store)
    }

    /// The fetches `body` makes the store answer.

    @Test(arguments: ["memory", "sqlite"])
    func savingInsertsFetchesPerBatchNotPerObject(_ scheme: String) throws {
        let (context, store) = try context(scheme)
        let items = try context.insertItems(0..<1_000)
        #expect(try store.fetches { try context.save() } <= 3)
        for item in items { item["note"] = "changed" }
        #expect(try store.fetches { try context.save() } == 0)
        for item in items.prefix(10) { try item.set(try item.value(for: "key", as: Int64.self) + 10_000, for: "key") }
        #expect(try store.fetches { try context.save() } == 1)
    }

    @Test func aChildContextAndItsParentEachFetchPerBatch() throws {
        let (writer, store) = try context("memory")
        let background = ObjectContext(parent: writer)
        _ = try background.insertItems(0..<1_000)
        #expect(try store.fetches { try background.save() } <= 3)
        #expect(try store.fetches { try writer.save() } <= 3)
        #expect(try writer.count(FetchRequest(entityName: "Item")) == 1_000)
    }

    @Test(arguments: ["memory", "sqlite"])
    func batchedCheckReportsEveryCollisionAsBefore(_ scheme: String) throws {
        let (context, _) = try context(scheme)
        let stored = try context.insertItems(0..<1_200)
        try context.save()
        // Over a thousand new values (several batches) with two collisions with the store and
        // one within the context, and a stored object moved to a free key.
        let late = try context.insertItems(1_100..<1_101)[0]
        let early = try context.insertItems(5..<6)[0]
        let fresh = try context.insertItems(2_000..<3_100)
        fresh[1]["key"] = 2_000
        stored[0]["key"] = 9_000
        let error = #expect(throws: StrataError.self) { try context.save() }
        let reasons = Dictionary(
            uniqueKeysWithValues: (error?.validationFailures ?? []).map { ($0.objectID, $0.reason) })
        #expect(reasons.count == 3)
        #expect(
            reasons[late.objectID]
                == "1100 is already used by \(stored[1_100].objectID) in the store; 'Item' requires it to be unique")
        #expect(reasons[early.objectID]?.contains("already used by \(stored[5].objectID) in the store") == true)
        let duplicate = reasons[fresh[0].objectID] ?? reasons[fresh[1].objectID]
        #expect(duplicate?.contains("2000 is also used by") == true)
        // Freeing the values in the same save is fine: a deleted holder and a moved one.
        context.delete(stored[1_100])
        stored[5]["key"] = 5_000
        fresh[1]["key"] = 2_001
        try context.save()
    }

    @Test func aHolderThatReadsBackAsAnotherValueIsStillFound() throws {
        let model = try Model(
            versionIdentifier: "shifted",
            entities: [Entity("Gauge", attributes: [Attribute("key", .double)], uniqueConstraints: [["key"]])])
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addStore(ShiftedKeyStore(try BuiltInBackends.registry.open("memory:", model: model)))
        let context = ObjectContext(coordinator: coordinator)
        let stored = try context.insert("Gauge")
        stored["key"] = 1.0
        try context.save()
        let again = try context.insert("Gauge")
        again["key"] = 1.0
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(
            error?.validationFailures.map(\.reason)
                == ["1.0 is already used by \(stored.objectID) in the store; 'Gauge' requires it to be unique"])
    }

    @Test(arguments: ["memory", "sqlite"])
    func compoundConstraintsAreCheckedInBatches(_ scheme: String) throws {
        let (context, store) = try context(scheme)
        for row in Int64(0)..<30 {
            for number in Int64(0)..<30 {
                let seat = try context.insert("Seat")
                seat["row"] = .integer(row)
                seat["number"] = .integer(number)
            }
        }
        #expect(try store.fetches { try context.save() } <= 5)
        let taken = try context.insert("Seat")
        taken["row"] = 3
        taken["number"] = 4
        let free = try context.insert("Seat")
        free["row"] = 3
        free["number"] = 40
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.validationFailures.map(\.objectID) == [taken.objectID])
        #expect(error?.validationFailures.first?.property == "row,number")
        #expect(error?.validationFailures.first?.reason.hasPrefix("3, 4 is already used by") == true)
    }
}
