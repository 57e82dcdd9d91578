import Foundation
import Strata
import StrataTestSupport
import Testing

/// `strata query`: its rows, counts and aggregates are what the same fetch returns in a program,
/// on every backend, and bad input is a clear error.
@Suite struct QueryCommandTests {
    /// A seeded store of `scheme` (the memory backend has no store another process can read).
    private static func seeded(_ scheme: String, in directory: URL) throws -> StoreURL {
        let url = storeURL(scheme, in: directory, name: "seeded")
        let store = try Fixture.open(url)
        defer { try? store.close() }
        try seedCompany(store, employees: 90)
        return url
    }

    /// The tool's JSON Lines output as dictionaries of JSON values.
    private static func rows(_ output: String) throws -> [[String: JSONNode]] {
        try output.split(separator: "\n").map { line in
            guard case .object(let members) = try parseJSON(String(line)) else { return [:] }
            return Dictionary(members, uniquingKeysWith: { first, _ in first })
        }
    }

    private static func integer(_ value: Value) -> Int64? { if case .integer(let n) = value { n } else { nil } }
    private static func string(_ value: Value) -> String? { if case .string(let s) = value { s } else { nil } }

    @Test(arguments: ["sqlite", "lmdb", "xml"])
    func rowsAreTheFetchOfAProgram(_ scheme: String) throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try Self.seeded(scheme, in: directory)
        let run = try strata([
            "query", url.description, "--entity", "Employee", "--where", "level >= 3", "--sort", "-height,name",
            "--offset", "2", "--limit", "7", "--json",
        ])
        #expect(run.status == 0, "\(run.errors)")
        let store = try Fixture.open(url)
        defer { try? store.close() }
        let expected = try store.fetch(
            FetchRequest(
                entityName: "Employee", predicate: ObjectPredicate(format: "level >= 3"),
                sorts: [.descending("height"), .ascending("name")], limit: 7, offset: 2)
        ).snapshots()
        let rows = try Self.rows(run.output)
        #expect(rows.count == 7)
        #expect(rows.map { $0["id"] } == expected.map { .string("Employee/\($0.objectID.permanentKey)") })
        let nameIndex = try #require(store.model.entity(named: "Employee")?.attributeIndex(named: "name"))
        #expect(
            rows.map { $0["name"] }
                == expected.map { snapshot in Self.string(snapshot.attributes[nameIndex]).map(JSONNode.string) })
    }

    @Test(arguments: ["sqlite", "lmdb", "xml"])
    func countAndGroupedAggregatesAreComputedRight(_ scheme: String) throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try Self.seeded(scheme, in: directory)
        let store = try Fixture.open(url)
        let employees = try store.fetch(FetchRequest(entityName: "Employee")).snapshots()
        let entity = try #require(store.model.entity(named: "Employee"))
        let level = try #require(entity.attributeIndex(named: "level"))
        try store.close()
        let count = try strata(["query", url.description, "--entity", "Employee", "--where", "level > 4", "--count"])
        let expectedCount = employees.filter { (Self.integer($0.attributes[level]) ?? 0) > 4 }.count
        #expect(count.output == "\(expectedCount)\n", "\(count.errors)")

        let grouped = try strata([
            "query", url.description, "--entity", "Employee", "--group-by", "level", "--sum", "level", "--json",
        ])
        #expect(grouped.status == 0, "\(grouped.errors)")
        var expected: [Int64: (count: Int64, sum: Int64)] = [:]
        for employee in employees {
            let value = Self.integer(employee.attributes[level]) ?? -1
            expected[value, default: (0, 0)].count += 1
            expected[value, default: (0, 0)].sum += max(value, 0)
        }
        var found: [Int64: (count: Int64, sum: Int64)] = [:]
        for row in try Self.rows(grouped.output) {
            guard case .integer(let key)? = row["level"] else {
                if row["level"] == .null, case .integer(let n)? = row["count"] { found[-1] = (n, 0) }
                continue
            }
            guard case .integer(let count)? = row["count"], case .integer(let sum)? = row["sum_level"] else { continue }
            found[key] = (count, sum)
        }
        #expect(found.mapValues { [$0.count, $0.sum] } == expected.mapValues { [$0.count, $0.sum] })
    }

    @Test func havingAndSortNameTheAggregateColumns() throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try Self.seeded("sqlite", in: directory)
        let run = try strata([
            "query", url.description, "--entity", "Employee", "--group-by", "level", "--having", "count >= 5",
            "--sort", "-count,level",
        ])
        #expect(run.status == 0, "\(run.errors)")
        let lines = run.output.split(separator: "\n")
        #expect(lines.first?.split(separator: " ", omittingEmptySubsequences: true) == ["level", "count"])
        let counts = lines.dropFirst().dropLast().compactMap { Int($0.split(separator: " ").last ?? "") }
        #expect(!counts.isEmpty && counts.allSatisfy { $0 >= 5 } && counts == counts.sorted(by: >))
        #expect(lines.last == "(\(counts.count) \(counts.count == 1 ? "row" : "rows"))")
    }

    @Test func badInputIsAClearError() throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try Self.seeded("sqlite", in: directory).description
        for (arguments, status, text) in [
            (["--entity", "Nope"], Int32(1), "unknownEntity"),
            (["--entity", "Employee", "--where", "level >"], 1, "predicateSyntax"),
            (["--entity", "Employee", "--sum", "name"], 1, "not a number"),
            (["--entity", "Employee", "--sort", "name,"], 64, "empty key"),
            (["--entity", "Employee", "--limit", "-1"], 64, "--limit"),
            (["--entity", "Employee", "--having", "count > 1"], 64, "--having"),
            (["--entity", "Employee", "--count", "--sum", "level"], 64, "--count"),
        ] {
            let run = try strata(["query", url] + arguments)
            #expect(run.status == status, "\(arguments): \(run.errors)")
            #expect(run.errors.contains(text), "\(arguments): \(run.errors)")
        }
        let json = try strata(["query", url, "--entity", "Nope", "--json"])
        guard case .object(let members) = try parseJSON(json.output), case .object(let error)? = members.first?.1 else {
            Issue.record("no JSON error: \(json.output)")
            return
        }
        #expect(error.first { $0.0 == "code" }?.1 == .string("unknownEntity"))
    }
}
