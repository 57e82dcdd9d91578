import Foundation

/// The string operators of predicates, implemented once so that stores can call them (a SQLite
/// store registers them as SQL functions) and every store gives the same answers.
public enum StringMatching {
    /// `BEGINSWITH`: whether `text` starts with `prefix`, by Unicode scalars after folding.
    public static func beginsWith(_ text: String, _ prefix: String, options: ObjectPredicate.Options = []) -> Bool {
        StringFolding.fold(text, options).unicodeScalars.starts(
            with: StringFolding.fold(prefix, options).unicodeScalars)
    }

    /// `ENDSWITH`: whether `text` ends with `suffix`, by Unicode scalars after folding.
    public static func endsWith(_ text: String, _ suffix: String, options: ObjectPredicate.Options = []) -> Bool {
        StringFolding.fold(text, options).unicodeScalars.reversed().starts(
            with: StringFolding.fold(suffix, options).unicodeScalars.reversed())
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
            if escaping {
                tokens.append(.literal(scalar))
                escaping = false
                continue
            }
            switch scalar {
            case "\\": escaping = true
            case "*": if tokens.last != .anyRun { tokens.append(.anyRun) }
            case "?": tokens.append(.anyOne)
            default: tokens.append(.literal(scalar))
            }
        }
        if escaping { tokens.append(.literal("\\")) }
        // Iterative matcher with single backtrack point (classic wildcard algorithm), linear memory.
        var ti = 0
        var pi = 0
        var star = -1
        var mark = 0
        while ti < t.count {
            if pi < tokens.count, tokens[pi] == .anyOne || tokens[pi] == .literal(t[ti]) {
                ti += 1
                pi += 1
            } else if pi < tokens.count, tokens[pi] == .anyRun {
                star = pi
                mark = ti
                pi += 1
            } else if star >= 0 {
                pi = star + 1
                mark += 1
                ti = mark
            } else {
                return false
            }
        }
        while pi < tokens.count, tokens[pi] == .anyRun { pi += 1 }
        return pi == tokens.count
    }

    private enum LikeToken: Equatable {
        case literal(Unicode.Scalar)
        case anyOne
        case anyRun
    }

    /// `MATCHES`: whether the whole of `text` matches the ICU regular expression `pattern`.
    /// `[c]` makes the expression case-insensitive; `[d]` folds diacritics in `text` only.
    ///
    /// To match many strings against one pattern, compile it once with ``RegexPattern``.
    ///
    /// - Throws: ``StrataError/Code/invalidPredicate`` when `pattern` is not a valid expression
    ///   or is longer than ``maximumPatternLength``, or when matching backtracks catastrophically
    ///   (more work than `text`'s length allows; see docs/Predicates.md).
    public static func matches(_ text: String, _ pattern: String, options: ObjectPredicate.Options = []) throws -> Bool
    {
        try RegexPattern(pattern, options: options).matches(text)
    }

    /// The longest `MATCHES` pattern accepted, in Unicode scalars.
    ///
    /// ICU's matching time grows faster than the pattern's length (each capture group adds to
    /// every backtracking step): `(a|b)?` repeated 10,000 times took about a second per string.
    /// Up to this length a match costs at most tens of microseconds for such patterns.
    public static let maximumPatternLength = 1_000

    /// A `MATCHES` pattern compiled once, to match many strings: a fetch compiles each pattern
    /// of its predicate once, not once per object.
    package struct RegexPattern: @unchecked Sendable {
        // `@unchecked`: NSRegularExpression is immutable and documented as safe to share
        // between threads.
        private let regex: NSRegularExpression
        private let foldsDiacritics: Bool

        /// Compiles `pattern` (through a process-wide cache of compiled expressions).
        ///
        /// - Throws: ``StrataError/Code/invalidPredicate`` for an invalid or too long pattern.
        package init(_ pattern: String, options: ObjectPredicate.Options) throws {
            regex = try StringMatching.compiledRegex(pattern, caseInsensitive: options.contains(.caseInsensitive))
            foldsDiacritics = options.contains(.diacriticInsensitive)
        }

        /// Whether the whole of `text` matches.
        ///
        /// - Throws: ``StrataError/Code/invalidPredicate`` when the match needs more work than
        ///   ``StringMatching/workLimit(forLength:)`` allows (catastrophic backtracking).
        package func matches(_ text: String) throws -> Bool {
            let subject = foldsDiacritics ? StringFolding.fold(text, .diacriticInsensitive) : text
            let range = NSRange(subject.startIndex..<subject.endIndex, in: subject)
            let limit = StringMatching.workLimit(forLength: range.length)
            var matched = false
            var ticks = 0
            // ICU reports progress every 10,000 steps of its engine: a count of work, not of time,
            // so every store gives up on the same match.
            regex.enumerateMatches(in: subject, options: [.anchored, .reportProgress], range: range) { match, _, stop in
                if let match {
                    matched = match.range == range
                    stop.pointee = true
                } else {
                    ticks += 1
                    if ticks > limit { stop.pointee = true }
                }
            }
            guard ticks <= limit else {
                let shown =
                    regex.pattern.unicodeScalars.count > 100
                    ? String(String.UnicodeScalarView(regex.pattern.unicodeScalars.prefix(100))) + "…" : regex.pattern
                throw StrataError(
                    .invalidPredicate,
                    "MATCHES '\(shown)' gave up on a string of \(range.length) UTF-16 units after \(limit * 10_000) steps of matching; the pattern backtracks catastrophically (nested repetition such as (a+)+): simplify it",
                    location: ["pattern": shown, "length": String(range.length), "limit": String(limit * 10_000)])
            }
            return matched
        }
    }

    /// The units of 10,000 steps of ICU's engine a match of a string of `length` UTF-16 units may
    /// take: 1,000,000 steps plus 100 per unit. An ordinary pattern takes a few steps per unit, so
    /// only catastrophic backtracking reaches it (`(a+)+$` on 30 characters needs billions of
    /// steps), and then the fetch fails instead of running for hours.
    package static func workLimit(forLength length: Int) -> Int {
        100 + length / 100
    }

    private static let regexCache = Locked<[String: NSRegularExpression]>([:])

    /// A compiled expression, cached (at most 256 patterns are kept).
    ///
    /// - Throws: ``StrataError/Code/invalidPredicate`` for an invalid pattern, or one longer than
    ///   ``maximumPatternLength`` (location keys `pattern`, cut to 100 scalars, `length` and `limit`).
    static func compiledRegex(_ pattern: String, caseInsensitive: Bool) throws -> NSRegularExpression {
        let length = pattern.unicodeScalars.count
        guard length <= maximumPatternLength else {
            let shown = String(String.UnicodeScalarView(pattern.unicodeScalars.prefix(100))) + "…"
            throw StrataError(
                .invalidPredicate,
                "the MATCHES pattern '\(shown)' is \(length) characters long; Strata accepts at most \(maximumPatternLength)",
                location: ["pattern": shown, "length": String(length), "limit": String(maximumPatternLength)])
        }
        let key = (caseInsensitive ? "i:" : "s:") + pattern
        if let cached = regexCache.withLock({ $0[key] }) { return cached }
        let regex: NSRegularExpression
        do {
            regex = try NSRegularExpression(pattern: pattern, options: caseInsensitive ? [.caseInsensitive] : [])
        } catch {
            throw StrataError(
                .invalidPredicate, "'\(pattern)' is not a valid regular expression for MATCHES",
                location: ["pattern": pattern])
        }
        regexCache.withLock { cache in
            if cache.count >= 256 { cache.removeAll() }
            cache[key] = regex
        }
        return regex
    }
}
