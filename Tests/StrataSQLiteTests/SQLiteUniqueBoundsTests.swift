import StrataCore
import Testing

@testable import StrataSQLite

/// The bounds of a unique integer key come from the two ends of its unique index: SQLite's plan
/// searches the index once for each, whatever the table holds, and scans no table.
@Suite struct SQLiteUniqueBoundsTests {
    @Test func eachBoundIsOneSearchOfTheUniqueIndex() throws {
        let model = try Model(
            versionIdentifier: "bounds-plan",
            entities: [
                Entity(
                    "Item", attributes: [Attribute("note", .string, isOptional: true), Attribute("key", .integer64)],
                    uniqueConstraints: [["key"]])
            ])
        let store = try openStore(temporaryStoreURL(), model: model)
        let ids = try store.obtainPermanentIDs(for: "Item", count: 500)
        try store.save(
            SaveRequest(
                inserts: ids.enumerated().map { i, id in
                    makeSnapshot(id, in: model, ["key": .integer(Int64(i * 7 - 1_000))])
                }))
        #expect(try store.storedBounds(ofUnique: "key", in: "Item") == -1_000...2_493)
        let table = try #require(store.schema.tables["Item"])
        let plan = try store.withReader { connection in
            let statement = try connection.prepare(
                "EXPLAIN QUERY PLAN " + SQLiteStore.boundsSQL(ofAttributeAt: 1, in: table))
            defer { statement.reset() }
            var lines: [String] = []
            while try statement.step() { lines.append(statement.string(3)) }
            return lines
        }
        let searches = plan.filter { $0.hasPrefix("SEARCH") && $0.contains("USING COVERING INDEX") }
        #expect(searches.count == 2, "\(plan)")
        #expect(!plan.contains { $0.hasPrefix("SCAN") && $0.contains("Item") }, "\(plan)")
    }
}
