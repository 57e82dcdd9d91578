/// Percent-encoding and decoding of the parts of a ``StoreURL`` (RFC 3986).
enum StoreURLPercent {
    /// The part of a URL being encoded: which characters it may keep as they are.
    enum Part {
        case userInfo, host, path, query

        /// Whether `byte` stays unencoded in this part.
        func keeps(_ byte: UInt8) -> Bool {
            if isUnreserved(byte) { return true }
            switch self {
            case .userInfo: return isSubDelimiter(byte)
            case .host: return isSubDelimiter(byte)
            case .path: return isSubDelimiter(byte) || byte == 0x3A || byte == 0x40 || byte == 0x2F
            case .query:
                return (isSubDelimiter(byte) && byte != 0x26 && byte != 0x3D && byte != 0x2B)
                    || byte == 0x3A || byte == 0x40 || byte == 0x2F || byte == 0x3F
            }
        }
    }

    /// Letters, digits, `-`, `.`, `_` and `~`.
    static func isUnreserved(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
            || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
    }

    /// `!$&'()*+,;=`.
    static func isSubDelimiter(_ byte: UInt8) -> Bool {
        [0x21, 0x24, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x3B, 0x3D].contains(byte)
    }

    /// `text` with every byte `part` may not hold written `%XX`.
    static func encode(_ text: String, keeping part: Part) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if part.keeps(byte) {
                bytes.append(byte)
            } else {
                bytes += [0x25, hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Why decoding failed: the reason, for the caller's message.
    struct Failure: Error {
        var reason: String
    }

    /// `text` with its `%XX` escapes decoded.
    ///
    /// - Throws: ``Failure`` for a `%` not followed by two hex digits, an escape decoding to a
    ///   NUL byte, or bytes that are not UTF-8.
    static func decode(_ text: Substring) throws(Failure) -> String {
        guard text.utf8.contains(0x25) else { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == 0x25 else {
                bytes.append(byte)
                continue
            }
            let high = iterator.next()
            let low = iterator.next()
            guard let high, let low, let h = hexValue(high), let l = hexValue(low) else {
                let escape = "%" + String(decoding: [high, low].compactMap { $0 }, as: UTF8.self)
                throw Failure(reason: "'\(escape)' is not a percent escape (% and two hex digits)")
            }
            let value = h << 4 | l
            guard value != 0 else { throw Failure(reason: "'%00' would put a NUL byte in the URL") }
            bytes.append(value)
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw Failure(reason: "its percent escapes do not decode to UTF-8 text")
        }
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x41...0x46: return byte - 0x41 + 10
        case 0x61...0x66: return byte - 0x61 + 10
        default: return nil
        }
    }
}
