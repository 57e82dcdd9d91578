import Foundation

/// The string operators of predicates, implemented once so that stores can call them (a SQLite
/// store registers them as SQL functions) and every store gives the same answers.
public enum StringMatching {
    /// `BEGINSWITH`: whether `text` starts with `prefix`, by Unicode scalars after folding.
    public static func beginsWith(_ text: String, _ prefix: String, options: ObjectPredicate.Options = []) -> Bool {
        StringFolding.fold(text, options).unicodeScalars.starts(with: StringFolding.fold(prefix, options).unicodeScalars)
    }

    /// `ENDSWITH`: whether `text` ends with `suffix`, by Unicode scalars after folding.
    public static func endsWith(_ text: String, _ suffix: String, options: ObjectPredicate.Options = []) -> Bool {
        StringFolding.fold(text, options).unicodeScalars.reversed().starts(with: StringFolding.fold(suffix, options).unicodeScalars.reversed())
    }

    /// `CONTAINS` on strings: whether `needle` occurs in `text`, by Unicode scalars after folding.
    /// The empty string occurs in every string.
    public static func contains(_ text: String, _ needle: String, options: ObjectPredicate.Options = []) -> Bool {
        let hay = Array(StringFolding.fold(text, options).unicodeScalars)
        let pin = Array(StringFolding.fold(needle, options).unicodeScalars)
        guard !pin.isEmpty else { return true }
        guard pin.count <= hay.count else { return false }
        for start in 0...(hay.count - pin.count) where hay[start] == pin[0] {
            if hay[start..<(start + pin.count)].elementsEqual(pin) { return true }
        }
        return false
    }

    /// `LIKE`: whether the whole of `text` matches `pattern`, where `*` matches any run of
    /// characters, `?` exactly one, and `\` makes the next character literal. O(text × pattern).
    public static func like(_ text: String, _ pattern: String, options: ObjectPredicate.Options = []) -> Bool {
        let t = Array(StringFolding.fold(text, options).unicodeScalars)
        var tokens: [LikeToken] = []
        var escaping = false
        for scalar in StringFolding.fold(pattern, options).unicodeScalars {
            if escaping { tokens.append(.literal(scalar)); escaping = false; continue }
            switch scalar {
            case "\\": escaping = true
            case "*": if tokens.last != .anyRun { tokens.append(.anyRun) }
            case "?": tokens.append(.anyOne)
            default: tokens.append(.literal(scalar))
            }
        }
        if escaping { tokens.append(.literal("\\")) }
        // Iterative matcher with single backtrack point (classic wildcard algorithm), linear memory.
        var ti = 0, pi = 0, star = -1, mark = 0
        while ti < t.count {
            if pi < tokens.count, tokens[pi] == .anyOne || tokens[pi] == .literal(t[ti]) {
                ti += 1; pi += 1
            } else if pi < tokens.count, tokens[pi] == .anyRun {
                star = pi; mark = ti; pi += 1
            } else if star >= 0 {
                pi = star + 1; mark += 1; ti = mark
            } else {
                return false
            }
        }
        while pi < tokens.count, tokens[pi] == .anyRun { pi += 1 }
        return pi == tokens.count
    }

    private enum LikeToken: Equatable { case literal(Unicode.Scalar), anyOne, anyRun }

    /// `MATCHES`: whether the whole of `text` matches the ICU regular expression `pattern`.
    /// `[c]` makes the expression case-insensitive; `[d]` folds diacritics in `text` only.
    ///
    /// - Throws: ``StrataError/Code/invalidPredicate`` when `pattern` is not a valid expression.
    public static func matches(_ text: String, _ pattern: String, options: ObjectPredicate.Options = []) throws -> Bool {
        let regex = try compiledRegex(pattern, caseInsensitive: options.contains(.caseInsensitive))
        let subject = options.contains(.diacriticInsensitive) ? StringFolding.fold(text, .diacriticInsensitive) : text
        let range = NSRange(subject.startIndex..<subject.endIndex, in: subject)
        guard let match = regex.firstMatch(in: subject, options: [.anchored], range: range) else { return false }
        return match.range == range
    }

    private static let regexCache = Locked<[String: NSRegularExpression]>([:])

    /// A compiled expression, cached (at most 256 patterns are kept).
    static func compiledRegex(_ pattern: String, caseInsensitive: Bool) throws -> NSRegularExpression {
        let key = (caseInsensitive ? "i:" : "s:") + pattern
        if let cached = regexCache.withLock({ $0[key] }) { return cached }
        let regex: NSRegularExpression
        do {
            regex = try NSRegularExpression(pattern: pattern, options: caseInsensitive ? [.caseInsensitive] : [])
        } catch {
            throw StrataError(.invalidPredicate, "'\(pattern)' is not a valid regular expression for MATCHES", location: ["pattern": pattern])
        }
        regexCache.withLock { cache in
            if cache.count >= 256 { cache.removeAll() }
            cache[key] = regex
        }
        return regex
    }
}
