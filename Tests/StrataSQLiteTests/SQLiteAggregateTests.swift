import Foundation
import StrataCore
import Testing

@testable import StrataSQLite

/// The SQLite store computes grouped aggregates in one SQL statement, with the in-memory
/// evaluation's answers, and declines what SQL cannot match exactly.
@Suite struct SQLiteAggregateTests {
    static let byDepartment = AggregateRequest(
        entityName: "Employee",
        propertiesToFetch: [
            .value("department.name", as: "department"), .count(as: "people"), .sum("age", as: "ages"),
            .average("height", as: "meanHeight"), .minimum("height", as: "lowest"), .maximum("name", as: "last"),
            .count("hired", as: "hired"),
        ],
        propertiesToGroupBy: ["department.name"],
        havingPredicate: .comparison(.init(.keyPath("people"), .greater, .constant(1))))

    /// A store with two departments and 30 employees (some without a department, a NaN height).
    private func seededStore() throws -> SQLiteStore {
        let store = try openStore(temporaryStoreURL())
        let departments = try store.obtainPermanentIDs(for: "Department", count: 2)
        let employees = try store.obtainPermanentIDs(for: "Employee", count: 30)
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
                        "name": .string("e\(index % 7)"), "age": index % 5 == 0 ? .null : .integer(Int64(index)),
                        "height": index == 4 ? .double(.nan) : .double(Double(index) / 8),
                        "big": .integer(Int64(index)),
                    ],
                    relationships: ["department": .toOne(index % 3 == 2 ? nil : departments[index % 3])]))
        }
        try store.save(SaveRequest(inserts: snapshots))
        return store
    }

    @Test func groupedAggregatesRunAsOneGroupedStatement() throws {
        let store = try seededStore()
        let layout = try Self.byDepartment.layout(in: store.model)
        let query = try SQLiteAggregateQuery(
            Self.byDepartment, layout: layout, table: store.schema.tables["Employee"]!, schema: store.schema,
            storeIdentifier: store.identifier)
        #expect(query.sql.contains("GROUP BY"))
        #expect(query.sql.contains("count(*)"))
        let native = try store.fetchAggregatesNatively(Self.byDepartment)
        #expect(native.count == 3, "two departments and the employees without one")
        #expect(native == (try store.fetchAggregatesInMemory(Self.byDepartment)))
    }

    @Test func decimalsAndPlainValuesDecline() throws {
        let store = try seededStore()
        let table = store.schema.tables["Employee"]!
        for request in [
            AggregateRequest(entityName: "Employee", propertiesToFetch: [.sum("salary", as: "payroll")]),
            AggregateRequest(entityName: "Employee", propertiesToFetch: [.value("name")]),
        ] {
            #expect(throws: SQLiteQueryBuilder.Decline.self) {
                try SQLiteAggregateQuery(
                    request, layout: try request.layout(in: store.model), table: table, schema: store.schema,
                    storeIdentifier: store.identifier)
            }
            #expect(try store.fetchAggregatesNatively(request) == (try store.fetchAggregatesInMemory(request)))
        }
    }

    @Test func sqlitesIntegerOverflowIsAnArithmeticOverflowError() throws {
        let store = try openStore(temporaryStoreURL())
        let ids = try store.obtainPermanentIDs(for: "Employee", count: 2)
        try store.save(
            SaveRequest(inserts: [
                makeSnapshot(ids[0], in: store.model, ["name": "a", "big": .integer(.max)]),
                makeSnapshot(ids[1], in: store.model, ["name": "b", "big": .integer(1)]),
            ]))
        let request = AggregateRequest(entityName: "Employee", propertiesToFetch: [.sum("big", as: "total")])
        _ = try SQLiteAggregateQuery(
            request, layout: try request.layout(in: store.model), table: store.schema.tables["Employee"]!,
            schema: store.schema, storeIdentifier: store.identifier)
        do {
            _ = try store.fetchAggregatesNatively(request)
            Issue.record("the overflow went unnoticed")
        } catch let error as StrataError {
            #expect(error.code == .arithmeticOverflow)
        }
    }
}
