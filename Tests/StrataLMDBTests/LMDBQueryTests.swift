import Foundation
import StrataCore
import StrataLMDB
import Testing

@Suite("LMDB store: native queries")
struct LMDBQueryTests {
    /// A store with 40 employees aged 0...39 (names "e0"...), half with a department.
    private func populated(_ body: (LMDBStore, [ObjectID], ObjectID, Model) throws -> Void) throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let model = try companyModel()
        let store = try openStore(path)
        defer { try? store.close() }
        let d = try store.obtainPermanentIDs(for: "Department", count: 1)[0]
        let ids = try store.obtainPermanentIDs(for: "Employee", count: 40)
        var inserts: [Snapshot] = []
        for (i, id) in ids.enumerated() {
            var snapshot = employee(
                id, name: "e\(i)", age: Int64((i * 7) % 40), department: i % 2 == 0 ? d : nil, model: model)
            if i % 5 == 0 { snapshot.attributes[10] = .null } else { snapshot.attributes[10] = .integer(Int64(i % 3)) }
            inserts.append(snapshot)
        }
        inserts.append(
            department(d, name: "d", employees: stride(from: 0, to: 40, by: 2).map { ids[$0] }, model: model))
        try store.save(SaveRequest(inserts: inserts))
        try body(store, ids, d, model)
    }

    /// What the in-memory semantics give, computed by hand over all snapshots.
    private func expected(_ store: LMDBStore, _ filter: (Snapshot) -> Bool) throws -> [ObjectID] {
        try store.fetch(FetchRequest(entityName: "Employee")).snapshots().filter(filter).map(\.objectID)
    }

    @Test func indexedRangeScansMatchAFullEvaluation() throws {
        try populated { store, _, _, _ in
            func age(_ s: Snapshot) -> Int64 {
                if case .integer(let v) = s.attributes[1] { return v }
                return -1
            }
            let cases: [(ObjectPredicate, (Snapshot) -> Bool)] = [
                (try ObjectPredicateFixture.compare("age", .less, .integer(10)), { age($0) < 10 }),
                (try ObjectPredicateFixture.compare("age", .greaterOrEqual, .integer(35)), { age($0) >= 35 }),
                (try ObjectPredicateFixture.compare("age", .equal, .integer(14)), { age($0) == 14 }),
                (
                    .comparison(
                        .init(.keyPath("age"), .between, .list([.constant(.integer(5)), .constant(.integer(8))]))),
                    { (5...8).contains(age($0)) }
                ),
                (
                    .comparison(.init(.keyPath("age"), .in, .list([.constant(.integer(3)), .constant(.integer(30))]))),
                    { [3, 30].contains(age($0)) }
                ),
                (
                    .comparison(.init(.keyPath("name"), .beginsWith, .constant(.string("e1")))),
                    { String(describing: $0.attributes[0]).hasPrefix("\"e1") }
                ),
            ]
            for (predicate, filter) in cases {
                let request = FetchRequest(entityName: "Employee", predicate: predicate)
                let wanted = try expected(store, filter)
                #expect(try store.fetch(request).objectIDs() == wanted, "\(predicate)")
            }
        }
    }

    @Test func nullSemanticsFollowThePredicateRules() throws {
        try populated { store, _, _, _ in
            let isNull = ObjectPredicate.comparison(.init(.keyPath("level"), .equal, .constant(.null)))
            let nulls = try expected(store) { $0.attributes[10].isNull }
            #expect(try store.fetch(FetchRequest(entityName: "Employee", predicate: isNull)).objectIDs() == nulls)
            let notOne = ObjectPredicate.comparison(.init(.keyPath("level"), .notEqual, .constant(.integer(1))))
            let notOnes = try expected(store) { $0.attributes[10] != .integer(1) }
            #expect(
                try store.fetch(FetchRequest(entityName: "Employee", predicate: notOne)).objectIDs() == notOnes,
                "!= is true when exactly one side is nil")
            let less = ObjectPredicate.comparison(.init(.keyPath("level"), .less, .constant(.integer(2))))
            let lessers = try expected(store) { $0.attributes[10] == .integer(0) || $0.attributes[10] == .integer(1) }
            #expect(
                try store.fetch(FetchRequest(entityName: "Employee", predicate: less)).objectIDs() == lessers,
                "ordering with nil is false")
            let lessThanNil = ObjectPredicate.comparison(.init(.keyPath("level"), .lessOrEqual, .constant(.null)))
            #expect(try store.fetch(FetchRequest(entityName: "Employee", predicate: lessThanNil)).objectIDs().isEmpty)
        }
    }

    @Test func toOneLookupsUseTheRelationshipIndex() throws {
        try populated { store, ids, d, _ in
            let inDepartment = ObjectPredicate.comparison(.init(.keyPath("department"), .equal, .objectID(d)))
            let request = FetchRequest(entityName: "Employee", predicate: inDepartment)
            let evens = stride(from: 0, to: 40, by: 2).map { ids[$0] }
            let found = try store.fetch(request).objectIDs()
            #expect(found == evens)
            let none = ObjectPredicate.comparison(.init(.keyPath("department"), .equal, .constant(.null)))
            let odds = stride(from: 1, to: 40, by: 2).map { ids[$0] }
            let unassigned = try store.fetch(FetchRequest(entityName: "Employee", predicate: none)).objectIDs()
            #expect(unassigned == odds)
        }
    }

    @Test func sortsLimitsOffsetsAndResultTypesAreExact() throws {
        try populated { store, ids, _, _ in
            let request = FetchRequest(
                entityName: "Employee", sorts: [.descending("level"), .ascending("age")], limit: 7, offset: 3)
            let all = try store.fetch(FetchRequest(entityName: "Employee")).snapshots()
            let manual = all.sorted { a, b in
                let la = a.attributes[10]
                let lb = b.attributes[10]
                if la != lb {
                    switch (la, lb) {
                    case (.null, _): return false
                    case (_, .null): return true
                    case (.integer(let x), .integer(let y)): return x > y
                    default: return false
                    }
                }
                if a.attributes[1] != b.attributes[1], case .integer(let x) = a.attributes[1],
                    case .integer(let y) = b.attributes[1]
                {
                    return x < y
                }
                return a.objectID < b.objectID
            }
            #expect(try store.fetch(request).objectIDs() == Array(manual[3..<10]).map(\.objectID))
            #expect(
                try store.fetch(FetchRequest(entityName: "Employee", limit: 5, offset: 38, resultType: .count)).count()
                    == 2)
            #expect(
                try store.fetch(FetchRequest(entityName: "Employee", limit: 2, offset: 1, resultType: .objectIDs))
                    .objectIDs() == [ids[1], ids[2]])
            let byID = FetchRequest(
                entityName: "Employee",
                objectIDs: [
                    ids[5], ids[2], ids[5], ObjectID(entityName: "Employee", storeIdentifier: "other", primaryKey: 3),
                ])
            #expect(try store.fetch(byID).objectIDs() == [ids[2], ids[5]])
        }
    }

    @Test func everyRequestIsAnsweredInStoreWithTheEvaluatorsAnswer() throws {
        try populated { store, ids, d, _ in
            let requests: [FetchRequest] = [
                FetchRequest(
                    entityName: "Employee",
                    predicate: .comparison(
                        .init(.keyPath("name"), .equal, .constant(.string("E1")), options: .caseInsensitive))),
                FetchRequest(
                    entityName: "Employee",
                    predicate: .or([
                        .comparison(.init(.keyPath("age"), .less, .constant(.integer(3)))),
                        .not(.comparison(.init(.keyPath("level"), .equal, .constant(.null)))),
                    ])),
                FetchRequest(
                    entityName: "Employee",
                    predicate: .comparison(.init(.keyPath("department.name"), .equal, .constant(.string("d")))),
                    sorts: [.descending("name")], limit: 4),
                FetchRequest(
                    entityName: "Employee",
                    predicate: .and([
                        .comparison(.init(.keyPath("age"), .greaterOrEqual, .constant(.double(20.5)))),
                        .comparison(.init(.keyPath("department"), .equal, .objectID(d))),
                    ]), resultType: .count),
                FetchRequest(
                    entityName: "Employee", sorts: [.ascending("department.name"), .descending("age")], offset: 5,
                    resultType: .dictionaries, propertiesToFetch: ["name", "department.name"]),
                FetchRequest(
                    entityName: "Employee",
                    predicate: .comparison(.init(.evaluatedObject, .in, .list([.objectID(ids[3]), .objectID(ids[1])])))),
                FetchRequest(
                    entityName: "Department",
                    predicate: .comparison(.init(.keyPath("employees"), .contains, .objectID(ids[2])))),
            ]
            for request in requests {
                let native = try store.fetch(request)
                let reference = try store.fetchInMemory(request)
                #expect(native == reference, "\(request)")
            }
        }
    }
}

/// Builds comparisons without the text parser.
enum ObjectPredicateFixture {
    static func compare(_ key: String, _ op: ObjectPredicate.Operator, _ value: Value) throws -> ObjectPredicate {
        .comparison(.init(.keyPath(PropertyPath(key)), op, .constant(value)))
    }
}
