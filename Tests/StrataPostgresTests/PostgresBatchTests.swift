import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataPostgres

/// Batch updates and deletes change exactly the objects a fetch with their predicate finds,
/// whether SQL decides the predicate, only narrows it, or cannot express it.
@Suite(.enabled(if: PostgresTestServer.shouldRun, Comment(rawValue: PostgresTestServer.skipReason)))
struct PostgresBatchTests {
    static let predicates: [ObjectPredicate] = [
        .key("level") < 3,
        .key("name").beginsWith("e", [.caseInsensitive, .diacriticInsensitive]),
        .key("age") == .key("level"),
    ]

    @Test(arguments: predicates)
    func batchUpdateSetsValuesOnWhatAFetchFinds(_ predicate: ObjectPredicate) throws {
        let store = try PostgresQueryTests.openStore()
        defer { try? store.close() }
        _ = try PostgresQueryTests.seed(store, employees: 40)
        let request = FetchRequest(entityName: "Employee", predicate: predicate, resultType: .objectIDs)
        let expected = try store.fetchInMemory(request).objectIDs()
        let before = try store.lastHistoryToken()
        let result = try store.batchUpdate(
            entityName: "Employee", predicate: predicate, values: ["age": 99, "name": "moved"])
        #expect(result.objectIDs == expected)
        let entity = store.model.entity(named: "Employee")!
        for snapshot in try store.fetch(FetchRequest(entityName: "Employee")).snapshots() {
            let moved = expected.contains(snapshot.objectID)
            #expect(snapshot.version == (moved ? 2 : 1))
            #expect((snapshot.value(of: "name", in: entity) == "moved") == moved)
        }
        let history = try store.fetchHistory(HistoryRequest(after: before))
        #expect(history.count == (expected.isEmpty ? 0 : 1))
        #expect(Set(history.first?.changes.map(\.objectID) ?? []) == Set(expected))
    }

    @Test func batchUpdateChecksValuesAndChangesNothingOnFailure() throws {
        let store = try PostgresQueryTests.openStore()
        defer { try? store.close() }
        let seeded = try PostgresQueryTests.seed(store, employees: 10)
        for (values, code) in [
            (["nope": Value.integer(1)], StrataError.Code.unknownKey), (["age": "old"], .typeMismatch),
            (["level": nil], .missingValue),
        ] {
            let error = #expect(throws: StrataError.self) {
                try store.batchUpdate(entityName: "Employee", predicate: nil, values: values)
            }
            #expect(error?.code == code)
        }
        #expect(
            try store.fetch(FetchRequest(entityName: "Employee", objectIDs: [seeded.employees[0]])).snapshots()[0]
                .version == 1)
    }

    @Test(arguments: predicates + [.key("department.name") == "Eng"])
    func batchDeleteRemovesWhatAFetchFindsAndNullifiesInverses(_ predicate: ObjectPredicate) throws {
        let store = try PostgresQueryTests.openStore()
        defer { try? store.close() }
        _ = try PostgresQueryTests.seed(store, employees: 40)
        let expected = try store.fetchInMemory(
            FetchRequest(entityName: "Employee", predicate: predicate, resultType: .objectIDs)
        ).objectIDs()
        let departmentsBefore = try store.fetch(FetchRequest(entityName: "Department")).snapshots()
        let projectsBefore = try store.fetch(FetchRequest(entityName: "Project")).snapshots()
        let result = try store.batchDelete(entityName: "Employee", predicate: predicate)
        #expect(result.objectIDs == expected)
        let deleted = Set(expected)
        #expect(
            try store.fetch(FetchRequest(entityName: "Employee", resultType: .objectIDs)).objectIDs().allSatisfy {
                !deleted.contains($0)
            })
        for (entity, before) in [("Department", departmentsBefore), ("Project", projectsBefore)] {
            let after = try store.fetch(FetchRequest(entityName: entity)).snapshots()
            for (old, new) in zip(before, after) {
                guard case .toMany(let oldTargets) = old.relationships[0],
                    case .toMany(let newTargets) = new.relationships[0]
                else {
                    Issue.record("\(entity) has no to-many relationship")
                    continue
                }
                #expect(newTargets == oldTargets.filter { !deleted.contains($0) })
                #expect(new.version == old.version + (oldTargets.contains { deleted.contains($0) } ? 1 : 0))
            }
        }
    }
}
