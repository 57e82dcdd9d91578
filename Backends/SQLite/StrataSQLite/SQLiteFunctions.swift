import CStrataSQLite
import Foundation
import StrataCore
import Synchronization

/// The SQL functions Strata registers on every connection, so that string predicates run in SQL
/// with exactly the in-memory evaluator's semantics.
///
/// - `strata_fold(text, options)`: ``StringFolding/fold(_:_:)`` (`options` is the raw value of
///   ``ObjectPredicate/Options``); `NULL` for `NULL`.
/// - `strata_like(text, pattern)`: the predicate language's `LIKE` (`*`, `?`, `\` escapes) over
///   the whole string, characters compared by Unicode scalars; `NULL` when either side is `NULL`.
/// - `strata_matches(text, pattern, options)`: `MATCHES`, an ICU regular expression over the whole
///   string (`[c]`: case-insensitive matching, `[d]`: the text folded); `NULL` for a `NULL` text.
///
/// All three are deterministic, so SQLite may use them in indexes and factor them out of loops.
enum SQLiteFunctions {
    static func register(on db: OpaquePointer) {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        sqlite3_create_function_v2(db, "strata_fold", 2, flags, nil, foldFunction, nil, nil, nil)
        sqlite3_create_function_v2(db, "strata_like", 2, flags, nil, likeFunction, nil, nil, nil)
        sqlite3_create_function_v2(db, "strata_matches", 3, flags, nil, matchesFunction, nil, nil, nil)
    }

    /// The text of argument `index`, or `nil` for `NULL`.
    static func text(_ argv: UnsafeMutablePointer<OpaquePointer?>?, _ index: Int) -> String? {
        guard let value = argv?[index], sqlite3_value_type(value) != SQLITE_NULL else { return nil }
        guard let bytes = sqlite3_value_text(value) else { return "" }
        let count = Int(sqlite3_value_bytes(value))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    static func resultText(_ context: OpaquePointer?, _ text: String) {
        var text = text
        text.withUTF8 { buffer in
            if let base = buffer.baseAddress {
                base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    sqlite3_result_text(context, $0, Int32(buffer.count), cstrata_sqlite_transient())
                }
            } else {
                sqlite3_result_text(context, "", 0, cstrata_sqlite_transient())
            }
        }
    }

    static let foldFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, argv in
        guard let text = SQLiteFunctions.text(argv, 0) else { sqlite3_result_null(context); return }
        let options = ObjectPredicate.Options(rawValue: UInt8(truncatingIfNeeded: sqlite3_value_int(argv![1])))
        SQLiteFunctions.resultText(context, StringFolding.fold(text, options))
    }

    static let likeFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, argv in
        guard let text = SQLiteFunctions.text(argv, 0), let pattern = SQLiteFunctions.text(argv, 1) else {
            sqlite3_result_null(context)
            return
        }
        sqlite3_result_int(context, LikePattern(pattern).matches(text) ? 1 : 0)
    }

    static let matchesFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, argv in
        guard let text = SQLiteFunctions.text(argv, 0), let pattern = SQLiteFunctions.text(argv, 1) else {
            sqlite3_result_null(context)
            return
        }
        let options = ObjectPredicate.Options(rawValue: UInt8(truncatingIfNeeded: sqlite3_value_int(argv![2])))
        guard let regex = RegexCache.shared.regex(pattern, caseInsensitive: options.contains(.caseInsensitive)) else {
            sqlite3_result_error(context, "invalid regular expression", -1)
            return
        }
        let input = options.contains(.diacriticInsensitive) ? StringFolding.fold(text, .diacriticInsensitive) : text
        sqlite3_result_int(context, regex.matchesWhole(input) ? 1 : 0)
    }
}

/// A compiled `LIKE` pattern: `*` matches any run of characters, `?` exactly one character, `\`
/// makes the next character literal. Characters compare by their Unicode scalars.
struct LikePattern {
    enum Token { case literal(Character), one, run }
    let tokens: [Token]

    init(_ pattern: String) {
        var tokens: [Token] = []
        var escaped = false
        for c in pattern {
            if escaped { tokens.append(.literal(c)); escaped = false; continue }
            switch c {
            case "\\": escaped = true
            case "*": tokens.append(.run)
            case "?": tokens.append(.one)
            default: tokens.append(.literal(c))
            }
        }
        if escaped { tokens.append(.literal("\\")) }
        self.tokens = tokens
    }

    /// Whether a pattern is one this type interprets without doubt (no dangling `\`).
    static func isUnambiguous(_ pattern: String) -> Bool {
        var escaped = false
        for c in pattern { escaped = !escaped && c == "\\" }
        return !escaped
    }

    /// Whether the whole of `text` matches. O(text × pattern) in the worst case.
    func matches(_ text: String) -> Bool {
        let chars = Array(text)
        var t = 0, p = 0
        var starP = -1, starT = 0
        while t < chars.count {
            if p < tokens.count {
                switch tokens[p] {
                case .run:
                    starP = p; starT = t; p += 1
                    continue
                case .one:
                    t += 1; p += 1
                    continue
                case .literal(let c):
                    if c.unicodeScalars.elementsEqual(chars[t].unicodeScalars) { t += 1; p += 1; continue }
                }
            }
            guard starP >= 0 else { return false }
            p = starP + 1
            starT += 1
            t = starT
        }
        while p < tokens.count, case .run = tokens[p] { p += 1 }
        return p == tokens.count
    }
}

/// Compiled regular expressions by pattern and case option, shared by every connection.
final class RegexCache: Sendable {
    static let shared = RegexCache()
    private let cache = Mutex<[String: CompiledRegex]>([:])

    func regex(_ pattern: String, caseInsensitive: Bool) -> CompiledRegex? {
        let key = (caseInsensitive ? "c:" : "-:") + pattern
        if let hit = cache.withLock({ $0[key] }) { return hit }
        guard let compiled = CompiledRegex(pattern: pattern, caseInsensitive: caseInsensitive) else { return nil }
        cache.withLock { table in
            if table.count > 256 { table.removeAll() }
            table[key] = compiled
        }
        return compiled
    }
}

/// A regular expression matched against whole strings.
final class CompiledRegex: @unchecked Sendable {
    // NSRegularExpression is immutable after creation and documented as thread-safe.
    private let regex: NSRegularExpression

    init?(pattern: String, caseInsensitive: Bool) {
        // Validate the pattern alone first, so that a pattern cannot close the wrapping group.
        guard (try? NSRegularExpression(pattern: pattern, options: [])) != nil,
              let regex = try? NSRegularExpression(pattern: "\\A(?:" + pattern + ")\\z", options: caseInsensitive ? [.caseInsensitive] : [])
        else { return nil }
        self.regex = regex
    }

    /// Whether the expression matches the whole of `text` (ICU `matches()`: backtracking until
    /// the match spans the string, so `a|ab` matches `ab`).
    func matchesWhole(_ text: String) -> Bool {
        let full = NSRange(location: 0, length: (text as NSString).length)
        return regex.firstMatch(in: text, options: [], range: full) != nil
    }
}
