/// How many terminal columns text takes, for tables a person reads (`strata query`): East Asian
/// Wide and Fullwidth characters (CJK, Hangul, fullwidth forms) and emoji shown as emoji take 2,
/// combining marks and other zero-width characters 0, everything else 1.
///
/// Width is counted per grapheme cluster (`Character`): a base with combining marks takes the
/// base's width, a cluster with an emoji presentation (an emoji, a flag, a ZWJ sequence, a
/// character followed by U+FE0F) takes 2. Terminals that draw ZWJ sequences as several glyphs
/// differ; this is what current terminals and `wcwidth` agree on for the rest.
package enum TerminalDisplayWidth {
    /// The columns `text` takes. O(length).
    package static func of(_ text: some StringProtocol) -> Int {
        var width = 0
        for character in text { width += self.width(of: character) }
        return width
    }

    /// The columns one grapheme cluster takes: 0, 1 or 2.
    private static func width(of character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if first.isASCII { return first.value < 0x20 || first.value == 0x7F ? 0 : 1 }
        if scalars.contains(where: { $0.value == 0xFE0F }) || first.properties.isEmojiPresentation { return 2 }
        if isWide(first.value) { return 2 }
        if isZeroWidth(first) { return 0 }
        return 1
    }

    /// `text` followed by spaces up to `width` columns (unchanged when it is as wide or wider).
    package static func padded(_ text: String, toWidth width: Int) -> String {
        let missing = width - of(text)
        return missing > 0 ? text + String(repeating: " ", count: missing) : text
    }

    /// Combining marks, format characters (zero-width space and joiners, bidirectional marks)
    /// and Hangul medial and final jamo, which join the syllable before them.
    private static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return true
        default: return (0x1160...0x11FF).contains(scalar.value)
        }
    }

    /// East Asian Width W or F (Unicode's EastAsianWidth.txt), outside the emoji that
    /// `isEmojiPresentation` already answers for.
    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, // Hangul leading jamo
            0x2329...0x232A, // angle brackets
            0x2E80...0x303E, // CJK radicals, Kangxi, ideographic description, CJK symbols and punctuation
            0x3041...0x33FF, // Hiragana, Katakana, Bopomofo, Hangul compatibility jamo, Kanbun, CJK compatibility
            0x3400...0x4DBF, // CJK extension A
            0x4E00...0x9FFF, // CJK unified ideographs
            0xA000...0xA4CF, // Yi
            0xA960...0xA97F, // Hangul jamo extended A
            0xAC00...0xD7A3, // Hangul syllables
            0xF900...0xFAFF, // CJK compatibility ideographs
            0xFE10...0xFE19, // vertical forms
            0xFE30...0xFE6F, // CJK compatibility forms, small form variants
            0xFF00...0xFF60, // fullwidth forms
            0xFFE0...0xFFE6, // fullwidth signs
            0x16FE0...0x16FE4, 0x17000...0x18CFF, // Tangut, Khitan
            0x1B000...0x1B2FF, // Kana supplement and extensions, Nüshu
            0x1F200...0x1F2FF, // enclosed ideographic supplement
            0x20000...0x2FFFD, // CJK extensions B to F, compatibility supplement
            0x30000...0x3FFFD: // CJK extensions G and H
            return true
        default:
            return false
        }
    }
}
