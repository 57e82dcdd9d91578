import Foundation

/// PostgreSQL's binary `numeric`, for binary `COPY` (where a field cannot travel as text): the
/// number of base-10000 digits, the weight of the first digit, the sign (`0x4000` negative,
/// `0xC000` NaN), the display scale (digits after the point), then the digits, each an `int16`.
enum PostgresNumeric {
    /// The binary `numeric` of `value`, read from its plain decimal text (`-123.45`).
    static func binary(_ value: Decimal) -> [UInt8] {
        if value.isNaN { return words([0, 0, 0xC000, 0]) }
        return binary(decimalText: NSDecimalNumber(decimal: value).description(withLocale: nil))
    }

    /// The binary `numeric` of `text`, an optional `-`, decimal digits and an optional point
    /// followed by digits (what `NSDecimalNumber` prints; never an exponent).
    static func binary(decimalText text: String) -> [UInt8] {
        var utf8 = Substring(text).utf8
        let negative = utf8.first == UInt8(ascii: "-")
        if negative { utf8 = utf8.dropFirst() }
        let point = utf8.firstIndex(of: UInt8(ascii: "."))
        let integerPart = Array(utf8[..<(point ?? utf8.endIndex)]).map { Int($0) - 48 }
        let fractionPart = point.map { Array(utf8[utf8.index(after: $0)...]).map { Int($0) - 48 } } ?? []
        // Groups of four decimal digits aligned on the point: the integer part padded on the left,
        // the fraction on the right.
        let integerDigits = Array(repeating: 0, count: (4 - integerPart.count % 4) % 4) + integerPart
        let fractionDigits = fractionPart + Array(repeating: 0, count: (4 - fractionPart.count % 4) % 4)
        var groups: [Int] = []
        for start in stride(from: 0, to: integerDigits.count, by: 4) {
            groups.append(integerDigits[start..<start + 4].reduce(0) { $0 * 10 + $1 })
        }
        var weight = groups.count - 1
        for start in stride(from: 0, to: fractionDigits.count, by: 4) {
            groups.append(fractionDigits[start..<start + 4].reduce(0) { $0 * 10 + $1 })
        }
        // No leading or trailing zero groups: the weight moves with the leading ones.
        let first = groups.firstIndex { $0 != 0 }
        guard let first else { return words([0, 0, 0, fractionPart.count]) }
        weight -= first
        let last = groups.lastIndex { $0 != 0 }!
        let digits = Array(groups[first...last])
        return words([digits.count, weight, negative ? 0x4000 : 0, fractionPart.count] + digits)
    }

    private static func words(_ values: [Int]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(values.count * 2)
        for value in values {
            withUnsafeBytes(of: UInt16(truncatingIfNeeded: value).bigEndian) { bytes.append(contentsOf: $0) }
        }
        return bytes
    }
}
