/// Byte-level checks of attribute text on the loader's hot path.
enum XMLText {
    /// Whether every byte of `text` is ASCII and none is `&`: such text is stored as it is (it is
    /// valid UTF-8 and holds no `&#38;` to decode). Eight bytes at a time.
    @inline(__always)
    static func isPlainASCII(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = text.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        let high: UInt64 = 0x8080_8080_8080_8080
        let ones: UInt64 = 0x0101_0101_0101_0101
        let ampersands: UInt64 = 0x2626_2626_2626_2626
        var i = 0
        while i + 8 <= text.count {
            let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            let x = word ^ ampersands
            // A byte with its high bit set, or a byte of `x` that is zero (an `&` in `word`).
            if (word | ((x &- ones) & ~x)) & high != 0 { return false }
            i += 8
        }
        while i < text.count {
            let byte = base[i]
            if byte >= 0x80 || byte == 0x26 { return false }
            i += 1
        }
        return true
    }
}
