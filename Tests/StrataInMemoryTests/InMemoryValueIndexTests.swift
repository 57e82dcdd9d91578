import StrataCore
import Testing

@testable import StrataInMemory

/// Fetches by an indexed or unique attribute read the matching rows only, and answer exactly as
/// the reference evaluator does, through inserts, updates that change the value, and deletes.
@Suite struct InMemoryValueIndexTests {
    private static let entity = Entity(
        "Item",
        attributes: [
            Attribute("key", .integer64, isOptional: true), Attribute("code", .string, isOptional: true),
            Attribute("weight", .double, isOptional: true),
        ],
        uniqueConstraints: [["code"]],
        indexes: [Entity.Index(name: "byKey", properties: ["key"])])

    private func makeStore(count: Int) throws -> InMemoryStore {
        let model = try Model(entities: [Self.entity])
        let opened = try InMemoryBackend().open(
            StoreURL(scheme: "memory", location: ""), model: model, options: StoreOptions())
        let store = try #require(opened as? InMemoryStore)
        let ids = try store.obtainPermanentIDs(for: "Item", count: count)
        let inserts = ids.enumerated().map { offset, id in
            var snapshot = Snapshot(objectID: id, entity: Self.entity)
            // Every tenth key is nil; the others repeat every 5,000 objects.
            snapshot.attributes = [
                offset % 10 == 9 ? .null : .integer(Int64(offset % 5_000)), .string("c\(offset)"),
                .double(Double(offset % 7)),
            ]
            return snapshot
        }
        try store.save(SaveRequest(inserts: inserts))
        return store
    }

    private func comparison(_ key: String, _ op: ObjectPredicate.Operator, _ rhs: ObjectPredicate.Operand)
        -> ObjectPredicate
    {
        .comparison(.init(.keyPath(PropertyPath(key)), op, rhs))
    }

    /// The snapshots `predicate` fetches natively and by the reference evaluator, and how many
    /// rows the native fetch examined.
    private func answers(_ store: InMemoryStore, _ predicate: ObjectPredicate) throws -> (
        native: [Snapshot], reference: [Snapshot], examined: Int
    ) {
        let request = FetchRequest(entityName: "Item", predicate: predicate)
        let before = store.examinedSnapshotCount.load(ordering: .relaxed)
        let native = try store.fetch(request).snapshots()
        let examined = store.examinedSnapshotCount.load(ordering: .relaxed) - before
        return (native, try store.fetchInMemory(request).snapshots(), examined)
    }

    @Test func lookupByIndexedKeyExaminesOnlyItsMatches() throws {
        let store = try makeStore(count: 10_000)
        let hit = try answers(store, comparison("key", .equal, .constant(.integer(42))))
        #expect(hit.native.count == 2)
        #expect(hit.native == hit.reference)
        #expect(hit.examined == 2)
        let unique = try answers(store, comparison("code", .equal, .constant(.string("c1234"))))
        #expect(unique.native.count == 1 && unique.native == unique.reference && unique.examined == 1)
        let miss = try answers(store, comparison("key", .equal, .constant(.integer(-1))))
        #expect(miss.native.isEmpty && miss.reference.isEmpty && miss.examined == 0)
        let list = try answers(
            store, comparison("key", .in, .list([.constant(.integer(1)), .constant(.integer(2)), .constant(.null)])))
        #expect(list.native == list.reference && list.native.count == 1_004 && list.examined == 1_004)
        let anded = try answers(
            store,
            .and([
                comparison("weight", .greater, .constant(.double(2))),
                comparison("key", .equal, .constant(.integer(3))),
            ]))
        #expect(anded.native == anded.reference && anded.examined == 2)
    }

    @Test func answersEqualTheReferenceWhereTheIndexMustNotDecide() throws {
        let store = try makeStore(count: 2_000)
        let predicates: [ObjectPredicate] = [
            comparison("key", .equal, .constant(.null)),
            comparison("key", .equal, .constant(.double(1.0))),
            comparison("key", .in, .list([.constant(.double(1.0)), .constant(.integer(2))])),
            .comparison(.init(.keyPath("code"), .equal, .constant(.string("C7")), options: [.caseInsensitive])),
            .comparison(.init(.constant(.integer(5)), .equal, .keyPath("key"))),
            .or([comparison("key", .equal, .constant(.integer(5))), comparison("code", .equal, .constant("c9"))]),
            .not(comparison("key", .equal, .constant(.integer(5)))),
        ]
        for predicate in predicates {
            let answer = try answers(store, predicate)
            #expect(answer.native == answer.reference, "\(predicate)")
            #expect(!answer.native.isEmpty, "\(predicate)")
        }
    }

    @Test func indexFollowsUpdatesAndDeletes() throws {
        let store = try makeStore(count: 10_000)
        let byKey = { (key: Int64) in self.comparison("key", .equal, .constant(.integer(key))) }
        let before = try answers(store, byKey(7)).native
        #expect(before.count == 2)
        // Move the first object from key 7 to 9_999 and a nil key to 7; delete the second one.
        var moved = before[0]
        moved.attributes[0] = .integer(9_999)
        let nilKeyed = try #require(try answers(store, comparison("key", .equal, .constant(.null))).native.first)
        var filled = nilKeyed
        filled.attributes[0] = .integer(7)
        try store.save(
            SaveRequest(
                updates: [
                    .init(moved, expectedVersion: moved.version), .init(filled, expectedVersion: filled.version),
                ],
                deletes: [.init(before[1].objectID, expectedVersion: before[1].version)]))
        for predicate in [byKey(7), byKey(9_999), comparison("key", .equal, .constant(.null))] {
            let answer = try answers(store, predicate)
            #expect(answer.native == answer.reference, "\(predicate)")
        }
        let seven = try answers(store, byKey(7))
        #expect(seven.native.map(\.objectID) == [nilKeyed.objectID] && seven.examined == 1)
        let high = try answers(store, byKey(9_999))
        #expect(high.native.map(\.objectID) == [moved.objectID] && high.examined == 1)
        let batch = try store.batchDelete(entityName: "Item", predicate: byKey(9_999))
        #expect(batch.objectIDs == [moved.objectID])
        let gone = try answers(store, byKey(9_999))
        #expect(gone.native.isEmpty && gone.reference.isEmpty && gone.examined == 0)
        _ = try store.batchUpdate(entityName: "Item", predicate: byKey(8), values: ["key": .integer(123_456)])
        let updated = try answers(store, byKey(123_456))
        #expect(updated.native == updated.reference && updated.native.count == 2 && updated.examined == 2)
    }
}
