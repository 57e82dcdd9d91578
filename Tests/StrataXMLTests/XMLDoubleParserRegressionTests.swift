import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataXML

/// The double reader against `Double(String)` on seeded inputs of every kind the store writes:
/// the fast path either declines (and `strtod` reads the text) or gives the same bits.
@Suite struct XMLDoubleParserRegressionTests {
    /// The fast path alone; `nil` when it leaves the text to `strtod`.
    func fast(_ text: String) -> Double? {
        var text = text
        return text.withUTF8 { XMLDoubleParser.parse($0) }
    }

    /// What the loader reads: the fast path, then `strtod`.
    func read(_ text: String) -> Double? {
        var text = text
        return text.withUTF8 { XMLFormat.parseDouble($0) }
    }

    /// Checks both readers against `Double(text)`; whether the fast path decided.
    @discardableResult
    func check(_ text: String) -> Bool {
        guard let expected = Double(text) else {
            Issue.record("Double(\"\(text)\") is nil")
            return false
        }
        #expect(read(text)?.bitPattern == expected.bitPattern, "\(text)")
        guard let decided = fast(text) else { return false }
        #expect(decided.bitPattern == expected.bitPattern, "\(text)")
        return true
    }

    @Test func aSeventeenDigitBinaryFractionReadsBackExactly() {
        let text = "-7259814.2431640625"
        #expect(Double(text)?.bitPattern == 0xC15B_B1A9_8F90_0000)
        #expect(read(text)?.bitPattern == 0xC15B_B1A9_8F90_0000)
        check(text)
    }

    @Test func shortBinaryFractionsAreDecidedByTheFastPath() {
        // Exactly representable values whose mantissa fits 53 bits: the truncated power table
        // leaves many undecided, and the exact multiplication or division decides them.
        for text in [
            "0.5", "1.5", "-1.25", "0.03125", "12.375", "137122.513671875", "-96957.6474609375",
            "5262505.515625", "126882.3818359375", "-26610905874428.75", "0.000244140625", "8.5e+20",
        ] {
            #expect(check(text), "\(text) is decided by the fast path")
        }
        var rng = SeededGenerator(seed: 0x5EED_D0AB)
        var decided = 0
        var total = 0
        for _ in 0..<50_000 {
            let n = Int.random(in: 1...30, using: &rng)
            let k = Int64.random(in: -(1 << 40)...(1 << 40), using: &rng)
            let value = Double(k) / Double(sign: .plus, exponent: n, significand: 1)
            let text = value.description
            guard !text.contains("e"), text.filter(\.isNumber).count <= 15 else { continue }
            total += 1
            if check(text) { decided += 1 }
        }
        #expect(total > 10_000)
        #expect(decided == total, "every binary fraction of 15 digits or fewer takes the fast path")
    }

    @Test func seededDoublesOfEveryMagnitudeReadBackExactly() {
        var rng = SeededGenerator(seed: 0xD0B1_E5)
        var decided = 0
        var total = 0
        for i in 0..<300_000 {
            let value: Double
            switch i % 6 {
            case 0: value = Double(bitPattern: rng.next())
            case 1:
                let magnitude = [1.0, 10, 1000, 1e6, 9_999_999, 1e15, 1e-5][Int.random(in: 0..<7, using: &rng)]
                value = Double.random(in: -magnitude...magnitude, using: &rng)
            case 2:
                // k / 2^n: exact binary fractions with long exact decimal expansions.
                let k = Int64.random(in: -(1 << 53)...(1 << 53), using: &rng) >> Int64.random(in: 0...50, using: &rng)
                value = Double(k) / Double(sign: .plus, exponent: Int.random(in: 1...60, using: &rng), significand: 1)
            case 3:
                // Neighbours of powers of ten, where decimal exponents switch.
                let power = Double("1e\(Int.random(in: -30...30, using: &rng))")!
                value = Int.random(in: 0...1, using: &rng) == 0 ? power.nextUp : power.nextDown
            case 4: value = Double(sign: .plus, exponent: -1074, significand: Double(rng.next() >> 12))
            default: value = Double(Int64.random(in: .min ... .max, using: &rng)) * (i % 12 == 5 ? 1 : -1)
            }
            guard value.isFinite else { continue }
            let text = value.description
            total += 1
            #expect(Double(text)?.bitPattern == value.bitPattern, "\(text)")
            if check(text) { decided += 1 }
        }
        #expect(decided > total / 2, "the fast path decides most texts")
    }

    @Test func seededDecimalTextsReadLikeDoubleInit() {
        var rng = SeededGenerator(seed: 0x7E47)
        func digits(_ count: Int) -> String {
            String((0..<count).map { _ in Character(String(UInt8.random(in: 0...9, using: &rng))) })
        }
        for _ in 0..<50_000 {
            let integer = Int.random(in: 1...12, using: &rng)
            let fraction = Int.random(in: 0...14, using: &rng)
            var text = digits(integer)
            if fraction > 0 { text += "." + digits(fraction) }
            if Bool.random(using: &rng) { text += "e\(Int.random(in: -70...70, using: &rng))" }
            check(text)
        }
    }

    @Test func anXMLStoreReadsBackSuchDoublesBitForBit() throws {
        var rng = SeededGenerator(seed: 0x570E)
        var values = [
            -7259814.2431640625, 137122.513671875, -969579.6474609375, 0.5, -266109058744281.75,
            9_007_199_254_740_992, 0.1, .leastNonzeroMagnitude, -.greatestFiniteMagnitude,
        ]
        for i in 0..<2_000 {
            let k = Int64.random(in: -(1 << 53)...(1 << 53), using: &rng) >> Int64(i % 40)
            values.append(
                Double(k) / Double(sign: .plus, exponent: Int.random(in: 1...60, using: &rng), significand: 1))
            values.append(Double.random(in: -9_999_999...9_999_999, using: &rng))
        }
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try openStore(dir.url())
        let ids = try store.obtainPermanentIDs(for: "Item", count: values.count)
        let inserts = zip(ids, values).map { id, value in
            itemSnapshot(
                id, name: value.description,
                [
                    "dbl": .double(value), "when": .date(Date(timeIntervalSinceReferenceDate: value)),
                ])
        }
        try store.save(SaveRequest(inserts: inserts))
        try store.close()

        let reopened = try openStore(dir.url())
        defer { try? reopened.close() }
        let fetched = try reopened.fetch(FetchRequest(entityName: "Item")).snapshots()
        #expect(fetched.count == values.count)
        let dbl = TestModels.item.attributeIndex(named: "dbl")!
        let when = TestModels.item.attributeIndex(named: "when")!
        let byID = Dictionary(uniqueKeysWithValues: fetched.map { ($0.objectID, $0) })
        for (id, value) in zip(ids, values) {
            guard case .double(let read)? = byID[id]?.attributes[dbl] else {
                Issue.record("\(value.description) did not read back as a double")
                continue
            }
            #expect(read.bitPattern == value.bitPattern, "\(value.description)")
            guard case .date(let date)? = byID[id]?.attributes[when] else {
                Issue.record("\(value.description) did not read back as a date")
                continue
            }
            #expect(date.timeIntervalSinceReferenceDate.bitPattern == value.bitPattern, "\(value.description)")
        }
    }
}
