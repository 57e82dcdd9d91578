import Strata
import StrataTestSupport
import Testing

/// A context on the coordinator leaves the collisions of the objects it inserts with stored
/// objects to a store that rejects them as it writes (SQLite's unique indexes): it asks the
/// store nothing before the write, and when the store refuses, it reports the same failures,
/// naming the same objects, as the check before the write did. Stores without that capability
/// are asked first, as before.
@Suite struct StoreEnforcedUniqueCheckTests {
    static let model = try! Model(
        versionIdentifier: "store-enforced-unique",
        entities: [
            .uniqueItem
        ])

    private func context(_ scheme: String) throws -> (ObjectContext, FetchCountingStore) {
        let coordinator = StoreCoordinator(model: Self.model)
        let url =
            scheme == "sqlite"
            ? StoreURL(scheme: "sqlite", location: TemporaryDirectory().file("items.sqlite")) : StoreURL("memory:")!
        let store = FetchCountingStore(
            try BuiltInBackends.registry.open(url, model: Self.model), keepingCapabilities: true)
        try coordinator.addStore(store)
        return (ObjectContext(coordinator: coordinator), store)
    }

    private func storedKeys(_ context: ObjectContext) throws -> [Int64] {
        let reader = ObjectContext(coordinator: context.coordinator)
        return try reader.fetch(FetchRequest(entityName: "Item", sorts: [Sort("key")])).map {
            try $0.value(for: "key", as: Int64.self)
        }
    }

    @Test func insertsIntoAnEnforcingStoreAskItNothingBeforeTheWrite() throws {
        let (context, store) = try context("sqlite")
        try context.insertItems(0..<1_000)
        #expect(try store.fetches { try context.save() } == 0)
        #expect(try storedKeys(context) == Array(0..<1_000))
    }

    @Test func aStoreWithoutTheCapabilityIsAskedFirst() throws {
        let (context, store) = try context("memory")
        try context.insertItems(0..<1_000)
        #expect(try store.fetches { try context.save() } > 0)
    }

    @Test(arguments: ["memory", "sqlite"])
    func aCollisionWithAStoredObjectIsReportedAsBeforeAndNothingIsWritten(_ scheme: String) throws {
        let (context, _) = try context(scheme)
        let stored = try context.insertItems([1, 2, 3])
        try context.save()
        let fresh = try context.insertItems([4, 2, 5])
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.code == .validationFailed)
        #expect(error?.validationFailures.map(\.objectID) == [fresh[1].objectID])
        #expect(
            error?.validationFailures.map(\.reason) == [
                "2 is already used by \(stored[1].objectID) in the store; 'Item' requires it to be unique"
            ])
        // The context is as it was: the three inserts are still pending, and the store unchanged.
        #expect(context.insertedObjects.count == 3)
        #expect(fresh.allSatisfy { $0.objectID.isTemporary })
        #expect(try storedKeys(context) == [1, 2, 3])
        fresh[1]["key"] = 6
        try context.save()
        #expect(try storedKeys(context) == [1, 2, 3, 4, 5, 6])
    }

    @Test(arguments: ["memory", "sqlite"])
    func aSaveThatFailsInMemoryStillReportsTheStoresCollisions(_ scheme: String) throws {
        let (context, _) = try context(scheme)
        let stored = try context.insertItems([1])[0]
        try context.save()
        let fresh = try context.insertItems([1, 7, 7])
        let error = #expect(throws: StrataError.self) { try context.save() }
        let reasons = (error?.validationFailures ?? []).map(\.reason)
        #expect(reasons.count == 2)
        #expect(
            reasons.contains("1 is already used by \(stored.objectID) in the store; 'Item' requires it to be unique"))
        #expect(reasons.contains { $0.hasPrefix("7 is also used by") })
        #expect(fresh.allSatisfy { $0.objectID.isTemporary })
    }

    @Test(arguments: ["memory", "sqlite"])
    func aValueFreedInTheSameSaveCanBeTaken(_ scheme: String) throws {
        let (context, _) = try context(scheme)
        let stored = try context.insertItems([1, 2])
        try context.save()
        context.delete(stored[0])
        stored[1]["key"] = 20
        try context.insertItems([1, 2])
        try context.save()
        #expect(try storedKeys(context) == [1, 2, 20])
    }

    /// The collision comes first, before the conflict (which a policy would resolve), as it
    /// did when the check asked the store before the write.
    @Test(arguments: [MergePolicy.error, .mergeByPropertyObjectTrump])
    func aCollisionUnderAMergePolicyIsAValidationFailureNotAConflict(_ policy: MergePolicy) throws {
        let (writer, _) = try context("sqlite")
        let stored = try writer.insertItems([1])[0]
        try writer.save()
        // Another context changes the stored object: this context's change to it is in conflict.
        let other = ObjectContext(coordinator: writer.coordinator)
        try other.existingObject(with: stored.objectID)["note"] = "theirs"
        try other.save()
        writer.mergePolicy = policy
        stored["note"] = "mine"
        let fresh = try writer.insertItems([1])[0]
        let error = #expect(throws: StrataError.self) { try writer.save() }
        #expect(error?.code == .validationFailed)
        #expect(error?.validationFailures.map(\.objectID) == [fresh.objectID])
        #expect(try storedKeys(writer) == [1])
        #expect(stored["note"] == "mine")
    }
}
