import Foundation
import Testing

@testable import StrataXML

@Suite struct XMLDoubleParserTests {
    func parse(_ text: String) -> Double? {
        var text = text
        return text.withUTF8 { XMLDoubleParser.parse($0) }
    }

    @Test func thePowerTableHoldsTheTopBitsOfPowersOfTen() {
        let table = XMLDoubleParser.powers
        let zero = -XMLDoubleParser.exponentRange.lowerBound
        #expect(table[zero] == (0x8000_0000_0000_0000, 0))
        #expect(table[zero + 1] == (0xA000_0000_0000_0000, 0))
        #expect(table[zero - 1] == (0xCCCC_CCCC_CCCC_CCCC, 0xCCCC_CCCC_CCCC_CCCC))
    }

    @Test func swiftsShortestFormParsesBackToTheSameBits() {
        var rng = SystemRandomNumberGenerator()
        var decided = 0
        let samples = 100_000
        for i in 0..<samples {
            let value: Double
            switch i % 3 {
            case 0: value = Double(bitPattern: rng.next())
            case 1: value = Double.random(in: 0..<1000, using: &rng)
            default: value = Double.random(in: -1e9...1e9, using: &rng)
            }
            guard value.isFinite else { continue }
            if let parsed = parse(value.description) {
                decided += 1
                #expect(parsed.bitPattern == value.bitPattern, "\(value.description)")
            }
        }
        #expect(decided > samples / 2, "the fast path decides most inputs")
    }

    @Test func digitRunsOfEveryLengthParseExactly() {
        var rng = SystemRandomNumberGenerator()
        var decided = 0
        var total = 0
        for integerDigits in 1...12 {
            for fractionDigits in 0...12 {
                for _ in 0..<20 {
                    var text = String(
                        (0..<integerDigits).map { _ in Character(String(UInt8.random(in: 0...9, using: &rng))) })
                    if fractionDigits > 0 {
                        text +=
                            "."
                            + String(
                                (0..<fractionDigits).map { _ in Character(String(UInt8.random(in: 0...9, using: &rng)))
                                })
                    }
                    total += 1
                    // The fast path decides or leaves the text to strtod; either way the bits are exact.
                    if let parsed = parse(text) {
                        decided += 1
                        #expect(parsed.bitPattern == strtod(text, nil).bitPattern, "\(text)")
                    }
                    var copy = text
                    #expect(
                        copy.withUTF8 { XMLFormat.parseDouble($0) }?.bitPattern == strtod(text, nil).bitPattern,
                        "\(text)")
                }
            }
        }
        #expect(decided > total * 3 / 4, "the fast path decides most texts")
    }

    /// The common form's own reader (`[-]I.F`, 1 to 7 integer digits, 19 digits at most, 8 bytes
    /// or more after the sign), without the general reader behind it.
    func parseCommonForm(_ text: String) -> Double? {
        var text = text
        return text.withUTF8 { buffer in
            XMLDoubleParser.powers.withUnsafeBufferPointer { powers in
                XMLDoubleParser.parseCommonForm(
                    buffer.baseAddress!, buffer.baseAddress! + buffer.count, powers: powers.baseAddress!)
            }
        }
    }

    @Test func theCommonFormIsReadExactlyForEveryDigitSplit() {
        var rng = SystemRandomNumberGenerator()
        func digits(_ count: Int) -> String {
            String((0..<count).map { _ in Character(String(UInt8.random(in: 0...9, using: &rng))) })
        }
        var decided = 0
        var total = 0
        for integerDigits in 1...7 {
            for fractionDigits in 1...(19 - integerDigits) where integerDigits + fractionDigits + 1 >= 8 {
                for sample in 0..<40 {
                    var text = digits(integerDigits) + "." + digits(fractionDigits)
                    if sample % 2 == 1 { text = "-" + text }
                    if sample % 5 == 0 {
                        text =
                            String(repeating: "9", count: integerDigits) + "."
                            + String(repeating: "9", count: fractionDigits)
                    }
                    total += 1
                    if let parsed = parseCommonForm(text) {
                        decided += 1
                        #expect(parsed.bitPattern == strtod(text, nil).bitPattern, "\(text)")
                    }
                    var copy = text
                    #expect(
                        copy.withUTF8 { XMLFormat.parseDouble($0) }?.bitPattern == strtod(text, nil).bitPattern,
                        "\(text)")
                }
            }
        }
        #expect(decided > total * 9 / 10, "the common form decides almost every text of its shape")
    }

    @Test func swiftsShortestFormOfEverydayMagnitudesIsTheCommonForm() {
        var rng = SystemRandomNumberGenerator()
        var decided = 0
        let samples = 60_000
        for i in 0..<samples {
            let magnitude = [1.0, 10, 1000, 1e6, 9_999_999][i % 5]
            let value = Double.random(in: -magnitude...magnitude, using: &rng)
            let text = value.description
            if let parsed = parseCommonForm(text) {
                decided += 1
                #expect(parsed.bitPattern == value.bitPattern, "\(text)")
            }
            // The fast path may leave a text to strtod (exact binary fractions of 17 digits and
            // more): the loader's reader, not the fast path alone, must give the bits back.
            if let fast = parse(text) { #expect(fast.bitPattern == value.bitPattern, "\(text)") }
            var copy = text
            #expect(copy.withUTF8 { XMLFormat.parseDouble($0) }?.bitPattern == value.bitPattern, "\(text)")
        }
        #expect(decided > samples * 3 / 4, "most everyday doubles take the common form")
    }

    @Test func textsOutsideTheCommonFormAreLeftToTheGeneralReader() {
        for text in [
            "1.5", "-1.25", "12345678.9", "123456789012.5", "1.2345678e+30", "1.234567890e-5", "1.23456789012345678901",
            "12.34x678", "12.345678x", "1234567.", "-.12345678", "1.2345678-", "12,345678", "1.234 5678", "+1.2345678",
            "0.1234567890123456789",
        ] {
            #expect(parseCommonForm(text) == nil, "\(text)")
        }
        for text in [
            "1.5", "-1.25", "12345678.9", "123456789012.5", "1.2345678e+30", "1.234567890e-5", "0.30000000000000004",
        ] {
            #expect(parse(text)?.bitPattern ?? strtod(text, nil).bitPattern == strtod(text, nil).bitPattern, "\(text)")
            var copy = text
            #expect(copy.withUTF8 { XMLFormat.parseDouble($0) }?.bitPattern == strtod(text, nil).bitPattern, "\(text)")
        }
        for malformed in ["12.34x678", "12.345678x", "1.2345678-", "12,345678", "1.234 5678"] {
            var copy = malformed
            #expect(copy.withUTF8 { XMLFormat.parseDouble($0) } == nil, "\(malformed)")
        }
    }

    @Test func aNumberFollowedByMoreDigitsInMemoryParsesOnlyItsOwnText() {
        let buffer = Array("12.5999999999999999".utf8)
        buffer.withUnsafeBufferPointer { all in
            for length in [1, 2, 4, 5, 9, 12] {
                let text = String(decoding: all[0..<length], as: UTF8.self)
                let parsed = XMLFormat.parseDouble(UnsafeBufferPointer(rebasing: all[0..<length]))
                #expect(parsed?.bitPattern == strtod(text, nil).bitPattern, "\(text)")
                // Texts that are not dyadic fractions are decided by the fast path itself, which
                // must stop at the text's end even where memory goes on with digits.
                let fast = XMLDoubleParser.parse(UnsafeBufferPointer(rebasing: all[0..<length]))
                if length >= 5 { #expect(fast?.bitPattern == strtod(text, nil).bitPattern, "\(text)") }
            }
        }
    }

    @Test func edgeCasesAreExactOrLeftToStrtod() {
        for text in [
            "0", "0.0", "-0.0", "1.0", "0.1", "0.30000000000000004", "1e-05", "123.456", "9007199254740993",
            "1.7976931348623157e+308", "2.2250738585072014e-308", "5e-324", "4.9406564584124654e-324", "1e+23",
            "8.98846567431158e+307",
        ] {
            let expected = strtod(text, nil)
            if let parsed = parse(text) { #expect(parsed.bitPattern == expected.bitPattern, "\(text)") }
        }
        #expect(parse("-0.0")?.sign == .minus)
        for malformed in [
            "", "-", ".", "1.", ".5", "1e", "1e+", "1.2.3", "1x", "--1", "nan", "inf", "12345678901234567890123",
        ] {
            #expect(parse(malformed) == nil, "\(malformed)")
        }
    }
}
