import Foundation

/// A parsed JSON document, kept exact: integers stay integers, keys keep their order.
///
/// Strata's file formats (models, JSON Lines) read through this type so that every error can
/// name the JSON path of the faulty part, and write through it so output is stable byte for byte.
package indirect enum JSONNode: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without fraction or exponent that fits in 64 bits.
    case integer(Int64)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONNode])
    /// An object, with its keys in document order.
    case object([(String, JSONNode)])

    /// Parses `data`, which must be UTF-8 (RFC 8259): invalid UTF-8 is an error, not replaced.
    /// A number too large for a `Double` (`1e400`) is an error, not infinity.
    ///
    /// - Throws: ``JSONSyntaxError`` with the byte offset, line and column; callers turn it into
    ///   a ``StrataError`` of their own code.
    package static func parse(_ data: Data) throws(JSONSyntaxError) -> JSONNode {
        try parse(bytes: Array(data))
    }

    /// Parses `bytes` (see ``parse(_:)``).
    package static func parse(bytes: [UInt8]) throws(JSONSyntaxError) -> JSONNode {
        var parser = JSONParser(bytes: bytes)
        return try parser.parseDocument()
    }

    /// The value for `key` in an object (`nil` for other nodes or a missing key).
    package subscript(key: String) -> JSONNode? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    /// A short name of the node's kind, for messages.
    package var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .integer, .double: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// Compact single-line JSON, keys in their stored order.
    package func compactText() -> String {
        var out = ""
        write(into: &out, indent: nil, level: 0)
        return out
    }

    /// Pretty JSON with two-space indentation and a final newline, keys in their stored order.
    package func prettyText() -> String {
        var out = ""
        write(into: &out, indent: "  ", level: 0)
        return out + "\n"
    }

    private func write(into out: inout String, indent: String?, level: Int) {
        let newline = indent == nil ? "" : "\n"
        func pad(_ n: Int) -> String { indent.map { String(repeating: $0, count: n) } ?? "" }
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .integer(let i): out += String(i)
        case .double(let d):
            if d.isFinite && d == d.rounded() && abs(d) < 1e15 {
                out += String(format: "%.1f", d)
            } else {
                out += "\(d)"
            }
        case .string(let s): JSONNode.appendQuoted(s, to: &out)
        case .array(let items):
            if items.isEmpty {
                out += "[]"
                return
            }
            out += "[" + newline
            for (i, item) in items.enumerated() {
                out += pad(level + 1)
                item.write(into: &out, indent: indent, level: level + 1)
                out += (i < items.count - 1 ? "," : "") + newline
            }
            out += pad(level) + "]"
        case .object(let members):
            if members.isEmpty {
                out += "{}"
                return
            }
            out += "{" + newline
            for (i, (key, value)) in members.enumerated() {
                out += pad(level + 1)
                JSONNode.appendQuoted(key, to: &out)
                out += indent == nil ? ":" : ": "
                value.write(into: &out, indent: indent, level: level + 1)
                out += (i < members.count - 1 ? "," : "") + newline
            }
            out += pad(level) + "}"
        }
    }

    /// Appends `s` to `out` as a JSON string literal: quotes, backslashes and control characters
    /// escaped (`\n`, `\r`, `\t`, else `\u00XX`), everything else as is. A string with nothing
    /// to escape is appended in one piece.
    package static func appendQuoted(_ s: String, to out: inout String) {
        out += "\""
        guard s.utf8.contains(where: { $0 == 0x22 || $0 == 0x5C || $0 < 0x20 }) else {
            out += s
            out += "\""
            return
        }
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }

    /// Node equality; objects compare member by member in order.
    package static func == (lhs: JSONNode, rhs: JSONNode) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.integer(let a), .integer(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    /// Hashes the node.
    package func hash(into hasher: inout Hasher) { hasher.combine(compactText()) }
}

/// A JSON syntax error: where (byte offset, 1-based line and column) and what.
package struct JSONSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    package var message: String
    /// The byte offset of the problem.
    package var offset: Int
    /// The 1-based line.
    package var line: Int
    /// The 1-based column (in bytes).
    package var column: Int
    /// `line L, column C: message`.
    package var description: String { "line \(line), column \(column): \(message)" }
}

/// A strict RFC 8259 parser with a nesting limit (512), so hostile input cannot exhaust the stack.
private struct JSONParser {
    let bytes: [UInt8]
    var index = 0
    var depth = 0
    static let maximumDepth = 512

    init(bytes: [UInt8]) { self.bytes = bytes }

    func error(_ message: String, at position: Int? = nil) -> JSONSyntaxError {
        let offset = min(position ?? index, bytes.count)
        var line = 1
        var column = 1
        for byte in bytes[..<offset] {
            if byte == 0x0A {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return JSONSyntaxError(message: message, offset: offset, line: line, column: column)
    }

    mutating func parseDocument() throws(JSONSyntaxError) -> JSONNode {
        if let invalid = UTF8Validation.firstInvalidOffset(in: bytes) {
            throw error(
                "invalid UTF-8: the byte 0x\(String(bytes[invalid], radix: 16, uppercase: true)) does not start a valid sequence",
                at: invalid)
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        skipSpace()
        let node = try parseValue()
        skipSpace()
        guard index == bytes.count else { throw error("unexpected text after the JSON value") }
        return node
    }

    mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
    }

    mutating func parseValue() throws(JSONSyntaxError) -> JSONNode {
        guard index < bytes.count else { throw error("unexpected end of input, expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character '\(Character(Unicode.Scalar(bytes[index])))', expected a value")
        }
    }

    mutating func literal(_ word: String) throws(JSONSyntaxError) {
        let w = Array(word.utf8)
        guard index + w.count <= bytes.count, Array(bytes[index..<(index + w.count)]) == w else {
            throw error("invalid literal, expected '\(word)'")
        }
        index += w.count
    }

    mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > Self.maximumDepth { throw error("nesting deeper than \(Self.maximumDepth) levels") }
    }

    mutating func parseObject() throws(JSONSyntaxError) -> JSONNode {
        try enter()
        defer { depth -= 1 }
        index += 1
        var members: [(String, JSONNode)] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error("expected a key in quotes")
            }
            let keyStart = index
            let key = try parseString()
            if members.contains(where: { $0.0 == key }) { throw error("duplicate key '\(key)'", at: keyStart) }
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw error("expected ':' after key '\(key)'")
            }
            index += 1
            skipSpace()
            members.append((key, try parseValue()))
            skipSpace()
            guard index < bytes.count else { throw error("unexpected end of input in an object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            throw error("expected ',' or '}' in an object")
        }
    }

    mutating func parseArray() throws(JSONSyntaxError) -> JSONNode {
        try enter()
        defer { depth -= 1 }
        index += 1
        var items: [JSONNode] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            skipSpace()
            items.append(try parseValue())
            skipSpace()
            guard index < bytes.count else { throw error("unexpected end of input in an array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(items)
            }
            throw error("expected ',' or ']' in an array")
        }
    }

    mutating func parseString() throws(JSONSyntaxError) -> String {
        let start = index
        index += 1
        var scalars = String.UnicodeScalarView()
        var run = index
        func flush(_ end: Int) {
            if end > run {
                scalars.append(contentsOf: String(decoding: bytes[run..<end], as: UTF8.self).unicodeScalars)
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                flush(index)
                index += 1
                let text = String(scalars)
                return text
            }
            if byte < 0x20 { throw error("control character in a string (escape it)") }
            if byte == UInt8(ascii: "\\") {
                flush(index)
                index += 1
                guard index < bytes.count else { break }
                switch bytes[index] {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800...0xDBFF).contains(code) {
                        guard index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "\\"),
                            bytes[index + 2] == UInt8(ascii: "u")
                        else {
                            throw error("unpaired surrogate in \\u escape")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else {
                            throw error("invalid low surrogate in \\u escape")
                        }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
                    scalars.append(scalar)
                default: throw error("invalid escape '\\\(Character(Unicode.Scalar(bytes[index])))'")
                }
                index += 1
                run = index
                continue
            }
            index += 1
        }
        throw error("unterminated string", at: start)
    }

    mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 < bytes.count else { throw error("incomplete \\u escape") }
        var value: UInt32 = 0
        for i in 1...4 {
            let c = bytes[index + i]
            let digit: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value * 16 + digit
        }
        index += 4
        return value
    }

    mutating func parseNumber() throws(JSONSyntaxError) -> JSONNode {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        func digits() -> Int {
            let s = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                index += 1
            }
            return index - s
        }
        let intStart = index
        guard digits() > 0 else { throw error("invalid number", at: start) }
        if bytes[intStart] == UInt8(ascii: "0") && index - intStart > 1 {
            throw error("leading zeros are not allowed", at: start)
        }
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard digits() > 0 else { throw error("expected digits after '.'", at: start) }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard digits() > 0 else { throw error("expected digits in the exponent", at: start) }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let i = Int64(text) { return .integer(i) }
        guard let d = Double(text), d.isFinite else {
            throw error(
                "the number \(text.count > 40 ? String(text.prefix(40)) + "..." : text) is out of the range of a 64-bit floating-point number",
                at: start)
        }
        return .double(d)
    }
}
