import Foundation

extension ObjectPredicate {
    /// Parses text in the NSPredicate format language, substituting `arguments` for the
    /// placeholders in order.
    ///
    /// ```swift
    /// let p = try ObjectPredicate(format: "ANY employees.name BEGINSWITH[cd] %@ AND budget > %d", "ad", 1000)
    /// ```
    ///
    /// The grammar, operators and placeholders are described in `docs/Predicates.md`.
    /// O(n) in the length of the text.
    ///
    /// - Throws: ``StrataError`` with code ``StrataError/Code/predicateSyntax`` and location keys
    ///   `format`, `position` (0-based offset in Unicode scalars) and `token` (the offending token,
    ///   or `end of input`).
    public init(format: String, _ arguments: any PredicateArgument...) throws {
        try self.init(format: format, argumentArray: arguments)
    }

    /// Parses text in the NSPredicate format language, substituting the elements of
    /// `argumentArray` for the placeholders in order. See ``init(format:_:)``.
    ///
    /// - Throws: ``StrataError`` with code ``StrataError/Code/predicateSyntax``.
    public init(format: String, argumentArray: [any PredicateArgument]) throws {
        var parser = try PredicateParser(format: format, arguments: argumentArray)
        self = try parser.parse()
    }
}

/// A recursive-descent parser of the predicate format language (see `docs/Predicates.md`).
///
/// Precedence from loosest to tightest: `OR`, `AND`, `NOT`, comparison. Nesting is bounded by
/// ``maximumDepth`` so that no input can exhaust the stack; every loop consumes a token, so no
/// input can make it spin.
struct PredicateParser {
    /// The deepest nesting of parentheses, `NOT`s, lists and casts accepted.
    static let maximumDepth = 128

    private let format: String
    private let arguments: [any PredicateArgument]
    private var lexer: PredicateLexer
    /// The token being looked at.
    private var current: PredicateToken
    /// The token before ``current``.
    private var previous: PredicateToken?
    /// The token after ``current``, once something peeked at it.
    private var lookahead: PredicateToken?
    private var nextArgument = 0
    private var depth = 0

    /// A parser of `format`. Tokens are read as the parser goes, so the first error in reading
    /// order is the one reported.
    init(format: String, arguments: [any PredicateArgument]) throws {
        self.format = format
        self.arguments = arguments
        self.lexer = PredicateLexer(format)
        self.current = try lexer.next()
    }

    /// A `predicateSyntax` error with the standard location keys.
    static func syntaxError(_ message: String, format: String, position: Int, token: String, underlying: String? = nil)
        -> StrataError
    {
        StrataError(
            .predicateSyntax, message,
            location: ["format": format, "position": String(position), "token": token],
            underlying: underlying)
    }

    /// The whole predicate; the text must end after it and every argument must be used.
    mutating func parse() throws -> ObjectPredicate {
        if current.kind == .end {
            throw error("expected a predicate, found end of input (the format is empty)", at: current)
        }
        let predicate = try parseOr()
        guard current.kind == .end else {
            throw error(
                "expected AND, OR or the end after a complete predicate at position \(current.position), found '\(current.text)'",
                at: current)
        }
        if nextArgument < arguments.count {
            let count = arguments.count
            throw error(
                "\(count) argument\(count == 1 ? " was" : "s were") given but the format uses \(nextArgument)",
                at: current)
        }
        return predicate
    }

    // MARK: - Tokens

    /// Moves to the next token; stays on the end.
    private mutating func advance() throws {
        guard current.kind != .end else { return }
        previous = current
        if let next = lookahead {
            current = next
            lookahead = nil
        } else {
            current = try lexer.next()
        }
    }

    /// The token after ``current``.
    private mutating func peekNext() throws -> PredicateToken {
        if let lookahead { return lookahead }
        let next = current.kind == .end ? current : try lexer.next()
        lookahead = next
        return next
    }

    private func error(_ message: String, at token: PredicateToken, underlying: String? = nil) -> StrataError {
        Self.syntaxError(message, format: format, position: token.position, token: token.text, underlying: underlying)
    }

    /// `found 'x'` or `found end of input`.
    private var found: String {
        current.kind == .end ? "found end of input" : "found '\(current.text)'"
    }

    private func isKeyword(_ word: String) -> Bool { current.kind == .keyword(word) }
    private func isSymbol(_ symbol: String) -> Bool { current.kind == .symbol(symbol) }

    private mutating func expectSymbol(_ symbol: String, _ context: String) throws {
        guard isSymbol(symbol) else {
            throw error("expected '\(symbol)' \(context) at position \(current.position), \(found)", at: current)
        }
        try advance()
    }

    private mutating func nest(_ at: PredicateToken) throws {
        depth += 1
        if depth > Self.maximumDepth {
            throw error(
                "the predicate nests deeper than \(Self.maximumDepth) levels at position \(at.position)", at: at)
        }
    }

    // MARK: - Predicates

    private mutating func parseOr() throws -> ObjectPredicate {
        var terms = [try parseAnd()]
        while isKeyword("OR") || isSymbol("||") {
            try advance()
            terms.append(try parseAnd())
        }
        return terms.count == 1 ? terms[0] : .or(terms)
    }

    private mutating func parseAnd() throws -> ObjectPredicate {
        var terms = [try parseNot()]
        while isKeyword("AND") || isSymbol("&&") {
            try advance()
            terms.append(try parseNot())
        }
        return terms.count == 1 ? terms[0] : .and(terms)
    }

    private mutating func parseNot() throws -> ObjectPredicate {
        let start = current
        try nest(start)
        defer { depth -= 1 }
        if isKeyword("NOT") || isSymbol("!") {
            try advance()
            if current.kind == .end {
                throw error(
                    "expected a predicate after '\(start.text)' at position \(current.position), found end of input",
                    at: current)
            }
            return .not(try parseNot())
        }
        return try parsePrimary()
    }

    private mutating func parsePrimary() throws -> ObjectPredicate {
        let start = current
        switch start.kind {
        case .symbol("("):
            try advance()
            let inner = try parseOr()
            guard isSymbol(")") else {
                throw error(
                    "expected ')' to close the '(' at position \(start.position), at position \(current.position) \(found)",
                    at: current)
            }
            try advance()
            return inner
        case .keyword("TRUEPREDICATE"):
            try advance()
            return .alwaysTrue
        case .keyword("FALSEPREDICATE"):
            try advance()
            return .alwaysFalse
        case .keyword("AND"), .keyword("OR"):
            // Strata's prefix form `AND(p, ...)` / `OR(p, ...)`, which the printer uses for lists of
            // fewer than two predicates.
            guard try peekNext().kind == .symbol("(") else {
                throw error("expected a predicate at position \(start.position), found '\(start.text)'", at: start)
            }
            try advance()
            try advance()
            var terms: [ObjectPredicate] = []
            if !isSymbol(")") {
                terms.append(try parseOr())
                while isSymbol(",") {
                    try advance()
                    terms.append(try parseOr())
                }
            }
            try expectSymbol(")", "to close '\(start.text)('")
            return start.kind == .keyword("AND") ? .and(terms) : .or(terms)
        case .symbol(")"):
            throw error("unbalanced ')' at position \(start.position): expected a predicate", at: start)
        default:
            return .comparison(try parseComparison())
        }
    }

    private mutating func parseComparison() throws -> ObjectPredicate.Comparison {
        var modifier = ObjectPredicate.Modifier.direct
        let modifierToken = current
        switch current.kind {
        case .keyword("ANY"), .keyword("SOME"): modifier = .any
        case .keyword("ALL"): modifier = .all
        case .keyword("NONE"): modifier = .none
        default: break
        }
        if modifier != .direct {
            try advance()
        }
        let context = modifier == .direct ? nil : modifierToken
        let lhsStart = current
        let lhs = try parseOperand(after: context)
        let operatorToken = current
        guard let op = comparisonOperator(operatorToken.kind) else {
            throw error(
                "expected an operator after '\(sourceText(from: lhsStart, to: operatorToken))' at position \(operatorToken.position), \(found)",
                at: operatorToken)
        }
        try advance()
        let options = try parseOptions()
        let rhsStart = current
        let rhs = try parseOperand(after: operatorToken)
        if op == .between {
            guard case .list(let bounds) = rhs, bounds.count == 2 else {
                throw error(
                    "BETWEEN needs a list of two bounds, like {1, 10}, at position \(rhsStart.position), found '\(sourceText(from: rhsStart, to: current))'",
                    at: rhsStart)
            }
        }
        return ObjectPredicate.Comparison(lhs, op, rhs, modifier: modifier, options: options)
    }

    /// The source text between two tokens (for messages).
    private func sourceText(from start: PredicateToken, to end: PredicateToken) -> String {
        let scalars = format.unicodeScalars
        let from = scalars.index(scalars.startIndex, offsetBy: start.position)
        let to = scalars.index(scalars.startIndex, offsetBy: max(end.position, start.position))
        var text = String(scalars[from..<to])
        while text.last?.isWhitespace == true { text.removeLast() }
        if text.unicodeScalars.count > PredicateLexer.maximumQuotedLength {
            text =
                String(String.UnicodeScalarView(text.unicodeScalars.prefix(PredicateLexer.maximumQuotedLength))) + "…"
        }
        return text
    }

    private func comparisonOperator(_ kind: PredicateToken.Kind) -> ObjectPredicate.Operator? {
        switch kind {
        case .symbol(let symbol):
            switch symbol {
            case "==": return .equal
            case "!=": return .notEqual
            case "<": return .less
            case "<=": return .lessOrEqual
            case ">": return .greater
            case ">=": return .greaterOrEqual
            default: return nil
            }
        case .keyword(let word):
            switch word {
            case "BEGINSWITH": return .beginsWith
            case "ENDSWITH": return .endsWith
            case "CONTAINS": return .contains
            case "LIKE": return .like
            case "MATCHES": return .matches
            case "IN": return .in
            case "BETWEEN": return .between
            default: return nil
            }
        default:
            return nil
        }
    }

    /// `[c]`, `[d]`, `[cd]` (any order, any case) after an operator.
    private mutating func parseOptions() throws -> ObjectPredicate.Options {
        guard isSymbol("[") else { return [] }
        let open = current
        try advance()
        guard case .identifier(let letters) = current.kind else {
            throw error("expected options c, d or cd inside '[' at position \(current.position), \(found)", at: current)
        }
        var options: ObjectPredicate.Options = []
        for letter in letters.lowercased() {
            let option: ObjectPredicate.Options
            switch letter {
            case "c": option = .caseInsensitive
            case "d": option = .diacriticInsensitive
            default:
                throw error(
                    "unknown option '\(current.text)' in '[...]' at position \(current.position); use c, d or cd",
                    at: current)
            }
            guard !options.contains(option) else {
                throw error(
                    "option '\(letter)' repeated in '[\(current.text)]' at position \(current.position)", at: current)
            }
            options.insert(option)
        }
        try advance()
        try expectSymbol("]", "to close the options opened at position \(open.position)")
        return options
    }

    // MARK: - Operands

    /// One side of a comparison. `context` is the token before it, for messages.
    private mutating func parseOperand(after context: PredicateToken?) throws -> ObjectPredicate.Operand {
        let start = current
        try nest(start)
        defer { depth -= 1 }
        func expected() -> StrataError {
            if let context {
                return error(
                    "expected an expression after '\(context.text)' at position \(start.position), \(found)", at: start)
            }
            return error("expected a predicate at position \(start.position), \(found)", at: start)
        }
        switch start.kind {
        case .identifier(let name):
            try advance()
            return try parseKeyPathTail([name])
        case .keyword("SELF"):
            try advance()
            guard isSymbol(".") else { return .evaluatedObject }
            try advance()
            let first = try parseKeyComponent()
            return try parseKeyPathTail([first])
        case .keyword("NIL"), .keyword("NULL"):
            try advance()
            return .constant(.null)
        case .keyword("TRUE"), .keyword("YES"):
            try advance()
            return .constant(.bool(true))
        case .keyword("FALSE"), .keyword("NO"):
            try advance()
            return .constant(.bool(false))
        case .keyword("CAST"):
            return try parseCast()
        case .keyword(let word)
        where ["CASEINSENSITIVE", "CI", "FIRST", "LAST", "SIZE", "ANYKEY", "SUBQUERY", "FETCH"].contains(word):
            throw error(
                "'\(start.text)' at position \(start.position) is a reserved word that Strata does not support; write #\(start.text) for a key of that name",
                at: start)
        case .integer(let value):
            try advance()
            return .constant(.integer(value))
        case .double(let value):
            try advance()
            return .constant(.double(value))
        case .string(let value):
            try advance()
            return .constant(.string(value))
        case .symbol("{"):
            return try parseList()
        case .argument(let specifier):
            try advance()
            return try parseArgument(specifier, token: start)
        default:
            throw expected()
        }
    }

    /// `.key`, `.#key` and a final `.@count` after the first component(s).
    private mutating func parseKeyPathTail(_ components: [String]) throws -> ObjectPredicate.Operand {
        var components = components
        while isSymbol(".") {
            try advance()
            if current.kind == .atCount {
                try advance()
                if isSymbol(".") {
                    throw error("@count must end a key path, found '.' at position \(current.position)", at: current)
                }
                return .count(PropertyPath(components))
            }
            components.append(try parseKeyComponent())
        }
        return .keyPath(PropertyPath(components))
    }

    private mutating func parseKeyComponent() throws -> String {
        guard case .identifier(let name) = current.kind else {
            if case .keyword = current.kind {
                throw error(
                    "expected a key after '.' at position \(current.position), found the reserved word '\(current.text)'; write #\(current.text)",
                    at: current)
            }
            throw error("expected a key after '.' at position \(current.position), \(found)", at: current)
        }
        try advance()
        return name
    }

    /// `{a, b, ...}`.
    private mutating func parseList() throws -> ObjectPredicate.Operand {
        let open = current
        try advance()
        var elements: [ObjectPredicate.Operand] = []
        if isSymbol("}") {
            try advance()
            return .list(elements)
        }
        while true {
            elements.append(try parseOperand(after: previous))
            if isSymbol(",") {
                try advance()
                continue
            }
            guard isSymbol("}") else {
                throw error(
                    "expected ',' or '}' in the list opened at position \(open.position), at position \(current.position) \(found)",
                    at: current)
            }
            try advance()
            return .list(elements)
        }
    }

    /// Substitutes the next argument for a placeholder.
    private mutating func parseArgument(_ specifier: PredicateArgumentSpecifier, token: PredicateToken) throws
        -> ObjectPredicate.Operand
    {
        guard nextArgument < arguments.count else {
            throw error(
                "no argument for '\(token.text)' at position \(token.position): the format needs more than the \(arguments.count) given",
                at: token)
        }
        let number = nextArgument + 1
        let operand = arguments[nextArgument].predicateOperand
        nextArgument += 1
        func wrongKind(_ wanted: String) -> StrataError {
            error(
                "argument \(number) for '\(token.text)' at position \(token.position) must be \(wanted), found \(Self.describe(operand))",
                at: token)
        }
        switch specifier {
        case .object:
            return operand
        case .integer:
            guard case .constant(.integer) = operand else { throw wrongKind("an integer") }
            return operand
        case .double:
            switch operand {
            case .constant(.integer(let v)): return .constant(.double(Double(v)))
            case .constant(.double): return operand
            case .constant(.float(let v)): return .constant(.double(Double(v)))
            case .constant(.decimal(let v)): return .constant(.double(NSDecimalNumber(decimal: v).doubleValue))
            default: throw wrongKind("a number")
            }
        case .keyPath:
            let path: PropertyPath
            switch operand {
            case .constant(.string(let text)): path = PropertyPath(text)
            case .keyPath(let given): path = given
            default: throw wrongKind("a String naming a key path")
            }
            guard !path.components.isEmpty, !path.components.contains(where: \.isEmpty) else {
                throw error(
                    "argument \(number) for '%K' at position \(token.position) is not a key path: '\(path)' has an empty component",
                    at: token)
            }
            return try parseKeyPathTail(path.components)
        }
    }

    /// `CAST(value, 'Type')`: dates, non-finite doubles, floats, decimals, UUIDs, URLs, data and
    /// object IDs, which have no literal of their own.
    private mutating func parseCast() throws -> ObjectPredicate.Operand {
        let castToken = current
        try advance()
        try expectSymbol("(", "after CAST")
        let valueToken = current
        let value = try parseOperand(after: previous)
        try expectSymbol(",", "between the value and the type of CAST")
        let typeToken = current
        guard case .string(let typeName) = typeToken.kind else {
            throw error(
                "expected a type name string like 'NSDate' in CAST at position \(typeToken.position), \(found)",
                at: typeToken)
        }
        try advance()
        try expectSymbol(")", "to close the CAST at position \(castToken.position)")
        func bad(_ wanted: String, underlying: String? = nil) -> StrataError {
            error(
                "CAST to '\(typeName)' needs \(wanted) at position \(valueToken.position), found \(Self.describe(value))",
                at: valueToken, underlying: underlying)
        }
        func number() -> Double? {
            switch value {
            case .constant(.integer(let v)): return Double(v)
            case .constant(.double(let v)): return v
            default: return nil
            }
        }
        func text() -> String? {
            if case .constant(.string(let v)) = value { return v }
            return nil
        }
        switch typeName.lowercased() {
        case "nsdate", "date":
            guard let interval = number() else { throw bad("a number of seconds since 2001-01-01") }
            return .constant(.date(Date(timeIntervalSinceReferenceDate: interval)))
        case "double", "nsnumber":
            if let v = number() { return .constant(.double(v)) }
            guard let t = text(), let v = Self.nonFinite(t) else { throw bad("a number, 'nan', 'inf' or '-inf'") }
            return .constant(.double(v))
        case "float":
            if let v = number() { return .constant(.float(Float(v))) }
            guard let t = text(), let v = Self.nonFinite(t) else { throw bad("a number, 'nan', 'inf' or '-inf'") }
            return .constant(.float(Float(v)))
        case "decimal", "nsdecimalnumber":
            if case .constant(.integer(let v)) = value { return .constant(.decimal(Decimal(v))) }
            guard let t = text() else { throw bad("a string with a decimal number") }
            if t.lowercased() == "nan" { return .constant(.decimal(.nan)) }
            guard let v = Decimal(string: t, locale: Locale(identifier: "en_US_POSIX")),
                t.range(of: #"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$"#, options: .regularExpression)
                    != nil
            else {
                throw bad("a string with a decimal number")
            }
            return .constant(.decimal(v))
        case "uuid", "nsuuid":
            guard let t = text(), let v = UUID(uuidString: t) else { throw bad("a string with a UUID") }
            return .constant(.uuid(v))
        case "url", "nsurl":
            guard let t = text(), let v = URL(string: t) else { throw bad("a string with a URL") }
            return .constant(.uri(v))
        case "data", "nsdata":
            guard let t = text(), let v = Data(base64Encoded: t) else { throw bad("a base64 string") }
            return .constant(.binary(v))
        case "objectid":
            guard let t = text() else { throw bad("a string with an object ID URI") }
            do {
                return .objectID(try ObjectID(uriRepresentation: t))
            } catch let failure as StrataError {
                throw bad("an object ID URI", underlying: failure.message)
            }
        default:
            throw error(
                "unknown CAST type '\(typeName)' at position \(typeToken.position); use NSDate, Double, Float, NSDecimalNumber, UUID, URL, Data or ObjectID",
                at: typeToken)
        }
    }

    private static func nonFinite(_ text: String) -> Double? {
        switch text.lowercased() {
        case "nan": return .nan
        case "inf", "+inf", "infinity": return .infinity
        case "-inf", "-infinity": return -.infinity
        default: return nil
        }
    }

    /// A short description of an argument's operand for messages (cut to 60 characters).
    private static func describe(_ operand: ObjectPredicate.Operand) -> String {
        let text = fullDescription(operand)
        return text.count > 60 ? text.prefix(60) + "…" : text
    }

    private static func fullDescription(_ operand: ObjectPredicate.Operand) -> String {
        switch operand {
        case .constant(let value): return "\(value.typeName) \(value)"
        case .objectID(let id): return "object ID \(id)"
        case .keyPath(let path): return "key path \(path)"
        case .count(let path): return "\(path).@count"
        case .list(let items): return "a list of \(items.count)"
        case .evaluatedObject: return "SELF"
        }
    }
}
