/// An append-only byte buffer for encoding records and index keys; reused between records.
struct ByteWriter {
    /// The bytes written so far.
    var bytes: [UInt8] = []

    init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    /// Forgets the bytes, keeping the capacity.
    @inline(__always) mutating func reset() { bytes.removeAll(keepingCapacity: true) }

    @inline(__always) mutating func byte(_ value: UInt8) { bytes.append(value) }

    /// An unsigned LEB128 varint.
    @inline(__always) mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    /// A signed integer, zigzag-encoded as a varint.
    @inline(__always) mutating func signed(_ value: Int64) {
        varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// 8 bytes, little-endian.
    @inline(__always) mutating func fixed64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// 4 bytes, little-endian.
    @inline(__always) mutating func fixed32(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// 8 bytes, big-endian.
    @inline(__always) mutating func bigEndian64(_ value: UInt64) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// A varint length followed by the bytes.
    @inline(__always) mutating func lengthPrefixed<C: Collection>(_ content: C) where C.Element == UInt8 {
        varint(UInt64(content.count))
        bytes.append(contentsOf: content)
    }

    /// A string's UTF-8, length-prefixed.
    @inline(__always) mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in lengthPrefixed(utf8) }
    }
}

/// A bounds-checked reader over bytes in the memory map.
struct ByteReader {
    let base: UnsafeRawBufferPointer
    var offset = 0

    init(_ base: UnsafeRawBufferPointer) { self.base = base }

    var isAtEnd: Bool { offset == base.count }

    @inline(__always) mutating func byte() throws -> UInt8 {
        guard offset < base.count else { throw RecordCorruption(reason: "it ends early, at byte \(offset)") }
        defer { offset += 1 }
        return base[offset]
    }

    @inline(__always) mutating func varint() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let b = try byte()
            result |= UInt64(b & 0x7F) << shift
            if b < 0x80 { return result }
            shift += 7
            guard shift < 64 else { throw RecordCorruption(reason: "a varint at byte \(offset) is too long") }
        }
    }

    @inline(__always) mutating func signed() throws -> Int64 {
        let raw = try varint()
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    @inline(__always) mutating func take(_ count: Int) throws -> UnsafeRawBufferPointer {
        guard count >= 0, count <= base.count - offset else {
            throw RecordCorruption(
                reason: "a field of \(count) bytes at byte \(offset) runs past the end (\(base.count) bytes)")
        }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: base[offset..<(offset + count)])
    }

    @inline(__always) mutating func fixed64() throws -> UInt64 {
        UInt64(littleEndian: try take(8).loadUnaligned(as: UInt64.self))
    }

    @inline(__always) mutating func fixed32() throws -> UInt32 {
        UInt32(littleEndian: try take(4).loadUnaligned(as: UInt32.self))
    }

    @inline(__always) mutating func lengthPrefixed() throws -> UnsafeRawBufferPointer {
        let count = try varint()
        guard count <= UInt64(base.count) else {
            throw RecordCorruption(reason: "a length of \(count) at byte \(offset) exceeds the record")
        }
        return try take(Int(count))
    }
}
