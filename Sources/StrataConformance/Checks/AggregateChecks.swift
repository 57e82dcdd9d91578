import Foundation
import StrataCore

/// A small deterministic generator (SplitMix64), so every run of the kit draws the same data and
/// a failure can be reproduced.
private struct RepeatableGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(startingAt state: UInt64) { self.state = state }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension ConformanceKit {
    /// How many `AllTypes` objects the aggregate checks insert.
    static let aggregateObjectCount = 120

    /// Inserts ``aggregateObjectCount`` `AllTypes` objects with values drawn from small pools
    /// (so groups have several members), about one value in five null, NaN among the doubles.
    static func seedAggregateData(_ store: any PersistentStore, run: ConformanceRun) throws -> [Snapshot] {
        var random = RepeatableGenerator(startingAt: 0x5354_5241_5441)
        let ids = try run.ids(store, "AllTypes", aggregateObjectCount)
        func maybe(_ value: Value) -> Value { Int.random(in: 0..<5, using: &random) == 0 ? .null : value }
        let strings = ["", "a", "B", "é", "e\u{301}", "Иван", "张伟", "zz"]
        let doubles: [Double] = [-2.5, 0, 0.1, 1e10, -0.0, 3.75, .nan, 1e-300]
        let snapshots = try ids.map { id in
            try run.snapshot(
                id,
                [
                    "i16": maybe(.integer(Int64.random(in: -3...3, using: &random))),
                    "i32": maybe(.integer(Int64.random(in: -100_000...100_000, using: &random))),
                    "i64": maybe(.integer(Int64.random(in: -(1 << 50)...(1 << 50), using: &random))),
                    "dbl": maybe(.double(doubles.randomElement(using: &random)!)),
                    "flt": maybe(.float(Float(Int.random(in: -8...8, using: &random)) / 4)),
                    "str": maybe(.string(strings.randomElement(using: &random)!)),
                    "flag": maybe(.bool(Bool.random(using: &random))),
                    "date": maybe(
                        .date(Date(timeIntervalSince1970: Double(Int.random(in: -3...3, using: &random)) * 86_400))),
                ])
        }
        try store.save(SaveRequest(inserts: snapshots))
        return snapshots
    }

    /// Aggregate requests over the `AllTypes` objects and the seeded company graph: every function
    /// on every type it applies to, grouping by every type (nulls included), having, distinct,
    /// sorts and paging, a predicate, and an empty input.
    static let aggregateTable: [AggregateRequest] = {
        var table: [AggregateRequest] = []
        let numeric = ["i16", "i32", "i64", "dbl", "flt"]
        let ordered = numeric + ["str", "flag", "date"]
        var totals: [AggregateProperty] = [.count(as: "objects")]
        for name in numeric {
            totals += [.sum(PropertyPath(name), as: "sum_\(name)"), .average(PropertyPath(name), as: "avg_\(name)")]
        }
        for name in ordered {
            totals += [
                .count(PropertyPath(name), as: "count_\(name)"), .minimum(PropertyPath(name), as: "min_\(name)"),
                .maximum(PropertyPath(name), as: "max_\(name)"),
            ]
        }
        table.append(AggregateRequest(entityName: "AllTypes", propertiesToFetch: totals))
        table.append(
            AggregateRequest(
                entityName: "AllTypes", predicate: .comparison(.init(.keyPath("i16"), .greater, .constant(100))),
                propertiesToFetch: totals))
        for key in ["i16", "str", "flag", "date", "dbl", "flt", "bin"] {
            table.append(
                AggregateRequest(
                    entityName: "AllTypes",
                    propertiesToFetch: [
                        .value(PropertyPath(key), as: "key"), .count(as: "objects"), .sum("i32", as: "total"),
                        .minimum("str", as: "least"), .maximum("dbl", as: "most"), .average("i64", as: "mean"),
                    ],
                    propertiesToGroupBy: [PropertyPath(key)]))
        }
        table.append(
            AggregateRequest(
                entityName: "AllTypes",
                propertiesToFetch: [.value("flag", as: "flag"), .value("i16", as: "small"), .count(as: "objects")],
                propertiesToGroupBy: ["flag", "i16"],
                havingPredicate: .comparison(.init(.keyPath("objects"), .greaterOrEqual, .constant(3))),
                sorts: [.descending("objects"), .ascending("small")], limit: 5, offset: 1))
        table.append(
            AggregateRequest(
                entityName: "AllTypes", propertiesToFetch: [.value("str", as: "str")], returnsDistinctResults: true))
        table.append(
            AggregateRequest(
                entityName: "AllTypes", propertiesToFetch: [.value("i16", as: "i16"), .value("flag", as: "flag")],
                returnsDistinctResults: true, sorts: [.descending("i16")], limit: 4))
        table.append(
            AggregateRequest(
                entityName: "AllTypes",
                propertiesToFetch: [.value("dbl", as: "dbl"), .value("flt", as: "flt"), .value("bin", as: "bin")],
                returnsDistinctResults: true))
        table.append(
            AggregateRequest(
                entityName: "Employee", propertiesToFetch: [.value("department.name", as: "department")],
                returnsDistinctResults: true))
        table.append(
            AggregateRequest(
                entityName: "Employee",
                propertiesToFetch: [
                    .value("department.name", as: "department"), .count(as: "people"), .sum("level", as: "levels"),
                    .average("height", as: "meanHeight"), .maximum("dateOfBirth", as: "youngest"),
                ],
                propertiesToGroupBy: ["department.name"],
                havingPredicate: .comparison(.init(.keyPath("people"), .greater, .constant(1)))))
        table.append(
            AggregateRequest(
                entityName: "Department",
                propertiesToFetch: [
                    .value("company.name", as: "company"), .sum("budget", as: "budgets"), .count("budget", as: "known"),
                ],
                propertiesToGroupBy: ["company.name"]))
        return table
    }()

    static let aggregateChecks: [ConformanceCheck] = [
        ConformanceCheck("aggregatesGiveTheEvaluatorsAnswer") { run in
            let store = try run.open()
            _ = try run.seed(store)
            _ = try seedAggregateData(store, run: run)
            var nonEmpty = 0
            for request in aggregateTable {
                let native = try store.fetchAggregates(request)
                let reference = try store.fetchAggregatesInMemory(request)
                try run.expect(
                    rowsAgree(native, reference),
                    "aggregate \(describe(request)): the store answered \(native), the evaluator \(reference)")
                if !reference.isEmpty { nonEmpty += 1 }
            }
            try run.expect(nonEmpty >= aggregateTable.count - 1, "the aggregate table answers mostly empty results")
        },
        ConformanceCheck("aggregatesCountAndSumTheSeededGraph") { run in
            let store = try run.open()
            _ = try run.seed(store)
            let rows = try store.fetchAggregates(
                AggregateRequest(
                    entityName: "Employee",
                    propertiesToFetch: [
                        .count(as: "people"), .sum("level", as: "levels"), .minimum("name", as: "first"),
                    ]))
            let levels = ConformanceFixtures.employeeRows.reduce(Int64(0)) { $0 + $1.3 }
            let first = ConformanceFixtures.employeeRows.map(\.0).min {
                $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars)
            }!
            try run.expectEqual(
                rows,
                [
                    [
                        "people": .integer(Int64(ConformanceFixtures.employeeRows.count)), "levels": .integer(levels),
                        "first": .string(first),
                    ]
                ], "count, sum and minimum of every employee")
            let grouped = try store.fetchAggregates(
                AggregateRequest(
                    entityName: "Employee", propertiesToFetch: [.value("department.name", as: "d"), .count(as: "n")],
                    propertiesToGroupBy: ["department.name"]))
            let expected = Dictionary(grouping: ConformanceFixtures.employeeRows, by: { $0.4 })
            try run.expectEqual(grouped.count, expected.count, "groups of employees by department name")
            try run.expectEqual(grouped.first?["d"], .null, "the group of employees without a department comes first")
            for row in grouped {
                let key: String? = if case .string(let name) = row["d"] { name } else { nil }
                try run.expectEqual(
                    row["n"], .integer(Int64(expected[key]?.count ?? -1)), "employees of \(key ?? "no department")")
            }
        },
        ConformanceCheck("aggregateSumBeyondInt64IsATypedError") { run in
            let store = try run.open()
            let ids = try run.ids(store, "AllTypes", 2)
            try store.save(
                SaveRequest(inserts: [
                    try run.snapshot(ids[0], ["i64": .integer(.max)]), try run.snapshot(ids[1], ["i64": .integer(1)]),
                ]))
            let request = AggregateRequest(entityName: "AllTypes", propertiesToFetch: [.sum("i64", as: "total")])
            _ = try run.expectError(.arithmeticOverflow, "a sum beyond Int64") {
                _ = try store.fetchAggregates(request)
            }
            _ = try run.expectError(.arithmeticOverflow, "a sum beyond Int64 in memory") {
                _ = try store.fetchAggregatesInMemory(request)
            }
        },
        ConformanceCheck("badAggregateRequestsAreTypedErrors") { run in
            let store = try run.open()
            let cases: [(StrataError.Code, String, AggregateRequest)] = [
                (
                    .invalidRequest, "the sum of a string",
                    AggregateRequest(entityName: "AllTypes", propertiesToFetch: [.sum("str", as: "s")])
                ),
                (
                    .invalidRequest, "the maximum of a UUID",
                    AggregateRequest(entityName: "AllTypes", propertiesToFetch: [.maximum("uuid", as: "m")])
                ),
                (
                    .unknownKey, "an unknown key",
                    AggregateRequest(entityName: "AllTypes", propertiesToFetch: [.count("nothing", as: "n")])
                ),
                (
                    .unknownEntity, "an unknown entity",
                    AggregateRequest(entityName: "Nothing", propertiesToFetch: [.count(as: "n")])
                ),
                (
                    .invalidRequest, "a group key through a to-many",
                    AggregateRequest(
                        entityName: "Employee", propertiesToFetch: [.count(as: "n")],
                        propertiesToGroupBy: ["projects.title"])
                ),
                (
                    .invalidRequest, "a plain column that is not a group key",
                    AggregateRequest(
                        entityName: "Employee", propertiesToFetch: [.value("name"), .count(as: "n")],
                        propertiesToGroupBy: ["level"])
                ),
                (
                    .unknownKey, "a having predicate on an unknown column",
                    AggregateRequest(
                        entityName: "Employee", propertiesToFetch: [.count(as: "n")],
                        havingPredicate: .comparison(.init(.keyPath("level"), .greater, .constant(1))))
                ),
                (
                    .invalidRequest, "two columns of one name",
                    AggregateRequest(
                        entityName: "Employee", propertiesToFetch: [.count(as: "n"), .sum("level", as: "n")])
                ),
            ]
            for (code, what, request) in cases {
                _ = try run.expectError(code, what) { _ = try store.fetchAggregates(request) }
            }
        },
    ]

    /// Whether two aggregate answers agree: the same rows in the same order, equal values, except
    /// that doubles may differ in their last bits (sums and averages add in different orders).
    static func rowsAgree(_ a: [[String: Value]], _ b: [[String: Value]]) -> Bool {
        guard a.count == b.count else { return false }
        for (x, y) in zip(a, b) {
            guard x.keys.sorted() == y.keys.sorted() else { return false }
            for (key, value) in x where !valuesAgree(value, y[key]!) { return false }
        }
        return true
    }

    private static func valuesAgree(_ a: Value, _ b: Value) -> Bool {
        if case .double(let x) = a, case .double(let y) = b {
            if x.isNaN || y.isNaN { return x.isNaN && y.isNaN }
            return x == y || abs(x - y) <= 1e-9 * max(abs(x), abs(y))
        }
        return a == b
    }

    private static func describe(_ request: AggregateRequest) -> String {
        let columns = request.propertiesToFetch.map { "\($0.function)(\($0.keyPath?.description ?? "*"))" }
        return "\(request.entityName) [\(columns.joined(separator: ", "))] by \(request.propertiesToGroupBy)"
    }
}
