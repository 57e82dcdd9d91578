import Foundation
import StrataCore
import Testing

@testable import StrataSQLite

/// A limited fetch sorted by an indexed attribute reads the index in order (SQLite's plan has no
/// `USE TEMP B-TREE FOR ORDER BY`), for every attribute type an index can hold, and still gives
/// the evaluator's order: nulls, NaN, -0.0, the infinities and ties included.
@Suite struct SQLiteSortIndexTests {
    /// The indexed attributes of `Item`, one per type, with their index names (`by<Name>`).
    /// Decimals are left out: they sort by their numeric value, which SQLite computes with a
    /// function of Strata's (docs/SQLiteStore.md), so no index of the stored text gives that order.
    static let sorted: [(name: String, type: AttributeType)] = [
        ("small", .integer16), ("medium", .integer32), ("big", .integer64), ("real", .double), ("single", .float),
        ("text", .string), ("when", .date), ("flag", .boolean), ("badge", .uuid), ("bytes", .binary),
        ("link", .uri),
    ]

    static func model() throws -> Model {
        let attributes =
            sorted.map { Attribute($0.name, $0.type, isOptional: true) } + [
                Attribute("amount", .decimal, isOptional: true), Attribute("tag", .integer64, isOptional: true),
            ]
        let indexes =
            sorted.map { Entity.Index(name: "by" + $0.name.capitalized, properties: [$0.name]) } + [
                Entity.Index(name: "byRealMedium", properties: ["real", "medium"]),
                Entity.Index(name: "byMediumReal", properties: ["medium", "real"]),
                Entity.Index(name: "byRealSingle", properties: ["real", "single"]),
            ]
        return try Model(
            versionIdentifier: "v1", entities: [Entity("Item", attributes: attributes, indexes: indexes)])
    }

    /// The doubles the sorts must order: nulls, NaN, both zeros, both infinities, ties, extremes.
    static let doubles: [Value] = [
        .null, .double(.nan), .double(-0.0), .double(0.0), .double(.infinity), .double(-.infinity), .double(1.5),
        .double(-1.5), .double(1.5), .double(.greatestFiniteMagnitude), .double(-.leastNonzeroMagnitude),
        .double(.nan), .null, .double(42),
    ]

    /// A store of `count` items whose values cycle through the interesting ones of each type.
    static func seed(count: Int = 240, url: StoreURL = temporaryStoreURL()) throws -> SQLiteStore {
        let model = try model()
        let store = try openStore(url, model: model)
        let ids = try store.obtainPermanentIDs(for: "Item", count: count)
        let floats: [Value] = [.null, .float(.nan), .float(-0.0), .float(.infinity), .float(0.25), .float(-3)]
        let strings: [Value] = [.null, "", "a", "B", "é", "e\u{301}", "张", "a", "\u{0}", "zz"]
        let dates: [Value] = [
            .null, .date(Date(timeIntervalSinceReferenceDate: -1e9)), .date(Date(timeIntervalSinceReferenceDate: 0)),
            .date(Date(timeIntervalSinceReferenceDate: 7.25e8)), .date(Date(timeIntervalSinceReferenceDate: 0)),
        ]
        let binaries: [Value] = [
            .null, .binary(Data()), .binary(Data([0])), .binary(Data([0, 0])), .binary(Data([255])),
        ]
        let snapshots = ids.enumerated().map { i, id in
            let uuid = withUnsafeBytes(of: UInt64(i * 7919 % 97).bigEndian) { bytes in
                UUID(
                    uuid: (
                        0, 0, 0, 0, 0, 0, 0, 0, bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6],
                        bytes[7]
                    ))
            }
            let values: [String: Value] = [
                "small": i % 9 == 0 ? .null : .integer(Int64(i * 37 % 23) - 11),
                "medium": i % 11 == 0 ? .null : .integer(Int64(i * 13 % 17)),
                "big": i % 7 == 0 ? .null : .integer(i % 2 == 0 ? Int64.min + Int64(i) : Int64.max - Int64(i)),
                "real": doubles[i * 5 % doubles.count],
                "single": floats[i % floats.count],
                "text": strings[i * 3 % strings.count],
                "when": dates[i % dates.count],
                "flag": i % 5 == 0 ? .null : .bool(i % 3 == 0),
                "badge": i % 6 == 0 ? .null : .uuid(uuid),
                "bytes": binaries[i % binaries.count],
                "link": i % 4 == 0 ? .null : .uri(URL(string: "https://x.example/\(i % 10)")!),
                "amount": i % 8 == 0 ? .null : .decimal(Decimal(i % 13) / 4),
                "tag": .integer(Int64(i % 3)),
            ]
            return makeSnapshot(id, in: model, values)
        }
        try store.save(SaveRequest(inserts: snapshots))
        return store
    }

    /// The `detail` lines of SQLite's plan for the SQL the store runs for `request`.
    static func plan(_ request: FetchRequest, in store: SQLiteStore) throws -> [String] {
        var builder = SQLiteQueryBuilder(schema: store.schema, storeIdentifier: store.identifier)
        let query = try builder.build(request, table: store.schema.tables[request.entityName]!)
        return try store.withReader { connection in
            let statement = try connection.prepare("EXPLAIN QUERY PLAN " + query.sql)
            defer { statement.reset() }
            var lines: [String] = []
            while try statement.step() { lines.append(statement.string(3)) }
            return lines
        }
    }

    /// Checks that `request` walks an index of `Item` in order (naming one of `indexes`) and
    /// answers as the evaluator does.
    static func expectIndexedOrder(
        _ request: FetchRequest, in store: SQLiteStore, indexes: [String], _ label: String
    ) throws {
        let lines = try plan(request, in: store)
        #expect(
            !lines.contains { $0.hasPrefix("USE TEMP B-TREE FOR ORDER BY") }, "\(label) sorts every row: \(lines)")
        #expect(
            lines.contains { line in indexes.contains { line.contains("INDEX Item.\($0)") } },
            "\(label) does not read \(indexes): \(lines)")
        #expect(store.nativeEvaluationDeclineReason(request) == nil, "\(label) is declined")
        #expect(try store.fetch(request) == store.fetchInMemory(request), "\(label) answers differently")
    }

    static func request(_ sorts: [Sort], predicate: String? = nil, limit: Int? = 50) throws -> FetchRequest {
        FetchRequest(
            entityName: "Item", predicate: try predicate.map { try ObjectPredicate(format: $0) }, sorts: sorts,
            limit: limit, resultType: .objectIDs)
    }

    @Test(arguments: sorted.map(\.name))
    func aLimitedSortByAnIndexedAttributeReadsItsIndexInOrder(_ name: String) throws {
        let store = try Self.seed()
        defer { try? store.close() }
        let index = "by" + name.capitalized
        for ascending in [true, false] {
            for predicate in [nil, "tag == 1", "tag != 2 OR \(name) == nil"] {
                for limit in [50, 1, 240] {
                    let request = try Self.request(
                        [Sort(PropertyPath(name), ascending: ascending)], predicate: predicate, limit: limit)
                    try Self.expectIndexedOrder(
                        request, in: store, indexes: ["index.\(index)"],
                        "\(name) \(ascending ? "ASC" : "DESC") \(predicate ?? "all") limit \(limit)")
                }
            }
        }
    }

    @Test func aSortByTwoKeysReadsTheIndexOverBoth() throws {
        let store = try Self.seed()
        defer { try? store.close() }
        let pairs: [(String, String, String)] = [
            ("real", "medium", "index.byRealMedium"), ("medium", "real", "index.byMediumReal"),
            ("real", "single", "index.byRealSingle"),
        ]
        for (first, second, index) in pairs {
            for ascending in [true, false] {
                for predicate in [nil, "tag == 0"] {
                    let sorts = [
                        Sort(PropertyPath(first), ascending: ascending),
                        Sort(PropertyPath(second), ascending: ascending),
                    ]
                    try Self.expectIndexedOrder(
                        try Self.request(sorts, predicate: predicate), in: store, indexes: [index],
                        "\(first), \(second) \(ascending ? "ASC" : "DESC") \(predicate ?? "all")")
                }
            }
        }
    }

    @Test func doublesSortNullThenNaNThenNumbersWhateverTheLimit() throws {
        let store = try Self.seed(count: 60)
        defer { try? store.close() }
        for ascending in [true, false] {
            for limit in [nil, 3, 10, 30] as [Int?] {
                let request = try Self.request([Sort("real", ascending: ascending)], limit: limit)
                let answer = try store.fetch(request)
                #expect(answer == (try store.fetchInMemory(request)))
                guard case .objectIDs(let ids) = answer, let limit else { continue }
                #expect(ids.count == limit)
            }
            for offset in [0, 5, 9, 13] {
                var request = try Self.request([Sort("real", ascending: ascending)], limit: 4)
                request.offset = offset
                #expect(try store.fetch(request) == store.fetchInMemory(request), "offset \(offset)")
            }
        }
    }

    @Test func predicatesOnADoubleOrFloatSearchItsIndex() throws {
        let store = try Self.seed()
        defer { try? store.close() }
        for format in [
            "real > 1", "real >= -1.5", "real < 0", "real <= 42", "real == 1.5", "real == 0", "real == nil",
            "real IN {1.5, 42}", "real IN {1.5, nil}", "real BETWEEN {-2, 2}", "single == 0.25", "single < 0",
            "medium == 3 AND real > 0", "real == 1.5 AND medium > 2", "real > 1 OR real == nil",
        ] {
            let request = try Self.request([], predicate: format, limit: nil)
            let lines = try Self.plan(request, in: store)
            #expect(
                lines.contains { $0.hasPrefix("SEARCH") && $0.contains("INDEX Item.index.") }, "\(format): \(lines)")
            #expect(!lines.contains { $0.hasPrefix("SCAN") }, "\(format): \(lines)")
            #expect(try store.fetch(request) == store.fetchInMemory(request), "\(format)")
        }
    }

    @Test func aStoreWithPlainIndexesGetsSortableOnesWhenOpenedForWriting() throws {
        let url = temporaryStoreURL()
        var store = try Self.seed(url: url)
        let request = try Self.request([Sort("real")])
        let first = try store.fetchInMemory(request)
        let all = try Self.request([], limit: nil)
        let everything = try store.fetchInMemory(all)
        // A store as the previous version left it: every model index on the plain columns.
        let table = store.schema.tables["Item"]!
        let replaced: [String] = try store.withWriter { connection in
            var names: [String] = []
            for (index, sql) in zip(table.entity.indexes, table.modelIndexStatements)
            where table.sortKeyColumns(of: index).count > index.properties.count {
                let name = SQLiteMigrationRunner.firstQuotedName(sql)!
                let columns = index.properties.map(q).joined(separator: ", ")
                try connection.execute("DROP INDEX \(q(name))")
                try connection.execute("CREATE INDEX \(q(name)) ON \(q("Item")) (\(columns))")
                names.append(name)
            }
            return names
        }
        #expect(replaced.count == 5)
        try store.close()

        store = try openStore(url, model: try Self.model(), options: StoreOptions(isReadOnly: true))
        #expect(try Self.plan(request, in: store).contains { $0.hasPrefix("USE TEMP B-TREE FOR ORDER BY") })
        #expect(try store.fetch(request) == first)
        try store.close()

        store = try openStore(url, model: try Self.model())
        defer { try? store.close() }
        try Self.expectIndexedOrder(request, in: store, indexes: ["index.byReal"], "reopened")
        #expect(try store.fetch(request) == first)
        #expect(try store.fetch(all) == everything)
        let stored: [String: String] = try store.withWriter { connection in
            let statement = try connection.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index'")
            defer { statement.reset() }
            var stored: [String: String] = [:]
            while try statement.step() { stored[statement.string(0)] = statement.string(1) }
            return stored
        }
        for sql in table.modelIndexStatements {
            #expect(stored[SQLiteMigrationRunner.firstQuotedName(sql)!] == sql)
        }
    }
}
