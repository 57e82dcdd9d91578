import Foundation
import Strata
import StrataCore
import StrataTestSupport
import Synchronization
import Testing

/// A fetch is checked against the model once on its way from the caller to the store, whatever
/// path it takes: a store directly, the coordinator, a container's store, a context with or
/// without pending changes. Counted through the validator's package hook.
@Suite struct FetchValidationCountTests {
    static let model = try! Model(
        versionIdentifier: "count",
        entities: [
            Entity("Note", attributes: [Attribute("text", .string), Attribute("rank", .integer64)])
        ])

    /// How many requests the validator checked while `body` ran (in this task).
    private func validations<T>(_ body: () throws -> T) rethrows -> (count: Int, result: T) {
        let counter = Atomic<Int>(0)
        PredicateValidator.observers.add(1, ordering: .relaxed)
        defer { PredicateValidator.observers.subtract(1, ordering: .relaxed) }
        return try withExtendedLifetime(counter) {
            let count: @Sendable (FetchRequest) -> Void = { _ in counter.add(1, ordering: .relaxed) }
            let result = try PredicateValidator.$requestObserver.withValue(count) { try body() }
            return (counter.load(ordering: .relaxed), result)
        }
    }

    /// A store of `scheme` with ten notes, its URL's directory removed at the end.
    private func withSeededStore(_ scheme: String, _ body: (any PersistentStore) throws -> Void) throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let location = scheme == "memory" ? "" : directory.appendingPathComponent("notes.\(scheme)").path
        let store = try BuiltInBackends.registry.open(StoreURL(scheme: scheme, location: location), model: Self.model)
        defer { try? store.close() }
        let ids = try store.obtainPermanentIDs(for: "Note", count: 10)
        try store.save(
            SaveRequest(
                inserts: ids.enumerated().map { i, id in
                    Snapshot(
                        objectID: id, version: 0, attributes: [.string("note \(i)"), .integer(Int64(i))],
                        relationships: [])
                }))
        try body(store)
    }

    static let schemes = ["memory", "sqlite", "lmdb", "xml"]

    static func filtered() throws -> FetchRequest {
        FetchRequest(
            entityName: "Note", predicate: try ObjectPredicate(format: "rank >= 3"), sorts: [Sort("text")], limit: 4)
    }

    @Test(arguments: schemes)
    func aRequestPassedStraightToAStoreIsCheckedOnce(_ scheme: String) throws {
        try withSeededStore(scheme) { store in
            let (native, answer) = try validations { try store.fetch(Self.filtered()) }
            #expect(native == 1)
            #expect(try answer.objectIDs().count == 4)
            let (inMemory, reference) = try validations { try store.fetchInMemory(Self.filtered()) }
            #expect(inMemory == 1)
            #expect(answer == reference)
        }
    }

    @Test(arguments: schemes)
    func aRequestTheCoordinatorCheckedIsNotCheckedAgainByTheStore(_ scheme: String) throws {
        try withSeededStore(scheme) { store in
            let coordinator = StoreCoordinator(model: Self.model)
            try coordinator.addStore(store)
            let (count, answer) = try validations { try coordinator.fetch(Self.filtered()) }
            #expect(count == 1)
            #expect(try answer.objectIDs().count == 4)
            let checked = try Self.filtered().validated(for: Self.model)
            #expect(try validations { try store.fetch(checked) }.count == 0)
            #expect(try validations { try store.fetchInMemory(checked) }.count == 0)
        }
    }

    @Test func aChangedRequestIsCheckedAgain() throws {
        var request = try Self.filtered().validated(for: Self.model)
        #expect(request.isValidated(for: Self.model))
        #expect(request == (try Self.filtered()), "the mark is no part of equality")
        request.sorts = [Sort("rank")]
        #expect(!request.isValidated(for: Self.model))
        let other = try Model(
            versionIdentifier: "other", entities: [Entity("Note", attributes: [Attribute("text", .string)])])
        let checked = try Self.filtered().validated(for: Self.model)
        #expect(!checked.isValidated(for: other))
        let error = #expect(throws: StrataError.self) { try checked.validated(for: other) }
        #expect(error?.code == .unknownKey)
    }

    @Test(arguments: schemes)
    func aContextFetchIsCheckedOnceWithOrWithoutPendingChanges(_ scheme: String) throws {
        try withSeededStore(scheme) { store in
            let coordinator = StoreCoordinator(model: Self.model)
            try coordinator.addStore(store)
            let context = ObjectContext(coordinator: coordinator)
            #expect(try validations { try context.fetch(Self.filtered()) }.count == 1)
            #expect(try validations { try context.fetchObjectIDs(Self.filtered()) }.count == 1)
            #expect(try validations { try context.count(Self.filtered()) }.count == 1)
            let note = try context.insert("Note")
            note["text"] = .string("a pending note")
            note["rank"] = .integer(7)
            let (pending, objects) = try validations { try context.fetch(Self.filtered()) }
            #expect(pending == 1)
            #expect(objects.count == 4 && objects.contains { $0["text"] == .string("a pending note") })
            var dictionaries = try Self.filtered()
            dictionaries.propertiesToFetch = ["text"]
            let (shaped, rows) = try validations { try context.fetchDictionaries(dictionaries) }
            #expect(shaped == 1)
            #expect(rows.count == 4)
        }
    }

    @Test func aContainerStoreChecksEachFetchOnce() async throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = StoreURL(scheme: "sqlite", location: directory.appendingPathComponent("notes.sqlite").path)
        let container = PersistentContainer(
            name: "Notes", model: Self.model, storeDescriptions: [StoreDescription(url: url)], environment: [:])
        try await container.loadPersistentStores()
        let context = container.newBackgroundContext()
        let (count, answer) = try validations {
            try context.performAndWait { try context.fetchObjectIDs(Self.filtered()) }
        }
        #expect(count == 1)
        #expect(answer.isEmpty)
        #expect(try validations { try container.coordinator.fetch(Self.filtered()) }.count == 1)
    }
}
