import Foundation
import Testing
@testable import StrataCore

@Suite("Predicate parser fuzzing")
struct PredicateFuzzTests {
    static let vocabulary = [
        "a", "name", "employees", "b.c", ".", "@count", "@sum", "SELF", "#IN", "#", "in", "AND", "and", "&&", "&", "OR", "||",
        "|", "NOT", "!", "ANY", "SOME", "ALL", "NONE", "==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", "BEGINSWITH",
        "ENDSWITH", "CONTAINS", "LIKE", "MATCHES", "IN", "BETWEEN", "[c]", "[cd]", "[x]", "[", "]", "(", ")", "{", "}", ",",
        "nil", "NULL", "TRUE", "YES", "FALSE", "NO", "TRUEPREDICATE", "FALSEPREDICATE", "CAST", "'NSDate'", "'Double'",
        "'ObjectID'", "'strata://S/E/p1'", "0", "-1", "42", "1.5", "-2e10", "0x1F", "0x", "1e", "99999999999999999999",
        "'x'", "\"y\"", "'", "\"", "\\", "'\\u00e9'", "'\\q'", "'\\u12'", "%@", "%K", "%d", "%f", "%", "%x", "$v", "+", "-",
        "SUBQUERY", "size", "é", "😀", "\u{301}", "\u{0}", "\n", "AND(", "OR(",
    ]

    static let argumentPool: [any PredicateArgument] = [
        1, "name", 2.5, [1, 2], Set(["a"]), true, Value.null, String?.none, "a..b", "",
        ObjectID(entityName: "E", storeIdentifier: "S", primaryKey: 1), Date(timeIntervalSinceReferenceDate: 0),
        Decimal(1), Float(0.5), [[1]] as [[Int]],
    ]

    /// Parses `text`; it must either succeed and print back to itself, or throw a located syntax error.
    static func check(_ text: String, _ arguments: [any PredicateArgument]) -> Bool {
        do {
            let parsed = try ObjectPredicate(format: text, argumentArray: arguments)
            let reparsed = try ObjectPredicate(format: parsed.description)
            #expect(reparsed == parsed, "\(text.debugDescription) printed as \(parsed.description.debugDescription)")
            return reparsed == parsed
        } catch let error as StrataError {
            let position = error.location["position"].flatMap(Int.init)
            #expect(error.code == .predicateSyntax, "\(text.debugDescription): \(error)")
            #expect(position.map { (0...text.unicodeScalars.count).contains($0) } == true, "\(text.debugDescription): \(error)")
            #expect(error.location["token"]?.isEmpty == false, "\(text.debugDescription): \(error)")
            #expect(error.location["format"] == text)
            return error.code == .predicateSyntax
        } catch {
            Issue.record("\(text.debugDescription) threw \(error)")
            return false
        }
    }

    @Test func randomTokenSequencesParseOrThrowASyntaxError() {
        var generator = SeededGenerator(seed: 20_261_121)
        var parsedCount = 0
        for _ in 0..<5_000 {
            let count = Int.random(in: 0...24, using: &generator)
            let separator = Bool.random(using: &generator) ? " " : ""
            let text = (0..<count).map { _ in Self.vocabulary.randomElement(using: &generator)! }.joined(separator: separator)
            let arguments = (0..<Int.random(in: 0...3, using: &generator)).map { _ in Self.argumentPool.randomElement(using: &generator)! }
            guard Self.check(text, arguments) else { return }
            if (try? ObjectPredicate(format: text, argumentArray: arguments)) != nil { parsedCount += 1 }
        }
        // Random tokens rarely form a predicate; the count only shows the success path is exercised.
        #expect(parsedCount > 0)
    }

    @Test func randomTokenSequencesShapedLikePredicatesMostlyParse() {
        var generator = SeededGenerator(seed: 7)
        let keys = ["a", "b.c", "SELF", "employees.@count", "#IN", "%K"]
        let ops = ["==", "!=", "<", ">=", "BEGINSWITH[c]", "CONTAINS", "LIKE[cd]", "IN", "BETWEEN"]
        let values = ["1", "-2.5", "'x'", "nil", "TRUE", "{1, 'a'}", "{1, 2}", "%@", "%d", "CAST(0, 'NSDate')"]
        let joiners = [" AND ", " OR ", " && ", " || ", " AND NOT "]
        var parsedCount = 0
        for _ in 0..<3_000 {
            var text = ""
            var arguments: [any PredicateArgument] = []
            for term in 0..<Int.random(in: 1...5, using: &generator) {
                if term > 0 { text += joiners.randomElement(using: &generator)! }
                let k = keys.randomElement(using: &generator)!, v = values.randomElement(using: &generator)!
                if k == "%K" { arguments.append("name") }
                if v == "%@" { arguments.append(Self.argumentPool.randomElement(using: &generator)!) }
                if v == "%d" { arguments.append(Int.random(in: -9...9, using: &generator)) }
                let modifier = ["", "ANY ", "ALL ", "NONE "].randomElement(using: &generator)!
                text += "\(modifier)\(k) \(ops.randomElement(using: &generator)!) \(v)"
            }
            guard Self.check(text, arguments) else { return }
            if (try? ObjectPredicate(format: text, argumentArray: arguments)) != nil { parsedCount += 1 }
        }
        #expect(parsedCount > 1_000)
    }

    @Test func randomScalarsParseOrThrowASyntaxError() {
        var generator = SeededGenerator(seed: 99)
        let scalars: [Unicode.Scalar] = Array("abAZ09_ .,()[]{}'\"\\#@%$!=<>&|+-*/:;?~`^\t\n".unicodeScalars)
            + ["\u{0}", "\u{7F}", "\u{A0}", "\u{301}", "\u{2028}", "\u{FEFF}", "é", "ß", "日", "😀", "\u{10FFFF}"]
        for _ in 0..<5_000 {
            var text = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...30, using: &generator) { text.append(scalars.randomElement(using: &generator)!) }
            guard Self.check(String(text), []) else { return }
        }
    }
}
