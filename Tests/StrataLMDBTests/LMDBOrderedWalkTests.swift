import Foundation
import StrataCore
import StrataLMDB
import Testing

/// A limited fetch sorted by an attribute leading an index walks the index in the sort's order
/// and reads about `offset + limit` objects, not all of them, with the evaluator's answer: nil,
/// NaN, -0.0, infinities, ties, long (truncated) keys and predicates included.
@Suite struct LMDBOrderedWalkTests {
    static let sorted: [(name: String, type: AttributeType)] = [
        ("small", .integer16), ("medium", .integer32), ("big", .integer64), ("real", .double), ("single", .float),
        ("amount", .decimal), ("text", .string), ("when", .date), ("flag", .boolean), ("badge", .uuid),
        ("bytes", .binary), ("link", .uri), ("unique", .integer64),
    ]

    static func model() throws -> Model {
        let attributes =
            sorted.map { Attribute($0.name, $0.type, isOptional: true) } + [Attribute("tag", .integer64)]
        let indexes =
            sorted.filter { $0.name != "unique" }.map {
                Entity.Index(name: "by" + $0.name.capitalized, properties: [$0.name])
            } + [Entity.Index(name: "byRealMedium", properties: ["real", "medium"])]
        return try Model(
            versionIdentifier: "v1",
            entities: [Entity("Item", attributes: attributes, uniqueConstraints: [["unique"]], indexes: indexes)])
    }

    static let doubles: [Value] = [
        .null, .double(.nan), .double(-0.0), .double(0.0), .double(.infinity), .double(-.infinity), .double(1.5),
        .double(-1.5), .double(1.5), .double(.greatestFiniteMagnitude), .double(-.leastNonzeroMagnitude),
        .double(.nan), .null, .double(42),
    ]

    /// `count` items whose values cycle through the interesting ones of each type; `unique` holds
    /// distinct values in an order unlike the keys'.
    static func seed(_ path: String, count: Int = 300) throws -> LMDBStore {
        let model = try model()
        let store = try openStore(path, model: model)
        let entity = model.entity(named: "Item")!
        let ids = try store.obtainPermanentIDs(for: "Item", count: count)
        let floats: [Value] = [.null, .float(.nan), .float(-0.0), .float(.infinity), .float(0.25), .float(-3)]
        let long = String(repeating: "x", count: 600)
        let strings: [Value] = [
            .null, "", "a", "B", "é", "e\u{301}", "张", "a", "\u{0}", "a\u{0}", .string(long + "b"), .string(long + "a"),
        ]
        let decimals: [Value] = [.null, .decimal(.nan), .decimal(Decimal(string: "-0.5")!), .decimal(7), .decimal(0)]
        let dates: [Value] = [
            .null, .date(Date(timeIntervalSinceReferenceDate: -1e9)), .date(Date(timeIntervalSinceReferenceDate: 0)),
            .date(Date(timeIntervalSinceReferenceDate: 7.25e8)),
        ]
        let binaries: [Value] = [
            .null, .binary(Data()), .binary(Data([0])), .binary(Data([0, 0])), .binary(Data([255])),
            .binary(Data(repeating: 7, count: 700) + Data([1])), .binary(Data(repeating: 7, count: 700)),
        ]
        let snapshots = ids.enumerated().map { i, id in
            let uuid = withUnsafeBytes(of: UInt64(i * 7919 % 97).bigEndian) { b in
                UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]))
            }
            let values: [String: Value] = [
                "small": i % 9 == 0 ? .null : .integer(Int64(i * 37 % 23) - 11),
                "medium": i % 11 == 0 ? .null : .integer(Int64(i * 13 % 17)),
                "big": i % 7 == 0 ? .null : .integer(i % 2 == 0 ? Int64.min + Int64(i) : Int64.max - Int64(i)),
                "real": doubles[i * 5 % doubles.count], "single": floats[i % floats.count],
                "amount": decimals[i % decimals.count], "text": strings[i * 5 % strings.count],
                "when": dates[i % dates.count], "flag": i % 5 == 0 ? .null : .bool(i % 3 == 0),
                "badge": i % 6 == 0 ? .null : .uuid(uuid), "bytes": binaries[i % binaries.count],
                "link": i % 4 == 0 ? .null : .uri(URL(string: "https://x.example/\(i % 10)")!),
                "unique": .integer(Int64(i * 7919 % count)), "tag": .integer(Int64(i % 3)),
            ]
            var snapshot = Snapshot(objectID: id, entity: entity)
            for (name, value) in values { snapshot.attributes[entity.attributeIndex(named: name)!] = value }
            return snapshot
        }
        try store.save(SaveRequest(inserts: snapshots))
        return store
    }

    static func request(_ sorts: [Sort], predicate: String? = nil, limit: Int?, offset: Int = 0) throws
        -> FetchRequest
    {
        FetchRequest(
            entityName: "Item", predicate: try predicate.map { try ObjectPredicate(format: $0) }, sorts: sorts,
            limit: limit, offset: offset, resultType: .objectIDs)
    }

    @Test(arguments: sorted.map(\.name))
    func aLimitedSortByAnIndexedAttributeGivesTheEvaluatorsAnswer(_ name: String) throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let store = try Self.seed(path)
        defer { try? store.close() }
        for ascending in [true, false] {
            for predicate in [nil, "tag == 1", "tag != 2 OR \(name) == nil"] {
                for (limit, offset) in [(50, 0), (1, 0), (7, 13), (0, 5), (400, 0), (3, 290)] {
                    let request = try Self.request(
                        [Sort(PropertyPath(name), ascending: ascending), Sort("medium", ascending: !ascending)],
                        predicate: predicate, limit: limit, offset: offset)
                    let (answer, _) = try store.fetchCountingRecordsRead(request)
                    #expect(
                        answer == (try store.fetchInMemory(request)),
                        "\(name) \(ascending ? "ASC" : "DESC") \(predicate ?? "all") \(limit)+\(offset)")
                }
            }
        }
    }

    @Test func aLimitedSortReadsOnlyTheFirstObjectsOfTheIndex() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let store = try Self.seed(path, count: 2000)
        defer { try? store.close() }
        for ascending in [true, false] {
            let distinct = try Self.request([Sort("unique", ascending: ascending)], limit: 50, offset: 10)
            let walked = try store.fetchCountingRecordsRead(distinct)
            #expect(walked.recordsRead == 60)
            #expect(walked.result == (try store.fetchInMemory(distinct)))

            // Ties (here about 2000 / 17 objects per value, and 182 nil): a key's objects come by
            // primary key, the order of ties, so a single sort stops inside the group...
            let tied = try Self.request([Sort("medium", ascending: ascending)], limit: 50)
            let single = try store.fetchCountingRecordsRead(tied)
            #expect(single.recordsRead == 50)
            #expect(single.result == (try store.fetchInMemory(tied)))
            // ...and a second sort key needs the whole group.
            let twoKeys = try Self.request(
                [Sort("medium", ascending: ascending), Sort("unique", ascending: !ascending)], limit: 50)
            let grouped = try store.fetchCountingRecordsRead(twoKeys)
            #expect(grouped.recordsRead > 100 && grouped.recordsRead < 300, "read \(grouped.recordsRead)")
            #expect(grouped.result == (try store.fetchInMemory(twoKeys)))

            // A predicate without an access path: about three times as many read as kept.
            let filtered = try Self.request([Sort("unique", ascending: ascending)], predicate: "tag == 1", limit: 50)
            let scanned = try store.fetchCountingRecordsRead(filtered)
            #expect(scanned.recordsRead < 200, "read \(scanned.recordsRead)")
            #expect(scanned.result == (try store.fetchInMemory(filtered)))
        }
        // Without a limit every object is read and sorted, as before.
        let unlimited = try Self.request([Sort("unique")], limit: nil)
        #expect(try store.fetchCountingRecordsRead(unlimited).recordsRead == 2000)
    }

    @Test func aSortByTheFirstAttributesOfACompoundIndexWalksIt() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let store = try Self.seed(path, count: 1000)
        defer { try? store.close() }
        for ascending in [true, false] {
            let request = try Self.request(
                [Sort("real", ascending: ascending), Sort("medium", ascending: ascending)], limit: 20)
            let (answer, read) = try store.fetchCountingRecordsRead(request)
            #expect(answer == (try store.fetchInMemory(request)))
            #expect(read < 1000 / 2, "read \(read)")
        }
    }
}
