import Foundation
import StrataCore
import Testing

@testable import StrataSQLite

/// A distinct aggregate request of plain values (no aggregate column, no group key) runs in SQL
/// as a grouping by those values, each group in the place of its first object: the evaluator's
/// answer, with one row per distinct value read instead of one per object.
@Suite struct SQLiteDistinctAggregateTests {
    /// A store with two departments and 40 employees: repeated names, a NaN and nulls among the
    /// heights, some employees without a department.
    private func seededStore() throws -> SQLiteStore {
        let store = try openStore(temporaryStoreURL())
        let departments = try store.obtainPermanentIDs(for: "Department", count: 2)
        let employees = try store.obtainPermanentIDs(for: "Employee", count: 40)
        var snapshots = departments.enumerated().map { index, id in
            makeSnapshot(
                id, in: store.model, ["name": .string("d\(index)")],
                relationships: [
                    "employees": .toMany(employees.enumerated().filter { $0.offset % 3 == index }.map(\.element))
                ])
        }
        for (index, id) in employees.enumerated() {
            snapshots.append(
                makeSnapshot(
                    id, in: store.model,
                    [
                        "name": .string("e\((index * 7) % 5)"),
                        "height": index % 9 == 0 ? .double(.nan) : index % 4 == 0 ? .null : .double(Double(index % 6)),
                        "age": .integer(Int64(index % 3)),
                    ],
                    relationships: ["department": .toOne(index % 3 == 2 ? nil : departments[index % 3])]))
        }
        try store.save(SaveRequest(inserts: snapshots))
        return store
    }

    static let requests: [AggregateRequest] = [
        AggregateRequest(entityName: "Employee", propertiesToFetch: [.value("name")], returnsDistinctResults: true),
        AggregateRequest(
            entityName: "Employee", propertiesToFetch: [.value("height"), .value("department.name", as: "department")],
            returnsDistinctResults: true),
        AggregateRequest(
            entityName: "Employee", predicate: .comparison(.init(.keyPath("age"), .greater, .constant(0))),
            propertiesToFetch: [.value("name"), .value("age")], returnsDistinctResults: true,
            sorts: [.descending("age")], limit: 3, offset: 1),
        AggregateRequest(
            entityName: "Employee", propertiesToFetch: [.value("name", as: "first"), .value("name", as: "second")],
            havingPredicate: .comparison(.init(.keyPath("first"), .notEqual, .constant("e0"))),
            returnsDistinctResults: true),
    ]

    @Test(arguments: requests.indices)
    func distinctValuesRunAsOneGroupedStatement(_ index: Int) throws {
        let store = try seededStore()
        let request = Self.requests[index]
        let query = try SQLiteAggregateQuery(
            request, layout: try request.layout(in: store.model), table: try #require(store.schema.tables["Employee"]),
            schema: store.schema, storeIdentifier: store.identifier)
        #expect(query.sql.contains("GROUP BY") && query.sql.hasSuffix("ORDER BY min(pk)"), "\(query.sql)")
        let rowsRead = try store.withReader { connection in
            let statement = try connection.prepare(query.sql)
            defer { statement.reset() }
            statement.bind(query.parameters)
            var count = 0
            while try statement.step() { count += 1 }
            return count
        }
        let native = try store.fetchAggregatesNatively(request)
        #expect(native == (try store.fetchAggregatesInMemory(request)))
        let objects = try store.fetch(request.sourceRequest).snapshots().count
        #expect(rowsRead < objects, "SQLite returns one row per distinct value, not per object")
        #expect(rowsRead >= native.count)
    }
}
