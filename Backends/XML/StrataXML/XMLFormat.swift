import Foundation
import StrataCore

/// The names and constants of the XML store format, version 1 (see `docs/XMLStore.md`).
///
/// ```xml
/// <?xml version="1.0" encoding="UTF-8"?>
/// <strata-store format="1" modelHash="…" modelVersion="v1" storeIdentifier="…">
/// <_meta key="owner" value="lxz"/>
/// <_sequence entity="Employee" next="3"/>
/// <Employee _pk="1" _version="2" name="Ann" height="1.7" department="1"/>
/// </strata-store>
/// ```
///
/// Model names are `[A-Za-z][A-Za-z0-9_]*`, so every entity name is an XML element name and every
/// property name an XML attribute name, and the store's own names (which start with `_`, or carry
/// a `-` or a `.`) never collide with them.
enum XMLFormat {
    /// The format version this code writes and reads.
    static let version = 1
    /// The root element.
    static let rootElement = "strata-store"
    /// Root attribute: the format version.
    static let formatAttribute = "format"
    /// Root attribute: the model's structural hash.
    static let modelHashAttribute = "modelHash"
    /// Root attribute: the model's version identifier.
    static let modelVersionAttribute = "modelVersion"
    /// Root attribute: the JSON of the model the store was written with (``Model/jsonData()``);
    /// absent in stores written before stores kept their model.
    static let modelAttribute = "model"
    /// Root attribute: the store identifier.
    static let storeIdentifierAttribute = "storeIdentifier"
    /// One user-metadata entry: `<_meta key="…" value="…"/>`.
    static let metaElement = "_meta"
    /// One primary-key sequence: `<_sequence entity="…" next="…"/>`.
    static let sequenceElement = "_sequence"
    /// The persistent history, after the objects: `<_history prunedThrough="…">` holding one
    /// `<_transaction>` per recorded save (``XMLHistoryCoding``).
    static let historyElement = "_history"
    /// Object attribute: the primary key.
    static let primaryKeyAttribute = "_pk"
    /// Object attribute: the optimistic-locking version.
    static let versionAttribute = "_version"
    /// The suffix of an attribute holding a string as base64, for strings with characters XML 1.0
    /// cannot carry (most C0 controls, U+FFFE, U+FFFF): `name.b64="AAE="`.
    static let base64Suffix = ".b64"
    /// The longest value text libxml2 parses without `XML_PARSE_HUGE` (10,000,000 bytes); saves
    /// refuse longer values so that every file written can be read back.
    static let maximumValueLength = 10_000_000
}

// MARK: - Writing values

extension XMLFormat {
    /// Whether XML 1.0 can carry every character of `utf8` (as text, escaped or not).
    static func isXMLSafe<C: Collection>(_ utf8: C) -> Bool where C.Element == UInt8 {
        var iterator = utf8.makeIterator()
        var previous1: UInt8 = 0
        var previous2: UInt8 = 0
        while let byte = iterator.next() {
            if byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D { return false }
            // U+FFFE and U+FFFF are EF BF BE and EF BF BF.
            if (byte == 0xBE || byte == 0xBF) && previous1 == 0xBF && previous2 == 0xEF { return false }
            previous2 = previous1
            previous1 = byte
        }
        return true
    }

    /// The text form of a non-null value of an attribute (strings are returned as they are; the
    /// writer escapes them or switches to base64).
    static func text(of value: Value) -> String {
        switch value {
        case .null: return ""
        case .integer(let v): return String(v)
        case .double(let v): return v.description
        case .float(let v): return v.description
        case .decimal(let v): return v.isNaN ? "NaN" : v.description
        case .string(let v): return v
        case .bool(let v): return v ? "true" : "false"
        case .date(let v): return v.timeIntervalSinceReferenceDate.description
        case .binary(let v): return v.base64EncodedString()
        case .uuid(let v): return v.uuidString
        case .uri(let v): return v.absoluteString
        }
    }
}

// MARK: - Reading values

extension XMLFormat {
    /// Parses the text of a value of `type`; `nil` when the text is not a valid value of that type.
    ///
    /// Integers are decimal with an optional `-`; doubles, floats and dates use Swift's shortest
    /// round-trip form (`nan`, `inf`, `-inf` included), parsed with ``XMLDoubleParser`` or
    /// `strtod`/`strtof`, which all round correctly, so the value read is the value written, bit
    /// for bit.
    static func parseValue(_ text: UnsafeBufferPointer<UInt8>, as type: AttributeType) -> Value? {
        switch type {
        case .integer16, .integer32, .integer64:
            guard let v = parseInteger(text), type.integerRange!.contains(v) else { return nil }
            return .integer(v)
        case .double:
            return parseDouble(text).map { .double($0) }
        case .float:
            return parseFloat(text).map { .float($0) }
        case .date:
            return parseDouble(text).map { .date(Date(timeIntervalSinceReferenceDate: $0)) }
        case .string:
            return .string(String(decoding: text, as: UTF8.self))
        case .boolean:
            if equals(text, "true") { return .bool(true) }
            if equals(text, "false") { return .bool(false) }
            return nil
        case .decimal:
            let s = String(decoding: text, as: UTF8.self)
            if s == "NaN" { return .decimal(.nan) }
            guard isDecimalText(text), let d = Decimal(string: s, locale: Locale(identifier: "en_US_POSIX")) else {
                return nil
            }
            return .decimal(d)
        case .binary:
            let s = String(decoding: text, as: UTF8.self)
            return Data(base64Encoded: s).map { .binary($0) }
        case .uuid:
            return UUID(uuidString: String(decoding: text, as: UTF8.self)).map { .uuid($0) }
        case .uri:
            return URL(string: String(decoding: text, as: UTF8.self)).map { .uri($0) }
        }
    }

    /// A decimal integer with an optional leading `-`, no spaces, no `+`, in Int64 range.
    static func parseInteger(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard !text.isEmpty else { return nil }
        var i = 0
        let negative = text[0] == 0x2D
        if negative { i = 1 }
        guard i < text.count, text.count - i <= 19 else { return nil }
        var magnitude: UInt64 = 0
        while i < text.count {
            let digit = text[i] &- 0x30
            guard digit < 10 else { return nil }
            magnitude = magnitude * 10 + UInt64(digit)
            i += 1
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { return nil }
        return Int64(magnitude)
    }

    /// Whether `text` only uses the characters of a number (`0-9 + - . e E`), non-empty.
    private static func isNumberText(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        !text.isEmpty
            && text.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x2B || $0 == 0x2E || $0 == 0x65 || $0 == 0x45
            }
    }

    /// Whether `text` is a plain decimal number (`-12.5`), as `Decimal.description` writes it.
    private static func isDecimalText(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        !text.isEmpty && text.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x2E }
    }

    /// The special floating-point spellings Swift writes.
    private static func special(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        if equals(text, "nan") { return .nan }
        if equals(text, "-nan") { return -Double.nan }
        if equals(text, "inf") { return .infinity }
        if equals(text, "-inf") { return -.infinity }
        return nil
    }

    /// A double in Swift's `description` form.
    static func parseDouble(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        if let fast = XMLDoubleParser.parse(text) { return fast }
        return parseDoubleSlowly(text)
    }

    /// ``parseDouble(_:)`` with ``XMLDoubleParser/powers`` at `powers` (the loader's copy).
    @inline(__always)
    static func parseDouble(_ text: UnsafeBufferPointer<UInt8>, powers: UnsafePointer<(hi: UInt64, lo: UInt64)>)
        -> Double?
    {
        if let fast = XMLDoubleParser.parse(text, powers: powers) { return fast }
        return parseDoubleSlowly(text)
    }

    /// The spellings and numbers ``XMLDoubleParser`` leaves: `nan`, `inf`, and `strtod`.
    static func parseDoubleSlowly(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        if let s = special(text) { return s }
        guard isNumberText(text), text.count < 64 else { return nil }
        return withTerminated(text) { pointer in
            var end: UnsafeMutablePointer<CChar>?
            let v = strtod(pointer, &end)
            guard let end else { return nil }
            return UnsafePointer(end) == pointer + text.count ? v : nil
        }
    }

    /// A float in Swift's `description` form.
    static func parseFloat(_ text: UnsafeBufferPointer<UInt8>) -> Float? {
        if let s = special(text) { return Float(s) }
        guard isNumberText(text), text.count < 64 else { return nil }
        return withTerminated(text) { pointer in
            var end: UnsafeMutablePointer<CChar>?
            let v = strtof(pointer, &end)
            guard let end else { return nil }
            return UnsafePointer(end) == pointer + text.count ? v : nil
        }
    }

    /// Copies `text` (under 64 bytes) into a NUL-terminated stack buffer for C.
    private static func withTerminated<R>(_ text: UnsafeBufferPointer<UInt8>, _ body: (UnsafePointer<CChar>) -> R) -> R
    {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            let base = buffer.baseAddress!
            text.withMemoryRebound(to: CChar.self) { source in
                base.update(from: source.baseAddress!, count: source.count)
            }
            base[text.count] = 0
            return body(base)
        }
    }

    /// Whether `text` is exactly the ASCII `literal`.
    static func equals(_ text: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        guard text.count == literal.utf8CodeUnitCount else { return false }
        return memcmp(text.baseAddress!, literal.utf8Start, text.count) == 0
    }
}
