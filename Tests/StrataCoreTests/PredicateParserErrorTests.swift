import Foundation
import Testing

@testable import StrataCore

/// One malformed input and where the parser must blame it.
struct MalformedPredicate: Sendable, CustomTestStringConvertible {
    var format: String
    var arguments: [any PredicateArgument] = []
    var position: Int
    var token: String
    var testDescription: String { format.debugDescription }

    init(_ format: String, _ arguments: [any PredicateArgument] = [], at position: Int, _ token: String) {
        self.format = format
        self.arguments = arguments
        self.position = position
        self.token = token
    }
}

@Suite("Predicate format errors")
struct PredicateParserErrorTests {
    static let malformed: [MalformedPredicate] = [
        .init("", at: 0, "end of input"),
        .init("   ", at: 3, "end of input"),
        .init("name 5", at: 5, "5"),
        .init("name ==", at: 7, "end of input"),
        .init("name == 'abc", at: 8, "'abc"),
        .init("(a == 1", at: 7, "end of input"),
        .init("a == 1)", at: 6, ")"),
        .init(")", at: 0, ")"),
        .init("a == 1 b == 2", at: 7, "b"),
        .init("a === 1", at: 4, "="),
        .init("a & b", at: 2, "&"),
        .init("a | b", at: 2, "|"),
        .init("a == %@", at: 5, "%@"),
        .init("a == 1", [2], at: 6, "end of input"),
        .init("a == %@ AND b == %@", ["x"], at: 17, "%@"),
        .init("a == %d", ["x"], at: 5, "%d"),
        .init("a == %d", [1.5], at: 5, "%d"),
        .init("a == %f", ["1.5"], at: 5, "%f"),
        .init("%K == 1", [5], at: 0, "%K"),
        .init("%K == 1", [""], at: 0, "%K"),
        .init("%K == 1", ["a..b"], at: 0, "%K"),
        .init("a == %x", [1], at: 5, "%x"),
        .init("a == %", at: 5, "%"),
        .init("name BEGINSWITH[x] 'a'", at: 16, "x"),
        .init("name MATCHES[n] 'x'", at: 13, "n"),
        .init("a ==[cc] 'x'", at: 5, "cc"),
        .init("name BEGINSWITH[] 'a'", at: 16, "]"),
        .init("name BEGINSWITH[c 'a'", at: 18, "'a'"),
        .init("a BETWEEN 1", at: 10, "1"),
        .init("a BETWEEN {1}", at: 10, "{"),
        .init("a BETWEEN {1, 2, 3}", at: 10, "{"),
        .init("a BETWEEN %@", [[1]], at: 10, "%@"),
        .init(#"a == 'x\q'"#, at: 7, #"\q"#),
        .init(#"a == '\u12'"#, at: 6, #"\u12'"#),
        .init(#"a == '\ud800'"#, at: 6, #"\ud800"#),
        .init("a == 0x", at: 5, "0x"),
        .init("a == 12abc", at: 5, "12abc"),
        .init("a == 99999999999999999999", at: 5, "99999999999999999999"),
        .init("a == 0x10000000000000000", at: 5, "0x10000000000000000"),
        .init("a == 1e999", at: 5, "1e999"),
        .init("a == 1e", at: 5, "1e"),
        .init("a.@sum > 1", at: 2, "@sum"),
        .init("a.@count.b == 1", at: 8, "."),
        .init("a. == 1", at: 3, "=="),
        .init("a.IN == 1", at: 2, "IN"),
        .init("# == 1", at: 0, "#"),
        .init("IN == 1", at: 0, "IN"),
        .init("SUBQUERY(x, $y, $y == 1).@count > 0", at: 0, "SUBQUERY"),
        .init("size > 1", at: 0, "size"),
        .init("a == $x", at: 5, "$"),
        .init("a + 1 == 2", at: 2, "+"),
        .init("a == - 1", at: 5, "-"),
        .init("a == 1 AND", at: 10, "end of input"),
        .init("a == 1 AND OR b == 2", at: 11, "OR"),
        .init("NOT", at: 3, "end of input"),
        .init("a IN {1, 2", at: 10, "end of input"),
        .init("a IN {1,}", at: 8, "}"),
        .init("a IN {1 2}", at: 8, "2"),
        .init("a == b == c", at: 7, "=="),
        .init("a = = 1", at: 4, "="),
        .init("ANY", at: 3, "end of input"),
        .init("ALL a", at: 5, "end of input"),
        .init("ANY NOT a == 1", at: 4, "NOT"),
        .init("a LIKE", at: 6, "end of input"),
        .init("TRUEPREDICATE == 1", at: 14, "=="),
        .init("AND(a == 1", at: 10, "end of input"),
        .init("a == (1)", at: 5, "("),
        .init("a == CAST(1, 'Banana')", at: 13, "'Banana'"),
        .init("a == CAST('x', 'NSDate')", at: 10, "'x'"),
        .init("SELF == CAST('strata://x', 'ObjectID')", at: 13, "'strata://x'"),
        .init("a == CAST(1 'NSDate')", at: 12, "'NSDate'"),
        .init("a == 1\u{1}", at: 6, "U+0001"),
        .init("a == 'x' + 'é", at: 9, "+"),
        .init(
            "é == 'unterminated and much longer than forty characters in all", at: 5,
            "'unterminated and much longer than forty…"),
        .init("a == 1 " + String(repeating: "x", count: 100), at: 7, String(repeating: "x", count: 40) + "…"),
        .init(
            "a == 1 1" + String(repeating: "0", count: 100) + ".5", at: 7, "1" + String(repeating: "0", count: 39) + "…"
        ),
    ]

    @Test(arguments: malformed)
    func malformedInputThrowsASyntaxErrorWithPositionAndToken(_ input: MalformedPredicate) {
        do {
            let parsed = try ObjectPredicate(format: input.format, argumentArray: input.arguments)
            Issue.record("parsed to \(parsed)")
        } catch let error as StrataError {
            #expect(error.code == .predicateSyntax)
            #expect(error.location["format"] == input.format)
            #expect(error.location["position"] == String(input.position))
            #expect(error.location["token"] == input.token)
            #expect(
                error.message.contains("position \(input.position)")
                    || input.position == input.format.unicodeScalars.count)
        } catch {
            Issue.record("threw \(type(of: error)) instead of StrataError: \(error)")
        }
    }

    @Test func theMessageNamesWhatWasExpectedWhereAndWhatWasFound() throws {
        let error = try #require(throws: StrataError.self) { try ObjectPredicate(format: "name 5") }
        #expect(error.message == "expected an operator after 'name' at position 5, found '5'")
    }

    @Test func argumentCountMismatchesSayHowMany() throws {
        let tooMany = try #require(throws: StrataError.self) { try ObjectPredicate(format: "a == %@", 1, 2) }
        #expect(tooMany.message == "2 arguments were given but the format uses 1")
        let tooFew = try #require(throws: StrataError.self) { try ObjectPredicate(format: "a == %@ OR b == %@", 1) }
        #expect(tooFew.message.contains("no argument for '%@' at position 16"))
    }

    @Test func wrongArgumentKindsNameTheArgumentAndItsValue() throws {
        let error = try #require(throws: StrataError.self) {
            try ObjectPredicate(format: "a == %@ AND b == %d", 1, "x")
        }
        #expect(error.message == "argument 2 for '%d' at position 17 must be an integer, found string \"x\"")
    }

    @Test func longArgumentsAreCutInMessages() throws {
        let error = try #require(throws: StrataError.self) {
            try ObjectPredicate(format: "a == %d", String(repeating: "x", count: 500))
        }
        #expect(error.message.count < 200)
        #expect(error.message.hasSuffix("…"))
    }

    @Test func badObjectIDURIsCarryTheUnderlyingReason() throws {
        let error = try #require(throws: StrataError.self) {
            try ObjectPredicate(format: "SELF == CAST('strata://S/Employee/x1', 'ObjectID')")
        }
        #expect(error.code == .predicateSyntax)
        #expect(error.underlying?.contains("the key must start with p") == true)
    }

    @Test(arguments: [
        String(repeating: "(", count: 500) + "a == 1" + String(repeating: ")", count: 500),
        String(repeating: "NOT ", count: 500) + "a == 1",
        String(repeating: "!", count: 100_000) + "a == 1",
        "a IN " + String(repeating: "{", count: 500) + String(repeating: "}", count: 500),
        "a == " + String(repeating: "CAST(", count: 500) + "1" + String(repeating: ", 'Double')", count: 500),
        String(repeating: "AND(", count: 500) + String(repeating: ")", count: 500),
    ])
    func deepNestingIsAnErrorNotAStackOverflow(_ text: String) throws {
        let error = try #require(throws: StrataError.self) { try ObjectPredicate(format: text) }
        #expect(error.code == .predicateSyntax)
        #expect(error.message.contains("nests deeper than \(PredicateParser.maximumDepth) levels"))
    }

    @Test func nestingUpToTheLimitParses() throws {
        // Each parenthesis or NOT is one level; the comparison and its operand take two more.
        let depth = PredicateParser.maximumDepth - 2
        let text = String(repeating: "(", count: depth) + "a == 1" + String(repeating: ")", count: depth)
        #expect(try ObjectPredicate(format: text) == cmp(key("a"), .equal, const(1)))
        let nots = try ObjectPredicate(format: String(repeating: "NOT ", count: depth) + "a == 1")
        var expected = cmp(key("a"), .equal, const(1))
        for _ in 0..<depth { expected = .not(expected) }
        #expect(nots == expected)
        let tooDeep = String(repeating: "(", count: depth + 1) + "a == 1" + String(repeating: ")", count: depth + 1)
        #expect(throws: StrataError.self) { try ObjectPredicate(format: tooDeep) }
    }

    @Test func hugeFlatInputsParseWithoutRecursion() throws {
        let terms = (0..<20_000).map { "a == \($0)" }
        guard case .and(let parsed) = try ObjectPredicate(format: terms.joined(separator: " AND ")) else {
            Issue.record("not an AND list")
            return
        }
        #expect(parsed.count == 20_000)
        let list = try ObjectPredicate(format: "a IN {" + (0..<50_000).map(String.init).joined(separator: ",") + "}")
        guard case .comparison(let comparison) = list, case .list(let items) = comparison.rhs else {
            Issue.record("not a list")
            return
        }
        #expect(items.count == 50_000)
    }
}
