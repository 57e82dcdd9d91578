/// Exact decimal-to-double conversion for the loader's hot path: the Eisel-Lemire algorithm
/// (as in Go's `strconv` and `fast_float`), about ten times faster than `strtod` on the 17-digit
/// numbers Swift writes, and correctly rounded.
///
/// It handles decimal mantissas of up to 19 digits with decimal exponents in
/// ``XMLDoubleParser/exponentRange``; for anything else, or the rare inputs the algorithm cannot
/// decide, it returns `nil` and the caller falls back to `strtod`, which is also correctly
/// rounded. Either way the double read is the double written, bit for bit.
enum XMLDoubleParser {
    /// The decimal exponents the power table covers.
    static let exponentRange = -64...64

    /// Parses `[-]digits[.digits][e[+-]digits]`; `nil` when the text has another shape or the
    /// fast path cannot decide.
    static func parse(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        var i = 0
        let count = text.count
        guard count > 0 else { return nil }
        let negative = text[0] == 0x2D
        if negative { i = 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var exponent = 0
        var sawDigit = false
        while i < count, case let d = text[i] &- 0x30, d < 10 {
            sawDigit = true
            if mantissa != 0 || d != 0 { digits += 1 }
            guard digits <= 19 else { return nil }
            mantissa = mantissa * 10 + UInt64(d)
            i += 1
        }
        if i < count && text[i] == 0x2E {
            i += 1
            var sawFraction = false
            while i < count, case let d = text[i] &- 0x30, d < 10 {
                sawFraction = true
                if mantissa != 0 || d != 0 { digits += 1 }
                guard digits <= 19 else { return nil }
                mantissa = mantissa * 10 + UInt64(d)
                exponent -= 1
                i += 1
            }
            guard sawFraction else { return nil }
        }
        guard sawDigit else { return nil }
        if i < count && (text[i] == 0x65 || text[i] == 0x45) {
            i += 1
            var negativeExponent = false
            if i < count && (text[i] == 0x2D || text[i] == 0x2B) {
                negativeExponent = text[i] == 0x2D
                i += 1
            }
            var value = 0
            var sawExponentDigit = false
            while i < count, case let d = text[i] &- 0x30, d < 10 {
                sawExponentDigit = true
                guard value < 10_000 else { return nil }
                value = value * 10 + Int(d)
                i += 1
            }
            guard sawExponentDigit else { return nil }
            exponent += negativeExponent ? -value : value
        }
        guard i == count else { return nil }
        return eiselLemire(mantissa: mantissa, exponent: exponent, negative: negative)
    }

    /// `mantissa × 10^exponent`, correctly rounded, or `nil` when undecided or out of range.
    static func eiselLemire(mantissa: UInt64, exponent: Int, negative: Bool) -> Double? {
        if mantissa == 0 { return negative ? -0.0 : 0.0 }
        guard exponentRange.contains(exponent) else { return nil }
        let power = powers[exponent - exponentRange.lowerBound]
        let clz = mantissa.leadingZeroBitCount
        let man = mantissa << UInt64(clz)
        var exp2 = UInt64(bitPattern: Int64((217_706 * exponent) >> 16 + 64 + 1023)) &- UInt64(clz)

        var (xHi, xLo) = man.multipliedFullWidth(by: power.hi)
        if xHi & 0x1FF == 0x1FF && xLo &+ man < man {
            let (yHi, yLo) = man.multipliedFullWidth(by: power.lo)
            var mergedHi = xHi
            let mergedLo = xLo &+ yHi
            if mergedLo < xLo { mergedHi &+= 1 }
            if mergedHi & 0x1FF == 0x1FF && mergedLo &+ 1 == 0 && yLo &+ man < man { return nil }
            xHi = mergedHi
            xLo = mergedLo
        }
        let msb = xHi >> 63
        var bits = xHi >> (msb + 9)
        exp2 &-= 1 ^ msb
        if xLo == 0 && xHi & 0x1FF == 0 && bits & 3 == 1 { return nil }
        bits += bits & 1
        bits >>= 1
        if bits >> 53 > 0 {
            bits >>= 1
            exp2 &+= 1
        }
        if exp2 &- 1 >= 0x7FF - 1 { return nil }
        var pattern = exp2 << 52 | bits & 0x000F_FFFF_FFFF_FFFF
        if negative { pattern |= 0x8000_0000_0000_0000 }
        return Double(bitPattern: pattern)
    }

    /// For each exponent of ``exponentRange``, the top 128 bits of 10^exponent, truncated.
    static let powers: [(hi: UInt64, lo: UInt64)] = exponentRange.map(topBitsOfPowerOfTen)

    /// The 128 most significant bits of 10^exponent (rounded down), computed exactly with
    /// unbounded integers.
    static func topBitsOfPowerOfTen(_ exponent: Int) -> (hi: UInt64, lo: UInt64) {
        var ten = BigUInt(1)
        for _ in 0..<abs(exponent) { ten.multiply(by: 10) }
        let length = ten.bitLength
        let top: BigUInt
        if exponent >= 0 {
            top = length > 128 ? ten.shiftedRight(length - 128) : ten.shiftedLeft(128 - length)
        } else {
            // floor(2^(127 + length) / 10^-exponent) lies in [2^127, 2^128).
            top = BigUInt.quotient(ofPowerOfTwo: 127 + length, dividedBy: ten)
        }
        return (top.word(1), top.word(0))
    }
}

/// Just enough unsigned big-integer arithmetic to build the power table once.
struct BigUInt {
    /// 32-bit limbs, least significant first, no trailing zero limbs (zero is `[]`).
    var limbs: [UInt32]

    init(_ value: UInt32) { limbs = value == 0 ? [] : [value] }
    init(limbs: [UInt32]) {
        self.limbs = limbs
        normalize()
    }

    mutating func normalize() { while limbs.last == 0 { limbs.removeLast() } }

    var bitLength: Int { limbs.isEmpty ? 0 : (limbs.count - 1) * 32 + (32 - limbs.last!.leadingZeroBitCount) }

    mutating func multiply(by factor: UInt32) {
        var carry: UInt64 = 0
        for i in limbs.indices {
            let product = UInt64(limbs[i]) * UInt64(factor) + carry
            limbs[i] = UInt32(truncatingIfNeeded: product)
            carry = product >> 32
        }
        if carry > 0 { limbs.append(UInt32(carry)) }
    }

    func bit(_ index: Int) -> Bool {
        let limb = index / 32
        return limb < limbs.count && (limbs[limb] >> UInt32(index % 32)) & 1 == 1
    }

    func shiftedLeft(_ count: Int) -> BigUInt {
        var result = [UInt32](repeating: 0, count: limbs.count + count / 32 + 1)
        for i in 0..<bitLength where bit(i) {
            let j = i + count
            result[j / 32] |= 1 << UInt32(j % 32)
        }
        return BigUInt(limbs: result)
    }

    func shiftedRight(_ count: Int) -> BigUInt {
        let length = bitLength
        guard length > count else { return BigUInt(0) }
        var result = [UInt32](repeating: 0, count: (length - count) / 32 + 1)
        for i in count..<length where bit(i) {
            let j = i - count
            result[j / 32] |= 1 << UInt32(j % 32)
        }
        return BigUInt(limbs: result)
    }

    /// The 64-bit word at `index` (least significant first).
    func word(_ index: Int) -> UInt64 {
        let low = 2 * index < limbs.count ? UInt64(limbs[2 * index]) : 0
        let high = 2 * index + 1 < limbs.count ? UInt64(limbs[2 * index + 1]) : 0
        return high << 32 | low
    }

    static func >= (lhs: BigUInt, rhs: BigUInt) -> Bool {
        if lhs.limbs.count != rhs.limbs.count { return lhs.limbs.count > rhs.limbs.count }
        for i in lhs.limbs.indices.reversed() where lhs.limbs[i] != rhs.limbs[i] { return lhs.limbs[i] > rhs.limbs[i] }
        return true
    }

    /// `self - other`, for `self >= other`.
    mutating func subtract(_ other: BigUInt) {
        var borrow: Int64 = 0
        for i in limbs.indices {
            var difference = Int64(limbs[i]) - borrow - (i < other.limbs.count ? Int64(other.limbs[i]) : 0)
            borrow = 0
            if difference < 0 {
                difference += 1 << 32
                borrow = 1
            }
            limbs[i] = UInt32(difference)
        }
        normalize()
    }

    /// `self * 2 + bit`.
    mutating func doubleAndAdd(_ bit: Bool) {
        var carry: UInt32 = bit ? 1 : 0
        for i in limbs.indices {
            let next = limbs[i] >> 31
            limbs[i] = limbs[i] << 1 | carry
            carry = next
        }
        if carry > 0 { limbs.append(carry) }
    }

    /// floor(2^power / divisor), by binary long division.
    static func quotient(ofPowerOfTwo power: Int, dividedBy divisor: BigUInt) -> BigUInt {
        var remainder = BigUInt(0)
        var quotient = [UInt32](repeating: 0, count: power / 32 + 1)
        for i in stride(from: power, through: 0, by: -1) {
            remainder.doubleAndAdd(i == power)
            if remainder >= divisor {
                remainder.subtract(divisor)
                quotient[i / 32] |= 1 << UInt32(i % 32)
            }
        }
        return BigUInt(limbs: quotient)
    }
}
