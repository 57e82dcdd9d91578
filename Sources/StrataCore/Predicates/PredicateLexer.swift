import Foundation

/// One token of the predicate format language, with where it starts.
struct PredicateToken: Sendable, Equatable {
    /// What the token is.
    enum Kind: Sendable, Equatable {
        /// A key: a plain identifier, or any identifier escaped with `#` (`#IN`).
        case identifier(String)
        /// A reserved word, upper-cased (`AND`, `BEGINSWITH`, `SELF`, ...).
        case keyword(String)
        /// An integer literal (decimal, `0x`, `0o` or `0b`), sign included.
        case integer(Int64)
        /// A literal with a fraction or an exponent.
        case double(Double)
        /// A quoted string, escapes resolved.
        case string(String)
        /// `%@`, `%K`, `%d`, `%f`: an argument placeholder, by the kind it accepts.
        case argument(PredicateArgumentSpecifier)
        /// `@count` after a key path.
        case atCount
        /// An operator or punctuation: `==`, `<=`, `&&`, `!`, `(`, `{`, `,`, `.`, `[`, ...
        case symbol(String)
        /// The end of the input.
        case end
    }

    /// What the token is.
    var kind: Kind
    /// Its offset in the text, in Unicode scalars from 0.
    var position: Int
    /// Its source text for messages (cut to ``PredicateLexer/maximumQuotedLength`` scalars), or
    /// `end of input`.
    var text: String
}

/// The kinds of argument placeholders.
enum PredicateArgumentSpecifier: Sendable, Equatable {
    /// `%@`: any ``PredicateArgument``.
    case object
    /// `%K`: a key path, given as a `String`.
    case keyPath
    /// `%d`, `%i`, `%ld`, ...: an integer.
    case integer
    /// `%f`, `%lf`, `%g`, ...: a number, taken as a double.
    case double
}

/// Splits predicate format text into tokens.
///
/// Works on Unicode scalars, so positions in errors are scalar offsets (the same as character
/// offsets for ASCII text). O(n) in the length of the text; never traps on any input.
struct PredicateLexer {
    /// The words of the format language that cannot name a key unless escaped with `#`.
    /// Those that Strata does not implement are reserved all the same, as in NSPredicate.
    static let reservedWords: Set<String> = [
        "AND", "OR", "NOT", "ANY", "SOME", "ALL", "NONE", "IN", "BETWEEN", "BEGINSWITH", "ENDSWITH",
        "CONTAINS", "LIKE", "MATCHES", "SELF", "NIL", "NULL", "TRUE", "YES", "FALSE", "NO",
        "TRUEPREDICATE", "FALSEPREDICATE", "CAST",
        "CASEINSENSITIVE", "CI", "FIRST", "LAST", "SIZE", "ANYKEY", "SUBQUERY", "FETCH",
    ]

    /// The longest token text quoted in an error message, in scalars.
    static let maximumQuotedLength = 40

    private let text: String
    private let scalars: [Unicode.Scalar]
    private var index = 0

    /// A lexer over `text`.
    init(_ text: String) {
        self.text = text
        self.scalars = Array(text.unicodeScalars)
    }

    /// Whether `scalar` may start a key: a letter (any script) or `_`.
    static func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            return (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z") || scalar == "_"
        }
        return scalar.properties.isAlphabetic
    }

    /// Whether `scalar` may continue a key: a start character, an ASCII digit or a combining mark.
    static func isIdentifierContinue(_ scalar: Unicode.Scalar) -> Bool {
        if isIdentifierStart(scalar) || (scalar >= "0" && scalar <= "9") { return true }
        guard !scalar.isASCII else { return false }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .decimalNumber: return true
        default: return false
        }
    }

    /// Whether `word` is a reserved word: ASCII letters matching one of ``reservedWords`` in any
    /// case (so `ın`, whose upper case is `IN`, stays a key).
    static func isReserved(_ word: String) -> Bool {
        word.utf8.allSatisfy { $0 < 0x80 } && reservedWords.contains(word.uppercased())
    }

    /// Whether `name` lexes as one plain identifier (it may still be a reserved word).
    static func isIdentifier(_ name: String) -> Bool {
        var iterator = name.unicodeScalars.makeIterator()
        guard let first = iterator.next(), isIdentifierStart(first) else { return false }
        while let next = iterator.next() { guard isIdentifierContinue(next) else { return false } }
        return true
    }

    // MARK: - Scanning

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        let i = index + offset
        return i < scalars.count ? scalars[i] : nil
    }

    private func source(_ start: Int, _ end: Int) -> String {
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars[start..<min(end, scalars.count)])
        return String(result)
    }

    /// A syntax error at `position` quoting `token`.
    private func fail(_ message: String, at position: Int, token: String) -> StrataError {
        PredicateParser.syntaxError(message, format: text, position: position, token: token)
    }

    /// The source text from `start` to `end`, cut to a readable length.
    private func quoted(_ start: Int, _ end: Int) -> String {
        let stop = min(end, start + Self.maximumQuotedLength)
        return source(start, stop) + (stop < end ? "…" : "")
    }

    /// The next token; ``PredicateToken/Kind/end`` (again and again) at the end of the text.
    ///
    /// - Throws: ``StrataError`` with code ``StrataError/Code/predicateSyntax`` for an unterminated
    ///   string, a bad escape, a malformed or out-of-range number, an unknown character or placeholder.
    mutating func next() throws -> PredicateToken {
        while let scalar = peek(), scalar.properties.isWhitespace { index += 1 }
        let start = index
        guard let scalar = peek() else { return PredicateToken(kind: .end, position: start, text: "end of input") }
        func token(_ kind: PredicateToken.Kind) -> PredicateToken {
            PredicateToken(kind: kind, position: start, text: quoted(start, index))
        }
        if Self.isIdentifierStart(scalar) {
            scanIdentifier()
            let word = source(start, index)
            return token(Self.isReserved(word) ? .keyword(word.uppercased()) : .identifier(word))
        }
        if scalar >= "0" && scalar <= "9" || (scalar == "-" && (peek(1).map { $0 >= "0" && $0 <= "9" } ?? false)) {
            return try scanNumber(start)
        }
        switch scalar {
        case "'", "\"":
            return try scanString(start, quote: scalar)
        case "#":
            index += 1
            guard let first = peek(), Self.isIdentifierStart(first) else {
                throw fail("expected a key after '#' at position \(start)", at: start, token: "#")
            }
            scanIdentifier()
            return token(.identifier(source(start + 1, index)))
        case "%":
            return try scanArgument(start)
        case "@":
            index += 1
            scanIdentifier()
            let name = source(start, index)
            guard name.lowercased() == "@count" else {
                throw fail(
                    "unsupported collection operator '\(quoted(start, index))' at position \(start); only @count is supported",
                    at: start, token: quoted(start, index))
            }
            return token(.atCount)
        case "=":
            index += 1
            if peek() == "=" {
                index += 1
                return PredicateToken(kind: .symbol("=="), position: start, text: "==")
            }
            if peek() == "<" {
                index += 1
                return PredicateToken(kind: .symbol("<="), position: start, text: "=<")
            }
            if peek() == ">" {
                index += 1
                return PredicateToken(kind: .symbol(">="), position: start, text: "=>")
            }
            return PredicateToken(kind: .symbol("=="), position: start, text: "=")
        case "!":
            index += 1
            if peek() == "=" {
                index += 1
                return token(.symbol("!="))
            }
            return token(.symbol("!"))
        case "<":
            index += 1
            if peek() == "=" {
                index += 1
                return token(.symbol("<="))
            }
            if peek() == ">" {
                index += 1
                return PredicateToken(kind: .symbol("!="), position: start, text: "<>")
            }
            return token(.symbol("<"))
        case ">":
            index += 1
            if peek() == "=" {
                index += 1
                return token(.symbol(">="))
            }
            return token(.symbol(">"))
        case "&", "|":
            index += 1
            guard peek() == scalar else {
                throw fail(
                    "unknown operator '\(scalar)' at position \(start); write '\(scalar)\(scalar)'",
                    at: start, token: String(scalar))
            }
            index += 1
            return token(.symbol(scalar == "&" ? "&&" : "||"))
        case "(", ")", "{", "}", "[", "]", ",", ".":
            index += 1
            return token(.symbol(String(scalar)))
        default:
            index += 1
            let shown =
                scalar.properties.isWhitespace || scalar.value < 0x20 || scalar.value == 0x7F
                ? String(format: "U+%04X", scalar.value) : String(scalar)
            let hint: String
            switch scalar {
            case "+", "-", "*", "/": hint = "; arithmetic is not supported"
            case "$": hint = "; variables are not supported"
            default: hint = ""
            }
            throw fail("unexpected character '\(shown)' at position \(start)\(hint)", at: start, token: shown)
        }
    }

    private mutating func scanIdentifier() {
        while let scalar = peek(), Self.isIdentifierContinue(scalar) { index += 1 }
    }

    private mutating func scanNumber(_ start: Int) throws -> PredicateToken {
        let negative = peek() == "-"
        if negative { index += 1 }
        if peek() == "0", let radixMarker = peek(1),
            let radix = ["x": 16, "X": 16, "o": 8, "O": 8, "b": 2, "B": 2][radixMarker]
        {
            index += 2
            let digitsStart = index
            while let scalar = peek(), scalar.isASCII, Int(String(scalar), radix: radix) != nil { index += 1 }
            try rejectTrailingIdentifier(start)
            let digits = source(digitsStart, index)
            guard !digits.isEmpty else {
                throw fail(
                    "malformed number '\(quoted(start, index))' at position \(start): no digits after the prefix",
                    at: start, token: quoted(start, index))
            }
            let value = UInt64(digits, radix: radix).flatMap { magnitude -> Int64? in
                if negative {
                    return magnitude == UInt64(Int64.max) + 1 ? Int64.min : Int64(exactly: magnitude).map { -$0 }
                }
                return Int64(exactly: magnitude)
            }
            guard let value else {
                throw fail(
                    "integer '\(quoted(start, index))' at position \(start) does not fit in 64 bits",
                    at: start, token: quoted(start, index))
            }
            return PredicateToken(kind: .integer(value), position: start, text: quoted(start, index))
        }
        var isDouble = false
        scanDigits()
        if peek() == ".", let after = peek(1), after >= "0" && after <= "9" {
            isDouble = true
            index += 1
            scanDigits()
        }
        if peek() == "e" || peek() == "E" {
            isDouble = true
            index += 1
            if peek() == "+" || peek() == "-" { index += 1 }
            guard let digit = peek(), digit >= "0" && digit <= "9" else {
                throw fail(
                    "malformed number '\(quoted(start, index))' at position \(start): no digits in the exponent",
                    at: start, token: quoted(start, index))
            }
            scanDigits()
        }
        try rejectTrailingIdentifier(start)
        let literal = source(start, index)
        if isDouble {
            guard let value = Double(literal), value.isFinite else {
                throw fail(
                    "number '\(quoted(start, index))' at position \(start) is out of the range of a double",
                    at: start, token: quoted(start, index))
            }
            return PredicateToken(kind: .double(value), position: start, text: quoted(start, index))
        }
        guard let value = Int64(literal) else {
            throw fail(
                "integer '\(quoted(start, index))' at position \(start) does not fit in 64 bits",
                at: start, token: quoted(start, index))
        }
        return PredicateToken(kind: .integer(value), position: start, text: quoted(start, index))
    }

    private mutating func scanDigits() {
        while let scalar = peek(), scalar >= "0" && scalar <= "9" { index += 1 }
    }

    /// `12abc` is one malformed number, not a number followed by a key.
    private mutating func rejectTrailingIdentifier(_ start: Int) throws {
        guard let scalar = peek(), Self.isIdentifierContinue(scalar) else { return }
        scanIdentifier()
        throw fail(
            "malformed number '\(quoted(start, index))' at position \(start)", at: start, token: quoted(start, index))
    }

    private mutating func scanString(_ start: Int, quote: Unicode.Scalar) throws -> PredicateToken {
        index += 1
        var value = String.UnicodeScalarView()
        while true {
            guard let scalar = peek() else {
                throw fail("unterminated string starting at position \(start)", at: start, token: quoted(start, index))
            }
            index += 1
            if scalar == quote { break }
            guard scalar == "\\" else {
                value.append(scalar)
                continue
            }
            let escapeStart = index - 1
            guard let escaped = peek() else {
                throw fail("unterminated string starting at position \(start)", at: start, token: quoted(start, index))
            }
            index += 1
            switch escaped {
            case "\\", "'", "\"": value.append(escaped)
            case "n": value.append("\n")
            case "t": value.append("\t")
            case "r": value.append("\r")
            case "0": value.append("\0")
            case "u":
                let high = try scanHexQuad(escapeStart)
                if (0xD800...0xDBFF).contains(high) {
                    guard peek() == "\\", peek(1) == "u" else {
                        throw fail(
                            "unpaired surrogate '\(quoted(escapeStart, index))' in a string at position \(escapeStart)",
                            at: escapeStart, token: quoted(escapeStart, index))
                    }
                    index += 2
                    let low = try scanHexQuad(escapeStart)
                    guard (0xDC00...0xDFFF).contains(low),
                        let combined = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
                    else {
                        throw fail(
                            "unpaired surrogate '\(quoted(escapeStart, index))' in a string at position \(escapeStart)",
                            at: escapeStart, token: quoted(escapeStart, index))
                    }
                    value.append(combined)
                } else if let decoded = Unicode.Scalar(high) {
                    value.append(decoded)
                } else {
                    throw fail(
                        "unpaired surrogate '\(quoted(escapeStart, index))' in a string at position \(escapeStart)",
                        at: escapeStart, token: quoted(escapeStart, index))
                }
            default:
                throw fail(
                    "unknown escape '\(quoted(escapeStart, index))' in a string at position \(escapeStart)",
                    at: escapeStart, token: quoted(escapeStart, index))
            }
        }
        return PredicateToken(kind: .string(String(value)), position: start, text: quoted(start, index))
    }

    /// Four hex digits after `\u`.
    private mutating func scanHexQuad(_ escapeStart: Int) throws -> UInt32 {
        var result: UInt32 = 0
        for _ in 0..<4 {
            guard let scalar = peek(), scalar.isASCII, let digit = UInt32(String(scalar), radix: 16) else {
                let end = min(index + 1, scalars.count)
                throw fail(
                    "malformed escape '\(quoted(escapeStart, end))' in a string at position \(escapeStart): \\u takes four hex digits",
                    at: escapeStart, token: quoted(escapeStart, end))
            }
            result = result << 4 | digit
            index += 1
        }
        return result
    }

    private mutating func scanArgument(_ start: Int) throws -> PredicateToken {
        index += 1
        if peek() == "@" {
            index += 1
            return PredicateToken(kind: .argument(.object), position: start, text: "%@")
        }
        if peek() == "K" {
            index += 1
            return PredicateToken(kind: .argument(.keyPath), position: start, text: "%K")
        }
        // printf length modifiers, then the conversion.
        var modifiers = 0
        while let scalar = peek(), ["h", "l", "q", "z", "j", "t"].contains(scalar), modifiers < 2 {
            index += 1
            modifiers += 1
        }
        let specifier: PredicateArgumentSpecifier
        switch peek() {
        case "d", "i", "u", "D", "U": specifier = .integer
        case "f", "F", "e", "E", "g", "G": specifier = .double
        default:
            let end = min(index + 1, scalars.count)
            throw fail(
                "unknown argument placeholder '\(quoted(start, end))' at position \(start); use %@, %K, %d or %f",
                at: start, token: quoted(start, end))
        }
        index += 1
        return PredicateToken(kind: .argument(specifier), position: start, text: source(start, index))
    }
}
