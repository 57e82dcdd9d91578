import Foundation
import StrataCore

/// Order-preserving keys for secondary databases (indexes and unique constraints).
///
/// Each value becomes a tag byte and a payload whose byte order is the value's order: `null`
/// (tag 0) first; integers as 8 big-endian bytes with the sign bit flipped; doubles, floats,
/// decimals and dates as the ordered bits of a `Double` (`-0` and every NaN made canonical);
/// strings (by Unicode scalars, which UTF-8 byte order follows), binaries and URIs escaped
/// (`00` -> `00 FF`) and ended by `00 00`; booleans as 0 or 1; UUIDs as their 16 bytes. Values
/// equal as ``Value`` give equal keys.
///
/// Keys longer than LMDB's limit (511 bytes) are truncated. Truncation keeps the order
/// (monotone) but can merge distinct values, so the store treats every secondary lookup as a
/// set of *candidates* and checks each one against its record.
enum IndexKey {
    /// LMDB's compile-time key limit.
    static let maximumLength = 511

    /// The key of `values` (the attributes at `positions` of `snapshot`), truncated.
    static func encode(_ attributes: [Value], positions: [Int], into writer: inout ByteWriter) {
        writer.reset()
        for position in positions { append(attributes[position], to: &writer) }
        if writer.bytes.count > maximumLength { writer.bytes.removeLast(writer.bytes.count - maximumLength) }
    }

    /// The key of one value, not truncated (for range bounds and prefixes).
    static func encode(_ value: Value) -> [UInt8] {
        var writer = ByteWriter(capacity: 32)
        append(value, to: &writer)
        return writer.bytes
    }

    /// Appends the tag and payload of `value`.
    static func append(_ value: Value, to writer: inout ByteWriter) {
        switch value {
        case .null: writer.byte(0x00)
        case .integer(let v):
            writer.byte(0x10)
            writer.bigEndian64(UInt64(bitPattern: v) ^ (1 << 63))
        case .double(let v):
            writer.byte(0x11)
            writer.bigEndian64(orderedBits(v))
        case .float(let v):
            writer.byte(0x11)
            writer.bigEndian64(orderedBits(Double(v)))
        case .decimal(let v):
            writer.byte(0x11)
            writer.bigEndian64(orderedBits(v.isNaN ? .nan : NSDecimalNumber(decimal: v).doubleValue))
        case .date(let v):
            writer.byte(0x12)
            writer.bigEndian64(orderedBits(v.timeIntervalSinceReferenceDate))
        case .bool(let v):
            writer.byte(0x13)
            writer.byte(v ? 1 : 0)
        case .string(let v):
            writer.byte(0x20)
            var text = v
            text.withUTF8 { escaped($0, into: &writer) }
        case .binary(let v):
            writer.byte(0x21)
            v.withUnsafeBytes { escaped($0.bindMemory(to: UInt8.self), into: &writer) }
        case .uri(let v):
            writer.byte(0x22)
            var text = v.absoluteString
            text.withUTF8 { escaped($0, into: &writer) }
        case .uuid(let v):
            writer.byte(0x23)
            withUnsafeBytes(of: v.uuid) { writer.bytes.append(contentsOf: $0) }
        }
    }

    /// The escaped bytes of a string's prefix, without the terminator: every key of a string
    /// that begins with `prefix` begins with these bytes (after the tag).
    static func stringPrefix(_ prefix: String) -> [UInt8] {
        var writer = ByteWriter(capacity: prefix.utf8.count + 4)
        writer.byte(0x20)
        for byte in prefix.utf8 {
            writer.byte(byte)
            if byte == 0 { writer.byte(0xFF) }
        }
        return writer.bytes
    }

    /// The length of the leading value's encoding in `key` (a key of one or more values, as
    /// ``encode(_:positions:into:)`` writes), or the whole key when it was truncated inside it.
    static func leadingLength(of key: UnsafeRawBufferPointer) -> Int {
        guard let tag = key.first else { return 0 }
        switch tag {
        case 0x00: return 1
        case 0x10, 0x11, 0x12: return min(9, key.count)
        case 0x13: return min(2, key.count)
        case 0x23: return min(17, key.count)
        default:
            var i = 1
            while i < key.count {
                if key[i] == 0 {
                    guard i + 1 < key.count else { return key.count }
                    if key[i + 1] == 0 { return i + 2 }
                    i += 2
                } else {
                    i += 1
                }
            }
            return key.count
        }
    }

    /// The key of a NaN double, float or decimal (every NaN has this one), which sorts after
    /// every number's.
    static let nanKey = encode(.double(.nan))

    private static func escaped(_ bytes: UnsafeBufferPointer<UInt8>, into writer: inout ByteWriter) {
        for byte in bytes {
            writer.byte(byte)
            if byte == 0 { writer.byte(0xFF) }
        }
        writer.byte(0)
        writer.byte(0)
    }

    private static func orderedBits(_ value: Double) -> UInt64 {
        let canonical = value.isNaN ? Double.nan : (value == 0 ? 0 : value)
        let bits = canonical.bitPattern
        return bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
    }
}
