import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataData
@testable import StrataSQLite

/// On SQLite, the aggregate fetches of `@Model` classes run as one SQL statement that returns
/// only the groups: the store does not decline them, and SQLite's plan groups the rows itself.
@Suite struct ModelAggregatePushdownTests {
    @Test func sumsGroupsAndDistinctValuesRunAsOneStatement() throws {
        try withTemporaryDirectory { directory in
            let context = try ModelAggregateTests.stays(.sqlite, in: directory)
            let store = try #require(try context.container.coordinator.store(for: "Stay").capability(SQLiteStore.self))
            let keyPaths = context.container.keyPaths
            let sum = try AggregatePlan<Stay>(
                aggregates: [Aggregate<Stay, Int>.sum(\.nights).column], groupBy: [], having: nil,
                predicate: ModelAggregateTests.longStays, includePendingChanges: true, keyPaths: keyPaths)
            let grouped = try AggregatePlan<Stay>(
                aggregates: [AnyAggregate<Stay>.count.column, AnyAggregate<Stay>.average(\.price).column],
                groupBy: [\Stay.city, \Stay.country], having: .max(\.rating) >= 4, predicate: nil,
                includePendingChanges: true, keyPaths: keyPaths)
            let distinct = try AggregatePlan<Stay>(
                aggregates: [], groupBy: [\Stay.city], having: nil, predicate: nil, includePendingChanges: true,
                keyPaths: keyPaths)
            for (label, plan, groupsInSQL) in [
                ("sum", sum, false), ("groups", grouped, true), ("distinct", distinct, true),
            ] {
                let request = plan.request
                let query = try SQLiteAggregateQuery(
                    request, layout: try request.layout(in: store.model),
                    table: try #require(store.schema.tables["Stay"]),
                    schema: store.schema, storeIdentifier: store.identifier)
                let lines = try store.withReader { connection in
                    let statement = try connection.prepare("EXPLAIN QUERY PLAN " + query.sql)
                    defer { statement.reset() }
                    statement.bind(query.parameters)
                    var lines: [String] = []
                    while try statement.step() { lines.append(statement.string(3)) }
                    return lines
                }
                #expect(lines.contains { $0.hasPrefix("SCAN") }, "\(label): \(lines)")
                #expect(lines.contains { $0.contains("GROUP BY") } == groupsInSQL, "\(label): \(lines)")
                let native = try store.fetchAggregatesNatively(request)
                let inMemory = try store.fetchAggregatesInMemory(request)
                #expect(Self.agree(native, inMemory), "\(label): \(native) \(inMemory)")
                #expect(native == (try context.objectContext.fetchAggregates(request)), "\(label)")
            }
        }
    }

    /// Whether two answers are equal but for the last bits of their doubles (SQLite adds them in
    /// another order).
    static func agree(_ lhs: [[String: Value]], _ rhs: [[String: Value]]) -> Bool {
        lhs.count == rhs.count
            && zip(lhs, rhs).allSatisfy { x, y in
                x.keys == y.keys
                    && x.allSatisfy { key, value in
                        if case .double(let a) = value, case .double(let b)? = y[key] { return isClose(a, b) }
                        return value == y[key]
                    }
            }
    }
}
