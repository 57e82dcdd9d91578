import StrataCore
import Testing

@testable import StrataSQLite

/// A save's INSERTs fail as a whole save does (its transaction rolls back), so none needs
/// undoing alone: they run `OR FAIL`, and SQLite keeps no statement journal for them. Under the
/// default `ABORT`, a many-row INSERT into a table with a unique or NOT NULL constraint copied
/// every page it changed to a temporary file: with a unique key in random order, about one page
/// written for every row inserted.
@Suite struct SQLiteInsertJournalTests {
    static let model = try! Model(
        versionIdentifier: "insert-journal",
        entities: [
            Entity(
                "Item", attributes: [Attribute("key", .integer64), Attribute("note", .string, isOptional: true)],
                uniqueConstraints: [["key"]])
        ])

    /// The (opcode, p1, p2) of every instruction of `sql`'s program.
    static func program(_ sql: String, in store: SQLiteStore) throws -> [(opcode: String, p1: Int64, p2: Int64)] {
        try store.withReader { connection in
            let statement = try connection.prepare("EXPLAIN " + sql)
            defer { statement.reset() }
            var rows: [(String, Int64, Int64)] = []
            while try statement.step() { rows.append((statement.string(1), statement.int64(2), statement.int64(3))) }
            return rows
        }
    }

    @Test func insertsCannotAbortAStatementSoKeepNoStatementJournal() throws {
        let store = try openStore(temporaryStoreURL(), model: Self.model)
        let table = try #require(store.schema.tables["Item"])
        #expect(table.bulkInsertRows > 1)
        for sql in [table.insertSQL, table.bulkInsertSQL] {
            let halts = try Self.program(sql, in: store).filter { $0.opcode == "Halt" || $0.opcode == "HaltIfNull" }
            // SQLite's conflict actions: 2 is ABORT (the statement is undone alone, from a
            // statement journal), 3 is FAIL.
            let constraintHalts = halts.filter { $0.p1 != 0 }
            #expect(!constraintHalts.isEmpty, "\(halts)")
            #expect(constraintHalts.allSatisfy { $0.p2 == 3 }, "\(constraintHalts)")
        }
    }

    @Test func aCollisionInsideAManyRowInsertLeavesTheStoreAsItWas() throws {
        let model = Self.model
        let store = try openStore(temporaryStoreURL(), model: model)
        let rows = try #require(store.schema.tables["Item"]).bulkInsertRows
        func items(_ keys: [Int64]) throws -> [Snapshot] {
            try store.obtainPermanentIDs(for: "Item", count: keys.count).enumerated().map { i, id in
                makeSnapshot(id, in: model, ["key": .integer(keys[i]), "note": .string("n\(i)")])
            }
        }
        try store.save(SaveRequest(inserts: try items(Array(0..<10))))
        func count() throws -> Int { try store.fetch(FetchRequest(entityName: "Item", resultType: .count)).count() }
        // A stored key, then two new rows sharing a key, each well inside a many-row INSERT.
        var stored = Array(Int64(1_000)..<Int64(1_000 + rows * 3))
        stored[rows + 5] = 5
        var twice = Array(Int64(2_000)..<Int64(2_000 + rows * 3))
        twice[rows + 7] = twice[rows + 2]
        for keys in [stored, twice] {
            let error = #expect(throws: StrataError.self) { try store.save(SaveRequest(inserts: try items(keys))) }
            #expect(error?.code == .uniqueConstraint)
            #expect(try count() == 10)
        }
        // The connection is left with no transaction open: the next save goes through.
        try store.save(SaveRequest(inserts: try items(Array(Int64(3_000)..<Int64(3_000 + rows * 2)))))
        #expect(try count() == 10 + rows * 2)
    }
}
