import Foundation
import StrataCore
import Testing

@testable import StrataSQLite

@Suite struct SQLiteBatchTests {
    @Test func batchDeleteRemovesMatchesNullifiesInversesAndBumpsTheirVersions() throws {
        let seeded = try SQLiteQueryTests.seed()
        let store = seeded.store
        // Employees 0, 1 and 6 are in department 0; 0, 1, 3 in project 0; 1 in project 1.
        let result = try store.batchDelete(
            entityName: "Employee", predicate: try ObjectPredicate(format: "age >= 30 AND age <= 41"))
        #expect(result.objectIDs == [seeded.employees[0], seeded.employees[1], seeded.employees[7]])
        let remaining = try store.fetch(FetchRequest(entityName: "Employee", resultType: .objectIDs)).objectIDs()
        #expect(remaining == [2, 3, 4, 5, 6].map { seeded.employees[$0] })
        let department = try store.fetch(FetchRequest(entityName: "Department", objectIDs: [seeded.departments[0]]))
            .snapshots()[0]
        #expect(department.relationships == [.toMany([seeded.employees[6]])])
        #expect(department.version == 2)
        let projects = try store.fetch(FetchRequest(entityName: "Project")).snapshots()
        #expect(projects[0].relationships[0] == .toMany([seeded.employees[3]]))
        #expect(projects[1].relationships[0] == .toMany([]))
        #expect(projects.map(\.version) == [2, 2])
        let untouched = try store.fetch(FetchRequest(entityName: "Department", objectIDs: [seeded.departments[2]]))
            .snapshots()[0]
        #expect(untouched.version == 1)
    }

    @Test func batchDeleteWithAPredicateSQLDeclinesEvaluatesInMemory() throws {
        let seeded = try SQLiteQueryTests.seed()
        let predicate = try ObjectPredicate(format: "30 < age OR salary > 4500")
        #expect(
            seeded.store.nativeEvaluationDeclineReason(FetchRequest(entityName: "Employee", predicate: predicate))
                != nil)
        let result = try seeded.store.batchDelete(entityName: "Employee", predicate: predicate)
        #expect(result.objectIDs == [1, 5, 6, 7].map { seeded.employees[$0] })
        #expect(try seeded.store.fetch(FetchRequest(entityName: "Employee", resultType: .count)).count() == 4)
    }

    @Test func batchUpdateSetsValuesBumpsVersionsAndChecksValues() throws {
        let seeded = try SQLiteQueryTests.seed()
        let store = seeded.store
        let result = try store.batchUpdate(
            entityName: "Employee", predicate: try ObjectPredicate(format: "department == nil"),
            values: ["age": 99, "name": "moved"])
        #expect(result.objectIDs == [seeded.employees[4], seeded.employees[7]])
        let updated = try store.fetch(FetchRequest(entityName: "Employee", objectIDs: result.objectIDs)).snapshots()
        for snapshot in updated {
            #expect(snapshot.version == 2)
            #expect(snapshot.value(of: "age", in: store.model.entity(named: "Employee")!) == 99)
            #expect(snapshot.value(of: "name", in: store.model.entity(named: "Employee")!) == "moved")
        }
        for (values, code) in [
            (["nope": Value.integer(1)], StrataError.Code.unknownKey), (["age": "old"], .typeMismatch),
            (["name": nil], .missingValue), (["big": 5], .uniqueConstraint),
        ] {
            do {
                _ = try store.batchUpdate(entityName: "Employee", predicate: nil, values: values)
                Issue.record("accepted \(values)")
            } catch let error as StrataError {
                #expect(error.code == code)
            }
        }
        #expect(
            try store.fetch(FetchRequest(entityName: "Employee", objectIDs: [seeded.employees[0]])).snapshots()[0]
                .version == 1, "a failed batch changes nothing")
    }
}
