import Foundation
import Strata
import StrataCore
import StrataTestSupport
import Synchronization
import Testing

/// A fetch is checked against the model once on its way from the caller to the store, whatever
/// path it takes: a store directly, the coordinator, a container's store, a context with or
/// without pending changes; through a coordinator, once for each request shape (a repeated
/// fetch of the same shape is not checked again). Counted through the validator's package hook.
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
            // A new coordinator for each way of fetching, so that each one checks its shape anew.
            func context() throws -> ObjectContext {
                let coordinator = StoreCoordinator(model: Self.model)
                try coordinator.addStore(store)
                return ObjectContext(coordinator: coordinator)
            }
            let fetching = try context()
            #expect(try validations { try fetching.fetch(Self.filtered()) }.count == 1)
            #expect(try validations { try fetching.fetch(Self.filtered()) }.count == 0)
            let identifying = try context()
            #expect(try validations { try identifying.fetchObjectIDs(Self.filtered()) }.count == 1)
            #expect(try validations { try identifying.fetchObjectIDs(Self.filtered()) }.count == 0)
            let counting = try context()
            #expect(try validations { try counting.count(Self.filtered()) }.count == 1)
            #expect(try validations { try counting.count(Self.filtered()) }.count == 0)
            let changing = try context()
            let note = try changing.insert("Note")
            note["text"] = .string("a pending note")
            note["rank"] = .integer(7)
            let (pending, objects) = try validations { try changing.fetch(Self.filtered()) }
            #expect(pending == 1)
            #expect(objects.count == 4 && objects.contains { $0["text"] == .string("a pending note") })
            #expect(try validations { try changing.fetch(Self.filtered()) }.count == 0)
            var dictionaries = try Self.filtered()
            dictionaries.propertiesToFetch = ["text"]
            let (shaped, rows) = try validations { try changing.fetchDictionaries(dictionaries) }
            #expect(shaped == 1, "properties to fetch make another shape")
            #expect(rows.count == 4)
            #expect(try validations { try changing.fetchDictionaries(dictionaries) }.count == 0)
        }
    }

    @Test func aLoopOfLookupsByKeyChecksItsShapeOnce() throws {
        try withSeededStore("sqlite") { store in
            let coordinator = StoreCoordinator(model: Self.model)
            try coordinator.addStore(store)
            let writer = ObjectContext(coordinator: coordinator, name: "writer")
            let context = ObjectContext(parent: writer, name: "background")
            let (count, found) = try validations {
                try context.performAndWait {
                    try (0..<10).map { rank in
                        try context.fetch(
                            FetchRequest(entityName: "Note", predicate: .key("rank") == Int64(rank), limit: 1)
                        ).count
                    }
                }
            }
            #expect(count == 1)
            #expect(found == Array(repeating: 1, count: 10))
            let wrongKind = #expect(throws: StrataError.self) {
                try context.performAndWait {
                    try context.fetch(FetchRequest(entityName: "Note", predicate: .key("rank") == "7", limit: 1))
                }
            }
            #expect(wrongKind?.code == .invalidPredicate, "a constant of another kind is another shape, checked")
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
        #expect(try validations { try container.coordinator.fetch(Self.filtered()) }.count == 0, "a shape seen before")
        var other = try Self.filtered()
        other.sorts = [Sort("rank")]
        #expect(try validations { try container.coordinator.fetch(other) }.count == 1)
    }
}
