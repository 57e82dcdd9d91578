import StrataCore
import Testing

@Suite struct ValueStringEqualityTests {
    @Test(arguments: [
        ("", "", true), ("a", "a", true), ("a", "b", false), ("ab", "a", false),
        ("caf\u{E9}", "cafe\u{301}", false),
        ("Zoë 🚀 long enough to live on the heap", "Zoë 🚀 long enough to live on the heap", true),
        ("Zoë 🚀 long enough to live on the heap", "Zoë 🚀 long enough to live on the heaP", false),
    ])
    func stringsAreEqualExactlyWhenTheirScalarsAre(_ a: String, _ b: String, _ equal: Bool) {
        #expect((Value.string(a) == Value.string(b)) == equal)
        #expect((Value.string(a) == Value.string(b)) == a.unicodeScalars.elementsEqual(b.unicodeScalars))
    }

    @Test func aStringBuiltPieceByPieceEqualsALiteral() {
        var built = ""
        for scalar in "naïve text".unicodeScalars { built.unicodeScalars.append(scalar) }
        #expect(Value.string(built) == Value.string("naïve text"))
        let substring = "xx naïve text yy".dropFirst(3).dropLast(3)
        #expect(Value.string(String(substring)) == Value.string("naïve text"))
    }
}
