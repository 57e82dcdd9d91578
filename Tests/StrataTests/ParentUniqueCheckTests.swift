import Strata
import StrataTestSupport
import Testing

/// In the default three-tier stack, a background context validates what it saves (its rules,
/// and its unique constraints against the stores), and the writer then saves what it took
/// without validating it again or asking the stores the same questions. Whenever the answer
/// could differ (a save went through the coordinator in between, another child pushed too, the
/// writer changed something or had changes of its own), the writer validates in full and
/// reports every failure as before.
@Suite struct ParentUniqueCheckTests {
    static let model = try! Model(
        versionIdentifier: "parent-unique-check",
        entities: [
            Entity(
                "Item",
                attributes: [
                    Attribute("key", .integer64),
                    Attribute("note", .string, isOptional: true, validation: AttributeValidation(maximumLength: 10)),
                ],
                uniqueConstraints: [["key"]])
        ])

    private struct Stack {
        let coordinator: StoreCoordinator
        let writer: ObjectContext
        let store: FetchCountingStore

        func storedKeys() throws -> [Int64] {
            let reader = ObjectContext(coordinator: coordinator)
            return try reader.fetch(FetchRequest(entityName: "Item", sorts: [Sort("key")])).map {
                try $0.value(for: "key", as: Int64.self)
            }
        }
    }

    private func stack(_ scheme: String) throws -> Stack {
        let coordinator = StoreCoordinator(model: Self.model)
        let url =
            scheme == "sqlite"
            ? StoreURL(scheme: "sqlite", location: TemporaryDirectory().file("items.sqlite")) : StoreURL("memory:")!
        let store = FetchCountingStore(try BuiltInBackends.registry.open(url, model: Self.model))
        try coordinator.addStore(store)
        return Stack(coordinator: coordinator, writer: ObjectContext(coordinator: coordinator), store: store)
    }

    private func reasons(of save: () throws -> Void) -> [String] {
        let error = #expect(throws: StrataError.self) { try save() }
        #expect(error?.code == .validationFailed)
        return (error?.validationFailures ?? []).map(\.reason)
    }

    @Test(arguments: ["memory", "sqlite"])
    func theWriterTakesTheChildsCheckOfWhatItPushed(_ scheme: String) throws {
        let stack = try stack(scheme)
        let background = ObjectContext(parent: stack.writer)
        let items = try background.insertItems(0..<1_000)
        #expect(try stack.store.fetches { try background.save() } > 0)
        #expect(try stack.store.fetches { try stack.writer.save() } == 0)
        #expect(try stack.storedKeys() == Array(0..<1_000))
        // Changed keys: the child asks, the writer does not.
        for item in items.prefix(10) { try item.set(try item.value(for: "key", as: Int64.self) + 5_000, for: "key") }
        #expect(try stack.store.fetches { try background.save() } > 0)
        #expect(try stack.store.fetches { try stack.writer.save() } == 0)
        #expect(try stack.storedKeys().suffix(10) == Array(5_000..<5_010))
    }

    @Test(arguments: ["memory", "sqlite"])
    func aSaveThroughTheCoordinatorInBetweenMakesTheWriterCheckAgain(_ scheme: String) throws {
        let stack = try stack(scheme)
        let background = ObjectContext(parent: stack.writer)
        try background.insertItems([1, 2])
        try background.save()
        // Another context of the coordinator takes key 2 first.
        let other = ObjectContext(coordinator: stack.coordinator)
        let holder = try other.insertItems([2])[0]
        try other.save()
        var failures: [String] = []
        #expect(stack.store.fetches { failures = reasons { try stack.writer.save() } } > 0)
        #expect(failures == ["2 is already used by \(holder.objectID) in the store; 'Item' requires it to be unique"])
        #expect(try stack.storedKeys() == [2])
    }

    @Test(arguments: ["memory", "sqlite"])
    func siblingsThatEachCheckedAloneAreCheckedTogether(_ scheme: String) throws {
        let stack = try stack(scheme)
        let first = ObjectContext(parent: stack.writer)
        let second = ObjectContext(parent: stack.writer)
        try first.insertItems([7])
        try second.insertItems([7, 8])
        try first.save()
        try second.save()
        let failures = reasons { try stack.writer.save() }
        #expect(failures.count == 1)
        #expect(failures.first?.hasPrefix("7 is also used by") == true)
        #expect(try stack.storedKeys() == [])
    }

    @Test(arguments: ["memory", "sqlite"])
    func aChangeInTheWriterAfterThePushIsChecked(_ scheme: String) throws {
        let stack = try stack(scheme)
        let stored = try stack.writer.insertItems([5])[0]
        try stack.writer.save()
        let background = ObjectContext(parent: stack.writer)
        let item = try background.insertItems([1])[0]
        try background.save()
        let pushed = try #require(stack.writer.registeredObject(for: item.objectID))
        pushed["key"] = 5
        #expect(
            reasons { try stack.writer.save() } == [
                "5 is already used by \(stored.objectID) in the store; 'Item' requires it to be unique"
            ])
        // Put back, the push saves (checked in full: the failed save used up the child's check).
        pushed["key"] = 1
        try stack.writer.save()
        #expect(try stack.storedKeys() == [1, 5])
    }

    @Test(arguments: ["memory", "sqlite"])
    func aRuleBrokenInTheWriterAfterThePushIsReported(_ scheme: String) throws {
        let stack = try stack(scheme)
        let background = ObjectContext(parent: stack.writer)
        let item = try background.insertItems([1])[0]
        item["note"] = "short"
        try background.save()
        let pushed = try #require(stack.writer.registeredObject(for: item.objectID))
        pushed["note"] = "far longer than ten characters"
        let error = #expect(throws: StrataError.self) { try stack.writer.save() }
        #expect(error?.code == .validationFailed)
        #expect(error?.validationFailures.map(\.property) == ["note"])
        #expect(try stack.storedKeys() == [])
        pushed["note"] = "short"
        try stack.writer.save()
        #expect(try stack.storedKeys() == [1])
    }

    @Test(arguments: ["memory", "sqlite"])
    func aWriterWithChangesOfItsOwnChecksEverything(_ scheme: String) throws {
        let stack = try stack(scheme)
        try stack.writer.insertItems([3])
        let background = ObjectContext(parent: stack.writer)
        try background.insertItems([3, 4])
        try background.save()
        var failures: [String] = []
        #expect(stack.store.fetches { failures = reasons { try stack.writer.save() } } > 0)
        #expect(failures.count == 1)
        #expect(failures.first?.hasPrefix("3 is also used by") == true)
    }
}
