import Foundation
import StrataCore
import Testing

/// The reference semantics of aggregates: nulls skipped, exact integer sums, averages as
/// doubles, minimum and maximum in sort order, empty inputs and groups, null group keys.
@Suite struct AggregateEvaluationTests {
    static let entity = Entity(
        "Reading",
        attributes: [
            Attribute("site", .string, isOptional: true), Attribute("count", .integer64, isOptional: true),
            Attribute("level", .double, isOptional: true), Attribute("cost", .decimal, isOptional: true),
        ])
    static let model = try! Model(entities: [entity])

    /// Rows of (site, count, level, cost).
    private func snapshots(_ rows: [(Value, Value, Value, Value)]) -> [Snapshot] {
        rows.enumerated().map { index, row in
            Snapshot(
                objectID: ObjectID(entityName: "Reading", storeIdentifier: "test", primaryKey: Int64(index) + 1),
                version: 1, attributes: [row.0, row.1, row.2, row.3], relationships: [])
        }
    }

    private func run(_ request: AggregateRequest, _ rows: [(Value, Value, Value, Value)]) throws -> [[String: Value]] {
        try AggregateEvaluation.run(
            request, over: snapshots(rows), evaluator: PredicateEvaluator(model: Self.model) { _ in nil })
    }

    static let rows: [(Value, Value, Value, Value)] = [
        ("north", 3, .double(1.5), .decimal(Decimal(string: "0.1")!)),
        ("south", .null, .double(.nan), .decimal(Decimal(string: "0.2")!)),
        (.null, 4, .double(-2), .null),
        ("north", 5, .null, .decimal(Decimal(string: "0.3")!)),
        (.null, .null, .double(8), .null),
    ]

    @Test func functionsSkipNulls() throws {
        let request = AggregateRequest(
            entityName: "Reading",
            propertiesToFetch: [
                .count(as: "objects"), .count("count", as: "counted"), .sum("count", as: "total"),
                .average("count", as: "mean"), .minimum("site", as: "first"), .maximum("site", as: "last"),
                .sum("cost", as: "cost"),
            ])
        let rows = try run(request, Self.rows)
        #expect(rows.count == 1)
        let row = try #require(rows.first)
        #expect(row["objects"] == .integer(5))
        #expect(row["counted"] == .integer(3))
        #expect(row["total"] == .integer(12))
        #expect(row["mean"] == .double(4))
        #expect(row["first"] == .string("north"))
        #expect(row["last"] == .string("south"))
        #expect(row["cost"] == .decimal(Decimal(string: "0.6")!), "decimals add exactly")
    }

    @Test func nanIsTheSmallestNumberAndNullsNeverCount() throws {
        let request = AggregateRequest(
            entityName: "Reading",
            propertiesToFetch: [.minimum("level", as: "low"), .maximum("level", as: "high")])
        let row = try #require(try run(request, Self.rows).first)
        guard case .double(let low) = row["low"] else {
            Issue.record("no minimum")
            return
        }
        #expect(low.isNaN)
        #expect(row["high"] == .double(8))
    }

    @Test func anEmptyInputGivesOneRowUnlessGrouped() throws {
        let totals = AggregateRequest(
            entityName: "Reading",
            propertiesToFetch: [
                .count(as: "n"), .sum("count", as: "s"), .sum("level", as: "d"), .average("count", as: "a"),
                .maximum("site", as: "m"),
            ])
        #expect(try run(totals, []) == [["n": .integer(0), "s": .integer(0), "d": .double(0), "a": .null, "m": .null]])
        var grouped = totals
        grouped.propertiesToFetch = [.value("site", as: "site"), .count(as: "n")]
        grouped.propertiesToGroupBy = ["site"]
        #expect(try run(grouped, []).isEmpty)
    }

    @Test func nullIsAGroupOfItsOwnAndGroupsComeInKeyOrder() throws {
        let request = AggregateRequest(
            entityName: "Reading",
            propertiesToFetch: [.value("site", as: "site"), .count(as: "n"), .sum("count", as: "s")],
            propertiesToGroupBy: ["site"])
        #expect(
            try run(request, Self.rows) == [
                ["site": .null, "n": .integer(2), "s": .integer(4)],
                ["site": "north", "n": .integer(2), "s": .integer(8)],
                ["site": "south", "n": .integer(1), "s": .integer(0)],
            ])
    }

    @Test func havingSortsDistinctAndPaging() throws {
        var request = AggregateRequest(
            entityName: "Reading", propertiesToFetch: [.value("site", as: "site"), .count(as: "n")],
            propertiesToGroupBy: ["site"],
            havingPredicate: try ObjectPredicate(format: "n >= 2"), sorts: [.descending("site")])
        #expect(try run(request, Self.rows).map { $0["site"] } == ["north", .null])
        request.limit = 1
        request.offset = 1
        #expect(try run(request, Self.rows).map { $0["site"] } == [.null])
        let distinct = AggregateRequest(
            entityName: "Reading", propertiesToFetch: [.value("site")], returnsDistinctResults: true)
        #expect(try run(distinct, Self.rows).map { $0["site"] } == ["north", "south", .null])
    }

    @Test func anIntegerSumBeyondInt64IsAnOverflowError() throws {
        let request = AggregateRequest(entityName: "Reading", propertiesToFetch: [.sum("count", as: "s")])
        #expect(
            try run(request, [("a", .integer(.max - 1), .null, .null), ("a", 1, .null, .null)]).first?["s"]
                == .integer(.max))
        do {
            _ = try run(request, [("a", .integer(.max), .null, .null), ("a", 1, .null, .null)])
            Issue.record("the overflow went unnoticed")
        } catch let error as StrataError {
            #expect(error.code == .arithmeticOverflow)
            #expect(error.location["key"] == "s")
        }
    }
}
