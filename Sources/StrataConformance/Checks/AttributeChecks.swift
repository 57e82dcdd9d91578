import Foundation
import StrataCore

extension ConformanceKit {
    /// Rows of `AllTypes` that every store must return exactly as saved.
    static func allTypesRows() -> [[String: Value]] {
        var generator = SplitMix(seed: 42)
        let mebibyte = Data((0..<(1 << 20)).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
        return [
            [:],
            [
                "i16": 0, "i32": 0, "i64": 0, "dbl": 0.0, "flt": .float(0), "dec": .decimal(0), "str": "",
                "flag": false, "bin": .binary(Data()),
            ],
            [
                "i16": .integer(Int64(Int16.min)), "i32": .integer(Int64(Int32.max)), "i64": .integer(Int64.min),
                "dbl": .double(.nan), "flt": .float(.nan),
                "dec": .decimal(Decimal(string: "-12345678901234567890.123456789")!),
                "str": "汉字 Кириллица ✓ 😀 e\u{301} \u{0}nul", "flag": true,
                "date": .date(Date(timeIntervalSince1970: -2_208_988_799.877)), "bin": .binary(mebibyte),
                "uuid": .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
                "uri": .uri(URL(string: "https://xn--r8jz45g.jp/%D0%BF%D1%83%D1%82%D1%8C?q=a%20b#frag")!),
            ],
            [
                "i16": .integer(Int64(Int16.max)), "i32": .integer(Int64(Int32.min)), "i64": .integer(Int64.max),
                "dbl": .double(.infinity), "flt": .float(-.infinity),
                "dec": .decimal(Decimal(string: "0.000000000000000000000000000001")!),
                "str": .string(String(repeating: "long строка 长 ", count: 5000)),
                "date": .date(Date(timeIntervalSinceReferenceDate: 1e10 + 0.5)),
                "bin": .binary(Data([0, 0xFF, 0, 0x27, 0x22])),
                "uuid": .uuid(UUID(uuidString: "00000000-0000-0000-0000-000000000000")!),
                "uri": .uri(URL(string: "relative/path")!),
            ],
            [
                "dbl": .double(-.infinity), "flt": .float(.greatestFiniteMagnitude),
                "dec": .decimal(Decimal(string: "79228162514264337593543950335")!),
                "str": "'; DROP TABLE \"Employee\"; --",
                "date": .date(Date(timeIntervalSinceReferenceDate: -63_113_904_000)),
                "i64": .integer(-1),
            ],
            [
                "dbl": .double(.leastNonzeroMagnitude), "flt": .float(.leastNonzeroMagnitude),
                "date": .date(Date(timeIntervalSince1970: 0)),
            ],
            ["dbl": .double(0.1 + 0.2), "flt": .float(0.1)],
            ["dbl": .double(-.greatestFiniteMagnitude), "dec": .decimal(Decimal(string: "-0.5")!)],
        ]
    }

    static let attributeChecks: [ConformanceCheck] = [
        ConformanceCheck("everyAttributeTypeRoundTripsExactly") { run in
            let store = try run.open()
            let rows = allTypesRows()
            let ids = try run.ids(store, "AllTypes", rows.count)
            let snapshots = try zip(ids, rows).map { try run.snapshot($0, $1) }
            try store.save(SaveRequest(inserts: snapshots))
            let fetched = try run.all(store, "AllTypes")
            try run.expectEqual(fetched.count, rows.count, "AllTypes rows")
            let entity = run.entity("AllTypes")
            for (got, want) in zip(fetched, snapshots) {
                for (i, attribute) in entity.attributes.enumerated() where got.attributes[i] != want.attributes[i] {
                    let shown = { (v: Value) -> String in
                        let d = v.description
                        return d.count > 80 ? String(d.prefix(80)) + "..." : d
                    }
                    throw run.fail(
                        "AllTypes \(want.objectID).\(attribute.name): saved \(shown(want.attributes[i])), fetched \(shown(got.attributes[i]))"
                    )
                }
            }
        },
        ConformanceCheck("everyAttributeTypeSurvivesReopen", requires: .persistent) { run in
            let store = try run.open()
            let rows = allTypesRows()
            let ids = try run.ids(store, "AllTypes", rows.count)
            let snapshots = try zip(ids, rows).map { try run.snapshot($0, $1) }
            try store.save(SaveRequest(inserts: snapshots))
            try store.close()
            let reopened = try run.open()
            let fetched = try run.all(reopened, "AllTypes")
            try run.expectEqual(fetched.map(\.attributes), snapshots.map(\.attributes), "AllTypes after reopen")
        },
        ConformanceCheck("updatesCanClearAndSetEveryType") { run in
            let store = try run.open()
            let rows = allTypesRows()
            let ids = try run.ids(store, "AllTypes", 2)
            try store.save(
                SaveRequest(inserts: [try run.snapshot(ids[0], rows[2]), try run.snapshot(ids[1], rows[0])]))
            try store.save(
                SaveRequest(updates: [
                    .init(try run.snapshot(ids[0], rows[0]), expectedVersion: 1),
                    .init(try run.snapshot(ids[1], rows[3]), expectedVersion: 1),
                ]))
            let fetched = try run.all(store, "AllTypes")
            try run.expectEqual(
                fetched.map(\.attributes),
                [try run.snapshot(ids[0], rows[0]).attributes, try run.snapshot(ids[1], rows[3]).attributes],
                "AllTypes after swapping values")
        },
    ]
}

/// A tiny deterministic generator for fixture bytes.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
