/// Exact decimal-to-double conversion for the loader's hot path: the Eisel-Lemire algorithm
/// (as in Go's `strconv` and `fast_float`), about ten times faster than `strtod` on the 17-digit
/// numbers Swift writes, and correctly rounded.
///
/// It handles decimal mantissas of up to 19 digits with decimal exponents in
/// ``XMLDoubleParser/exponentRange``; for anything else, or the inputs neither the algorithm nor
/// Clinger's exact case (``exactQuotient(mantissa:exponent:negative:)``) can decide (binary
/// fractions of 17 digits and more, such as `-7259814.2431640625`), it returns `nil` and the
/// caller falls back to `strtod`, which is also correctly rounded. Either way the double read is the double written, bit for bit.
enum XMLDoubleParser {
    /// The decimal exponents the power table covers.
    static let exponentRange = -64...64

    /// Parses `[-]digits[.digits][e[+-]digits]`; `nil` when the text has another shape or the
    /// fast path cannot decide.
    ///
    /// Digits are read eight at a time (``accumulateDigits(_:_:_:_:)``), with no loop per digit:
    /// the 17-digit numbers Swift writes cost three or four steps.
    static func parse(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        powers.withUnsafeBufferPointer { parse(text, powers: $0.baseAddress!) }
    }

    /// ``parse(_:)`` with the power table at `powers` (``powers``, which the loader copies once
    /// so that each number does not pay for the lazy global's check).
    @inline(__always)
    static func parse(_ text: UnsafeBufferPointer<UInt8>, powers: UnsafePointer<(hi: UInt64, lo: UInt64)>) -> Double? {
        guard let first = text.baseAddress, text.count > 0 else { return nil }
        let end = first + text.count
        if let common = parseCommonForm(first, end, powers: powers) { return common }
        return parseAnyForm(first, end, powers: powers)
    }

    /// The form Swift writes for most doubles of everyday magnitude, `[-]I.F` with 1 to 7 integer
    /// digits, at most 19 digits in all and at least 8 bytes after the sign
    /// (`966.0237957257917`), read in a few steps with no loop per digit (one or two 8-byte loads
    /// for the fraction, the last one ending at the text's end); `nil` for any other form or when
    /// Eisel-Lemire cannot decide, which ``parseAnyForm(_:_:powers:)`` then reads.
    @inline(__always)
    static func parseCommonForm(
        _ first: UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>, powers: UnsafePointer<(hi: UInt64, lo: UInt64)>
    ) -> Double? {
        let negative = first.pointee == 0x2D
        let p = negative ? first + 1 : first
        guard end - p >= 8 else { return nil }
        // The integer part: the digits before the first non-digit of the first eight bytes,
        // which must be the point.
        let head = UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
        let headNonDigits = nonDigitBytes(head)
        guard headNonDigits != 0 else { return nil }
        let integerDigits = headNonDigits.trailingZeroBitCount >> 3
        guard integerDigits > 0, p[integerDigits] == 0x2E else { return nil }
        let shift = UInt64(8 * (8 - integerDigits))
        var mantissa = parseEightDigits((head << shift) | (0x3030_3030_3030_3030 >> (64 - shift)))
        // The fraction: whole 8-byte chunks, then the last 1 to 8 digits read as the text's last
        // eight bytes with the bytes before them replaced by leading zeros.
        var q = p + integerDigits + 1
        var fractionDigits = end - q
        guard fractionDigits > 0, integerDigits + fractionDigits <= 19 else { return nil }
        let exponent = -fractionDigits
        while fractionDigits > 8 {
            let chunk = UInt64(littleEndian: UnsafeRawPointer(q).loadUnaligned(as: UInt64.self))
            guard nonDigitBytes(chunk) == 0 else { return nil }
            mantissa = mantissa &* 100_000_000 &+ parseEightDigits(chunk)
            q += 8
            fractionDigits -= 8
        }
        let tail = UInt64(littleEndian: UnsafeRawPointer(end - 8).loadUnaligned(as: UInt64.self))
        // The bytes before the last `fractionDigits` (the low ones): not checked, made '0'.
        let before: UInt64 = (1 &<< UInt64(8 * (8 - fractionDigits))) &- 1
        guard nonDigitBytes(tail) & ~before == 0 else { return nil }
        mantissa =
            mantissa &* powerOfTen(fractionDigits)
            &+ parseEightDigits((tail & ~before) | (0x3030_3030_3030_3030 & before))
        return eiselLemire(mantissa: mantissa, exponent: exponent, negative: negative, powers: powers)
    }

    /// Any form ``parse(_:)`` reads: `[-]digits[.digits][e[+-]digits]`.
    static func parseAnyForm(
        _ first: UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>, powers: UnsafePointer<(hi: UInt64, lo: UInt64)>
    ) -> Double? {
        var p = first
        let negative = p.pointee == 0x2D
        if negative { p += 1 }
        // The integer part: at least one digit. Leading zeros are not significant.
        let integerStart = p
        while p < end && p.pointee == 0x30 { p += 1 }
        let significantStart = p
        var mantissa: UInt64 = 0
        accumulateDigits(&p, end, first, &mantissa)
        guard p > integerStart else { return nil }
        var digits = p - significantStart
        var exponent = 0
        if p < end && p.pointee == 0x2E {
            p += 1
            let fractionStart = p
            if digits == 0 {
                // Still no significant digit (0.000123): the zeros only move the exponent.
                while p < end && p.pointee == 0x30 { p += 1 }
                exponent -= p - fractionStart
            }
            let fractionDigitsStart = p
            accumulateDigits(&p, end, first, &mantissa)
            guard p > fractionStart else { return nil }
            let fractionDigits = p - fractionDigitsStart
            digits += fractionDigits
            exponent -= fractionDigits
        }
        // More than 19 significant digits may have overflowed the mantissa: leave it to strtod.
        guard digits <= 19 else { return nil }
        if p < end && (p.pointee == 0x65 || p.pointee == 0x45) {
            p += 1
            var negativeExponent = false
            if p < end && (p.pointee == 0x2D || p.pointee == 0x2B) {
                negativeExponent = p.pointee == 0x2D
                p += 1
            }
            var value = 0
            let exponentStart = p
            while p < end, case let d = p.pointee &- 0x30, d < 10 {
                guard value < 10_000 else { return nil }
                value = value * 10 + Int(d)
                p += 1
            }
            guard p > exponentStart else { return nil }
            exponent += negativeExponent ? -value : value
        }
        guard p == end else { return nil }
        return eiselLemire(mantissa: mantissa, exponent: exponent, negative: negative, powers: powers)
    }

    /// Appends the decimal digits at `p` (up to the first non-digit or `end`) to `mantissa`,
    /// advancing `p`. Wraps silently past 2^64: callers reject more than 19 digits.
    ///
    /// Eight bytes at a time, with no loop per digit: a run of fewer than eight digits (`966` of
    /// `966.0237`) is found with the non-digit mask and padded with leading `0`s; fewer than eight
    /// bytes left are read as the last eight bytes of the text (from `start`), shifted.
    @inline(__always)
    static func accumulateDigits(
        _ p: inout UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>, _ start: UnsafePointer<UInt8>,
        _ mantissa: inout UInt64
    ) {
        while p < end {
            let remaining = end - p
            let chunk: UInt64
            if remaining >= 8 {
                chunk = UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
            } else if end - start >= 8 {
                // The bytes from `p` in the low end, zeros (non-digits) above them.
                chunk =
                    UInt64(littleEndian: UnsafeRawPointer(end - 8).loadUnaligned(as: UInt64.self))
                    >> UInt64(8 * (8 - remaining))
            } else {
                while p < end, case let d = p.pointee &- 0x30, d < 10 {
                    mantissa = mantissa &* 10 &+ UInt64(d)
                    p += 1
                }
                return
            }
            let nonDigits = nonDigitBytes(chunk)
            if nonDigits == 0 {
                mantissa = mantissa &* 100_000_000 &+ parseEightDigits(chunk)
                p += 8
                continue
            }
            // The digits before the first non-digit byte (the lowest flagged one: carries and
            // borrows only reach the bytes above a non-digit).
            let count = nonDigits.trailingZeroBitCount >> 3
            if count > 0 {
                let shift = UInt64(8 * (8 - count))
                let padded = (chunk << shift) | (0x3030_3030_3030_3030 >> (64 - shift))
                mantissa = mantissa &* powerOfTen(count) &+ parseEightDigits(padded)
                p += count
            }
            return
        }
    }

    /// The high bit of each byte of `chunk` that is not an ASCII digit (exact up to and including
    /// the first such byte).
    @inline(__always)
    static func nonDigitBytes(_ chunk: UInt64) -> UInt64 {
        ((chunk &+ 0x4646_4646_4646_4646) | (chunk &- 0x3030_3030_3030_3030)) & 0x8080_8080_8080_8080
    }

    /// 10^`count`, for `count` in 1...8.
    @inline(__always)
    static func powerOfTen(_ count: Int) -> UInt64 {
        switch count {
        case 1: return 10
        case 2: return 100
        case 3: return 1_000
        case 4: return 10_000
        case 5: return 100_000
        case 6: return 1_000_000
        case 7: return 10_000_000
        default: return 100_000_000
        }
    }

    /// The value of eight ASCII digits (first byte least significant, so first in the text), in
    /// three multiplications (the SWAR method of `fast_float`).
    @inline(__always)
    static func parseEightDigits(_ chunk: UInt64) -> UInt64 {
        let mask: UInt64 = 0x0000_00FF_0000_00FF
        let mul1: UInt64 = 0x000F_4240_0000_0064 // 100 + (1_000_000 << 32)
        let mul2: UInt64 = 0x0000_2710_0000_0001 // 1 + (10_000 << 32)
        var value = chunk &- 0x3030_3030_3030_3030
        value = (value &* 10) &+ (value >> 8)
        value = (((value & mask) &* mul1) &+ (((value >> 16) & mask) &* mul2)) >> 32
        return value & 0xFFFF_FFFF
    }

    /// `mantissa × 10^exponent`, correctly rounded, or `nil` when undecided or out of range.
    /// `powers`: the table ``powers``.
    @inline(__always)
    static func eiselLemire(
        mantissa: UInt64, exponent: Int, negative: Bool, powers: UnsafePointer<(hi: UInt64, lo: UInt64)>
    ) -> Double? {
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
            if mergedHi & 0x1FF == 0x1FF && mergedLo &+ 1 == 0 && yLo &+ man < man {
                return exactQuotient(mantissa: mantissa, exponent: exponent, negative: negative)
            }
            xHi = mergedHi
            xLo = mergedLo
        }
        let msb = xHi >> 63
        var bits = xHi >> (msb + 9)
        exp2 &-= 1 ^ msb
        if xLo == 0 && xHi & 0x1FF == 0 && bits & 3 == 1 {
            return exactQuotient(mantissa: mantissa, exponent: exponent, negative: negative)
        }
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

    /// `mantissa × 10^exponent` by one floating-point multiplication or division (Clinger's exact
    /// case), for the texts Eisel-Lemire leaves undecided; `nil` outside that case.
    ///
    /// The truncated power table leaves many exactly representable values undecided (`0.5`,
    /// `137122.513671875`: short binary fractions). When the mantissa fits a double's 53 bits
    /// and 10^|exponent| is itself a double (|exponent| <= 22), both operands are exact and the
    /// one correctly rounded operation gives the correctly rounded result.
    @inline(never)
    static func exactQuotient(mantissa: UInt64, exponent: Int, negative: Bool) -> Double? {
        guard mantissa <= 1 << 53, (-22...22).contains(exponent) else { return nil }
        let value =
            exponent < 0
            ? Double(mantissa) / exactPowersOfTen[-exponent]
            : Double(mantissa) * exactPowersOfTen[exponent]
        return negative ? -value : value
    }

    /// 10^0 through 10^22, the powers of ten a double holds exactly.
    static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

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
