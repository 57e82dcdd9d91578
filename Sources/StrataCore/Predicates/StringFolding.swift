import Foundation

/// The one definition of string matching that every store must reproduce.
///
/// `[c]` folds case with Unicode's full case folding (locale-independent), `[d]` removes
/// diacritics (canonical decomposition, then combining marks dropped). Stores that evaluate
/// `[c]`/`[d]` natively must give exactly these answers (a SQLite store registers a function that
/// calls ``fold(_:_:)``). Without options, strings compare by their exact Unicode scalars.
public enum StringFolding {
    /// `text` folded according to `options`; unchanged for empty options.
    public static func fold(_ text: String, _ options: ObjectPredicate.Options) -> String {
        guard !options.isEmpty else { return text }
        var folding: String.CompareOptions = []
        if options.contains(.caseInsensitive) { folding.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { folding.insert(.diacriticInsensitive) }
        // Canonical composition afterwards, so precomposed and decomposed input fold alike.
        return text.folding(options: folding, locale: nil).precomposedStringWithCanonicalMapping
    }

    /// -1, 0 or 1 comparing `a` and `b` by Unicode scalar values.
    public static func compareScalars(_ a: String, _ b: String) -> Int {
        var i = a.unicodeScalars.makeIterator()
        var j = b.unicodeScalars.makeIterator()
        while true {
            switch (i.next(), j.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let x?, let y?): if x != y { return x.value < y.value ? -1 : 1 }
            }
        }
    }
}
