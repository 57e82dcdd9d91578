import StrataCore
import Synchronization
import Testing

@testable import StrataInMemory

/// A save costs what it changes: deleting objects, and checking unique constraints on the objects
/// a save inserts or updates, visit a number of stored rows that does not grow with the table.
@Suite struct InMemorySaveCostTests {
    private static let entity = Entity(
        "Item",
        attributes: [
            Attribute("key", .integer64, isOptional: true), Attribute("code", .string, isOptional: true),
        ],
        uniqueConstraints: [["code"]],
        indexes: [Entity.Index(name: "byKey", properties: ["key"])])

    /// A store holding `count` objects with codes `c0`, `c1`, ..., and the index of `key` built
    /// (a fetch by key builds it), so that saves keep two indexes in step.
    private func makeStore(count: Int) throws -> (InMemoryStore, [ObjectID]) {
        let model = try Model(entities: [Self.entity])
        let opened = try InMemoryBackend().open(
            StoreURL(scheme: "memory", location: ""), model: model, options: StoreOptions())
        let store = try #require(opened as? InMemoryStore)
        let ids = try store.obtainPermanentIDs(for: "Item", count: count)
        try store.save(SaveRequest(inserts: ids.enumerated().map { item(id: $1, key: $0, code: "c\($0)") }))
        let byKey = ObjectPredicate.comparison(.init(.keyPath(PropertyPath("key")), .equal, .constant(.integer(1))))
        _ = try store.fetch(FetchRequest(entityName: "Item", predicate: byKey))
        return (store, ids)
    }

    private func item(id: ObjectID, key: Int, code: String) -> Snapshot {
        var snapshot = Snapshot(objectID: id, entity: Self.entity)
        snapshot.attributes = [.integer(Int64(key)), .string(code)]
        return snapshot
    }

    /// The rows `body` makes the store's saves visit.
    private func visits(_ store: InMemoryStore, _ body: () throws -> Void) rethrows -> Int {
        let before = store.visitedRowCount.load(ordering: .relaxed)
        try body()
        return store.visitedRowCount.load(ordering: .relaxed) - before
    }

    /// `count` of `ids`, spread over the table in a scrambled order (as a context hands deletes).
    private func scattered(_ ids: [ObjectID], count: Int) -> [ObjectID] {
        (0..<count).map { ids[($0 * 7_919) % ids.count] }
    }

    @Test(arguments: [2_000, 20_000])
    func deletingObjectsVisitsNoRowBeyondThem(tableSize: Int) throws {
        let (store, ids) = try makeStore(count: tableSize)
        let doomed = scattered(ids, count: 500)
        let visited = try visits(store) {
            try store.save(SaveRequest(deletes: doomed.map { .init($0, expectedVersion: 1) }))
        }
        #expect(visited <= doomed.count)
        let remaining = try store.fetch(FetchRequest(entityName: "Item")).snapshots()
        #expect(remaining.count == tableSize - doomed.count)
        #expect(Set(remaining.map(\.objectID)).isDisjoint(with: doomed))
    }

    @Test func deletingOneObjectPerSaveVisitsNoRowBeyondIt() throws {
        let (store, ids) = try makeStore(count: 20_000)
        let doomed = scattered(ids, count: 200)
        let visited = try visits(store) {
            for id in doomed { try store.save(SaveRequest(deletes: [.init(id, expectedVersion: 1)])) }
        }
        #expect(visited <= doomed.count)
        #expect(try store.fetch(FetchRequest(entityName: "Item")).snapshots().count == 20_000 - doomed.count)
    }

    @Test(arguments: [2_000, 20_000])
    func uniqueCheckOfOneInsertVisitsOnlyItsMatches(tableSize: Int) throws {
        let (store, _) = try makeStore(count: tableSize)
        let fresh = try store.obtainPermanentIDs(for: "Item", count: 2)
        let accepted = try visits(store) {
            try store.save(SaveRequest(inserts: [item(id: fresh[0], key: -1, code: "new")]))
        }
        #expect(accepted <= 1)
        var refusal: StrataError?
        let refused = visits(store) {
            do {
                try store.save(SaveRequest(inserts: [item(id: fresh[1], key: -2, code: "c\(tableSize / 2)")]))
            } catch let error as StrataError {
                refusal = error
            } catch {}
        }
        #expect(refusal?.code == .uniqueConstraint)
        #expect(refused <= 1)
    }

    @Test func savingOneInsertAtATimeVisitsAFewRowsPerSave() throws {
        let (store, _) = try makeStore(count: 20_000)
        let fresh = try store.obtainPermanentIDs(for: "Item", count: 100)
        let visited = try visits(store) {
            for (offset, id) in fresh.enumerated() {
                try store.save(SaveRequest(inserts: [item(id: id, key: offset, code: "n\(offset)")]))
            }
        }
        #expect(visited <= fresh.count)
    }

    @Test func uniqueCheckStillSeesUpdatesAndDeletesOfTheSameSave() throws {
        let (store, ids) = try makeStore(count: 1_000)
        let stored = try store.fetch(FetchRequest(entityName: "Item", objectIDs: [ids[3], ids[4]])).snapshots()
        // Taking the code of an object deleted by the same save is allowed.
        var taker = stored[0]
        taker.attributes[1] = .string("c4")
        try store.save(
            SaveRequest(
                updates: [.init(taker, expectedVersion: taker.version)],
                deletes: [.init(ids[4], expectedVersion: 1)]))
        // Two objects swapping codes in one save is allowed; taking a stored one is not.
        let pair = try store.fetch(FetchRequest(entityName: "Item", objectIDs: [ids[5], ids[6]])).snapshots()
        var first = pair[0]
        var second = pair[1]
        first.attributes[1] = .string("c6")
        second.attributes[1] = .string("c5")
        try store.save(
            SaveRequest(updates: [.init(first, expectedVersion: 1), .init(second, expectedVersion: 1)]))
        var thief = try #require(try store.snapshot(for: ids[7]))
        thief.attributes[1] = .string("c8")
        #expect(throws: StrataError.self) {
            try store.save(SaveRequest(updates: [.init(thief, expectedVersion: thief.version)]))
        }
    }
}
