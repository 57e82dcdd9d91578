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

    /// Copies `text` to `destination` (room for `text.count` bytes) eight bytes at a time while
    /// checking it as ``isPlainASCII(_:)`` does; returns whether it is plain ASCII (when it is
    /// not, `destination` holds some of the bytes and must be ignored).
    @inline(__always)
    static func copyIfPlainASCII(_ text: UnsafeBufferPointer<UInt8>, to destination: UnsafeMutablePointer<UInt8>)
        -> Bool
    {
        guard let base = text.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        let out = UnsafeMutableRawPointer(destination)
        let high: UInt64 = 0x8080_8080_8080_8080
        let ones: UInt64 = 0x0101_0101_0101_0101
        let ampersands: UInt64 = 0x2626_2626_2626_2626
        let n = text.count
        @inline(__always) func isPlain(_ word: UInt64) -> Bool {
            let x = word ^ ampersands
            // A byte with its high bit set, or a byte of `x` that is zero (an `&` in `word`).
            return (word | ((x &- ones) & ~x)) & high == 0
        }
        if n >= 8 {
            var i = 0
            while i + 8 < n {
                let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                guard isPlain(word) else { return false }
                out.storeBytes(of: word, toByteOffset: i, as: UInt64.self)
                i += 8
            }
            // The last eight bytes, overlapping what was copied.
            let word = raw.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
            guard isPlain(word) else { return false }
            out.storeBytes(of: word, toByteOffset: n - 8, as: UInt64.self)
            return true
        }
        for i in 0..<n {
            let byte = base[i]
            if byte >= 0x80 || byte == 0x26 { return false }
            destination[i] = byte
        }
        return true
    }
}
