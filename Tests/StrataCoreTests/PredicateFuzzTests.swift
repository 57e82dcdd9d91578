import Foundation
import StrataTestSupport
import Testing

@testable import StrataCore

@Suite("Predicate parser fuzzing")
struct PredicateFuzzTests {
    static let vocabulary = [
        "a", "name", "employees", "b.c", ".", "@count", "@sum", "SELF", "#IN", "#", "in", "AND", "and", "&&", "&", "OR",
        "||",
        "|", "NOT", "!", "ANY", "SOME", "ALL", "NONE", "==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>",
        "BEGINSWITH",
        "ENDSWITH", "CONTAINS", "LIKE", "MATCHES", "IN", "BETWEEN", "[c]", "[cd]", "[x]", "[", "]", "(", ")", "{", "}",
        ",",
        "nil", "NULL", "TRUE", "YES", "FALSE", "NO", "TRUEPREDICATE", "FALSEPREDICATE", "CAST", "'NSDate'", "'Double'",
        "'ObjectID'", "'strata://S/E/p1'", "0", "-1", "42", "1.5", "-2e10", "0x1F", "0x", "1e", "99999999999999999999",
        "'x'", "\"y\"", "'", "\"", "\\", "'\\u00e9'", "'\\q'", "'\\u12'", "%@", "%K", "%d", "%f", "%", "%x", "$v", "+",
        "-",
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
            #expect(
                position.map { (0...text.unicodeScalars.count).contains($0) } == true,
                "\(text.debugDescription): \(error)")
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
            let text = (0..<count).map { _ in Self.vocabulary.randomElement(using: &generator)! }.joined(
                separator: separator)
            let arguments = (0..<Int.random(in: 0...3, using: &generator)).map { _ in
                Self.argumentPool.randomElement(using: &generator)!
            }
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
                let k = keys.randomElement(using: &generator)!
                let v = values.randomElement(using: &generator)!
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
        let scalars: [Unicode.Scalar] =
            Array("abAZ09_ .,()[]{}'\"\\#@%$!=<>&|+-*/:;?~`^\t\n".unicodeScalars)
            + ["\u{0}", "\u{7F}", "\u{A0}", "\u{301}", "\u{2028}", "\u{FEFF}", "é", "ß", "日", "😀", "\u{10FFFF}"]
        for _ in 0..<5_000 {
            var text = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...30, using: &generator) {
                text.append(scalars.randomElement(using: &generator)!)
            }
            guard Self.check(String(text), []) else { return }
        }
    }

    // MARK: Mutations, evaluation and nesting limits (the reliability tests, docs/Reliability.md)

    static let validPredicates = [
        "name == 'Ann' AND age > 30", "ANY team.members.name BEGINSWITH[cd] 'é'",
        "score BETWEEN {1.5, 2.5} OR NOT (age IN {1, 2, 3})",
        "name LIKE[c] 'a*b?' && team != nil", "members.@count >= 2 || SELF IN %@", "name MATCHES '^[a-z]+$'",
        "age < %d AND name CONTAINS %@",
        "TRUEPREDICATE", "NONE team.members.age == nil", "CAST(0, 'NSDate') < name", "%K == 'x'", "(((age == 1)))",
    ]

    @Test func mutatedValidPredicatesParseOrThrowASyntaxError() {
        var generator = SeededGenerator(seed: 2026)
        var parsedCount = 0
        for i in 0..<3_000 {
            var scalars = Array(Self.validPredicates[i % Self.validPredicates.count].unicodeScalars)
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let position = Int.random(in: 0...scalars.count, using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0 where position < scalars.count: scalars.remove(at: position)
                case 1 where position < scalars.count: scalars.insert(scalars[position], at: position)
                case 2:
                    scalars.insert(
                        contentsOf: Self.vocabulary.randomElement(using: &generator)!.unicodeScalars, at: position)
                default: scalars = Array(scalars[0..<position])
                }
            }
            var text = String.UnicodeScalarView()
            text.append(contentsOf: scalars)
            // One argument per specifier of the mutated text, of the kind the specifier asks for.
            let arguments: [any PredicateArgument] = String(text).split(
                separator: "%", omittingEmptySubsequences: false
            ).dropFirst().map { rest -> any PredicateArgument in
                rest.first == "K" ? "name" : rest.first == "d" ? 3 : "x"
            }
            guard Self.check(String(text), arguments) else { return }
            if (try? ObjectPredicate(format: String(text), argumentArray: arguments)) != nil { parsedCount += 1 }
        }
        #expect(parsedCount > 100)
        print("reliability: predicate fuzz (mutated predicates): 3000 inputs tried, \(parsedCount) parsed")
    }

    static let evaluationModel = try! Model(entities: [
        Entity(
            "Person",
            attributes: [
                Attribute("name", .string, isOptional: true), Attribute("age", .integer32, isOptional: true),
                Attribute("score", .double, isOptional: true),
            ],
            relationships: [Relationship("team", to: "Team", inverse: "members")]),
        Entity(
            "Team", attributes: [Attribute("title", .string)],
            relationships: [Relationship("members", to: "Person", inverse: "team", toMany: true)]),
    ])

    @Test func parsedRandomPredicatesEvaluateOrThrowATypedError() {
        var generator = SeededGenerator(seed: 31)
        let team = ObjectID(entityName: "Team", storeIdentifier: "s", primaryKey: 1)
        let person = ObjectID(entityName: "Person", storeIdentifier: "s", primaryKey: 1)
        let snapshot = Snapshot(
            objectID: person, version: 1, attributes: ["Ann", 30, .double(.nan)], relationships: [.toOne(team)])
        let evaluator = PredicateEvaluator(model: Self.evaluationModel) { id in
            id == team
                ? Snapshot(objectID: team, version: 1, attributes: ["Red"], relationships: [.toMany([person])])
                : id == person ? snapshot : nil
        }
        let keys = [
            "name", "age", "score", "team", "team.title", "team.members", "team.members.name", "team.members.@count",
            "SELF", "nope", "name.length",
        ]
        let ops = [
            "==", "!=", "<", ">=", "BEGINSWITH[c]", "CONTAINS[cd]", "LIKE", "MATCHES", "IN", "BETWEEN", "ENDSWITH",
        ]
        let values = [
            "1", "-2.5", "'A*'", "'('", "nil", "TRUE", "{1, 'a'}", "{1, 2}", "%@", "CAST(0, 'NSDate')", "1e400", "''",
        ]
        var evaluated = 0
        var typedErrors = 0
        for _ in 0..<3_000 {
            var text = ""
            var arguments: [any PredicateArgument] = []
            for term in 0..<Int.random(in: 1...4, using: &generator) {
                if term > 0 { text += [" AND ", " OR ", " AND NOT "].randomElement(using: &generator)! }
                let v = values.randomElement(using: &generator)!
                if v == "%@" { arguments.append(Self.argumentPool.randomElement(using: &generator)!) }
                text +=
                    "\(["", "ANY ", "ALL ", "NONE "].randomElement(using: &generator)!)\(keys.randomElement(using: &generator)!) \(ops.randomElement(using: &generator)!) \(v)"
            }
            guard let predicate = try? ObjectPredicate(format: text, argumentArray: arguments) else { continue }
            do {
                _ = try evaluator.evaluate(predicate, on: snapshot)
                evaluated += 1
            } catch is StrataError {
                typedErrors += 1
            } catch {
                Issue.record("\(text): an untyped error \(error)")
                return
            }
        }
        #expect(evaluated > 300 && typedErrors > 100, "\(evaluated) evaluated, \(typedErrors) typed errors")
        print(
            "reliability: predicate fuzz (evaluation): 3000 inputs tried, \(evaluated) evaluated, \(typedErrors) typed errors"
        )
    }

    @Test func theDeepestAcceptedNestingParsesPrintsAndEvaluatesAndOneMoreIsASyntaxError() throws {
        let limit = 128
        let person = ObjectID(entityName: "Person", storeIdentifier: "s", primaryKey: 1)
        let snapshot = Snapshot(
            objectID: person, version: 1, attributes: ["Ann", 30, 1.5], relationships: [.toOne(nil)])
        let evaluator = PredicateEvaluator(model: Self.evaluationModel) { _ in nil }
        for (open, close) in [("(", ")"), ("NOT (", ")")] {
            func nested(_ depth: Int) -> String {
                String(repeating: open, count: depth) + "age == 30" + String(repeating: close, count: depth)
            }
            let accepted = try #require((0...limit).last { (try? ObjectPredicate(format: nested($0))) != nil })
            #expect(accepted >= limit / 2 - 1, "only \(accepted) levels of \(open) are accepted")
            let parsed = try ObjectPredicate(format: nested(accepted))
            #expect(try ObjectPredicate(format: parsed.description) == parsed)
            _ = try evaluator.evaluate(parsed, on: snapshot)
            for depth in [accepted + 1, 100_000] {
                #expect(throws: StrataError.self) { try ObjectPredicate(format: nested(depth)) }
            }
        }
        let wide = (0..<20_000).map { "age == \($0)" }.joined(separator: " OR ")
        let parsed = try ObjectPredicate(format: wide)
        #expect(try evaluator.evaluate(parsed, on: snapshot))
        #expect(try ObjectPredicate(format: parsed.description) == parsed, "a 20,000-term OR prints and parses back")
    }
}
