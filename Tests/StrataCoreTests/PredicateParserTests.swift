import Foundation
import Testing

@testable import StrataCore

/// Shorthands for expected trees.
typealias P = ObjectPredicate
typealias Operand = ObjectPredicate.Operand

func key(_ path: PropertyPath) -> Operand { .keyPath(path) }
func const(_ value: Value) -> Operand { .constant(value) }
func cmp(
    _ lhs: Operand, _ op: ObjectPredicate.Operator, _ rhs: Operand,
    _ modifier: ObjectPredicate.Modifier = .direct, _ options: ObjectPredicate.Options = []
) -> ObjectPredicate {
    .comparison(.init(lhs, op, rhs, modifier: modifier, options: options))
}

@Suite("Predicate format parser")
struct PredicateParserTests {
    @Test(arguments: [
        ("a == 1", ObjectPredicate.Operator.equal), ("a = 1", .equal), ("a != 1", .notEqual), ("a <> 1", .notEqual),
        ("a < 1", .less), ("a <= 1", .lessOrEqual), ("a =< 1", .lessOrEqual), ("a > 1", .greater),
        ("a >= 1", .greaterOrEqual), ("a => 1", .greaterOrEqual), ("a==1", .equal), ("a<1", .less),
    ])
    func symbolicOperatorsParseToTheirOperator(_ text: String, _ op: ObjectPredicate.Operator) throws {
        #expect(try P(format: text) == cmp(key("a"), op, const(.integer(1))))
    }

    @Test(arguments: [
        ("BEGINSWITH", ObjectPredicate.Operator.beginsWith), ("ENDSWITH", .endsWith), ("CONTAINS", .contains),
        ("LIKE", .like), ("MATCHES", .matches), ("beginswith", .beginsWith), ("Like", .like), ("matches", .matches),
    ])
    func stringOperatorKeywordsAreCaseInsensitive(_ word: String, _ op: ObjectPredicate.Operator) throws {
        #expect(try P(format: "name \(word) 'x'") == cmp(key("name"), op, const("x")))
    }

    @Test(
        arguments: [
            ("[c]", .caseInsensitive), ("[d]", .diacriticInsensitive),
            ("[cd]", [.caseInsensitive, .diacriticInsensitive]), ("[dc]", [.caseInsensitive, .diacriticInsensitive]),
            ("[C]", .caseInsensitive), ("[CD]", [.caseInsensitive, .diacriticInsensitive]),
        ] as [(String, ObjectPredicate.Options)])
    func optionsAttachToTheOperator(_ options: String, _ expected: ObjectPredicate.Options) throws {
        #expect(
            try P(format: "name BEGINSWITH\(options) 'x'")
                == cmp(key("name"), .beginsWith, const("x"), .direct, expected))
        #expect(try P(format: "name ==\(options) 'x'") == cmp(key("name"), .equal, const("x"), .direct, expected))
    }

    @Test func inWithAnAggregateGivesAList() throws {
        #expect(try P(format: "a IN {1, 2, 'x'}") == cmp(key("a"), .in, .list([const(1), const(2), const("x")])))
        #expect(try P(format: "a in {}") == cmp(key("a"), .in, .list([])))
        #expect(try P(format: "a IN {{1}, nil}") == cmp(key("a"), .in, .list([.list([const(1)]), const(.null)])))
    }

    @Test func inWithAKeyPathKeepsTheKeyPath() throws {
        #expect(try P(format: "SELF IN manager.reports") == cmp(.evaluatedObject, .in, key("manager.reports")))
    }

    @Test func betweenTakesTwoBounds() throws {
        #expect(
            try P(format: "height BETWEEN {1.5, 2}") == cmp(key("height"), .between, .list([const(1.5), const(2)])))
        #expect(
            try P(format: "height between %@", [1, 2]) == cmp(key("height"), .between, .list([const(1), const(2)])))
    }

    @Test(arguments: [
        ("ANY", ObjectPredicate.Modifier.any), ("SOME", .any), ("ALL", .all), ("NONE", .none),
        ("any", .any), ("some", .any), ("All", .all), ("none", .none),
    ])
    func modifiersApplyToTheComparison(_ word: String, _ modifier: ObjectPredicate.Modifier) throws {
        #expect(
            try P(format: "\(word) employees.name == 'x'") == cmp(key("employees.name"), .equal, const("x"), modifier))
    }

    @Test func countAfterAKeyPath() throws {
        #expect(try P(format: "employees.@count > 2") == cmp(.count("employees"), .greater, const(2)))
        #expect(
            try P(format: "department.employees.@COUNT == 0") == cmp(.count("department.employees"), .equal, const(0)))
    }

    @Test func dottedKeyPathsSplitIntoComponents() throws {
        #expect(
            try P(format: "department.company.name == 'x'")
                == cmp(.keyPath(PropertyPath(["department", "company", "name"])), .equal, const("x")))
        #expect(try P(format: "_private1 == 1") == cmp(key("_private1"), .equal, const(1)))
        #expect(try P(format: "größe == 1") == cmp(key("größe"), .equal, const(1)))
    }

    @Test func hashEscapesReservedWordsAsKeys() throws {
        #expect(try P(format: "#IN == 1") == cmp(key("IN"), .equal, const(1)))
        #expect(
            try P(format: "a.#size.#Self == 1") == cmp(.keyPath(PropertyPath(["a", "size", "Self"])), .equal, const(1)))
        #expect(try P(format: "#name == 1") == cmp(key("name"), .equal, const(1)))
        #expect(try P(format: "ın == 1") == cmp(key("ın"), .equal, const(1)))
    }

    @Test func selfIsTheEvaluatedObjectAndSelfDotIsAKeyPath() throws {
        #expect(try P(format: "SELF == nil") == cmp(.evaluatedObject, .equal, const(.null)))
        #expect(try P(format: "self.name == 'x'") == cmp(key("name"), .equal, const("x")))
        #expect(try P(format: "SELF.employees.@count == 1") == cmp(.count("employees"), .equal, const(1)))
    }

    @Test(arguments: [
        ("nil", Value.null), ("NULL", .null), ("Nil", .null), ("TRUE", .bool(true)), ("yes", .bool(true)),
        ("FALSE", .bool(false)), ("NO", .bool(false)), ("false", .bool(false)),
    ])
    func wordLiterals(_ word: String, _ value: Value) throws {
        #expect(try P(format: "a == \(word)") == cmp(key("a"), .equal, const(value)))
    }

    @Test func truePredicateAndFalsePredicate() throws {
        #expect(try P(format: "TRUEPREDICATE") == .alwaysTrue)
        #expect(try P(format: "falsepredicate") == .alwaysFalse)
        #expect(try P(format: "TRUEPREDICATE AND NOT FALSEPREDICATE") == .and([.alwaysTrue, .not(.alwaysFalse)]))
    }

    @Test(arguments: [
        ("42", Value.integer(42)), ("-7", .integer(-7)), ("0", .integer(0)), ("0x1F", .integer(31)),
        ("-0x10", .integer(-16)),
        ("0b101", .integer(5)), ("0o17", .integer(15)), ("9223372036854775807", .integer(.max)),
        ("-9223372036854775808", .integer(.min)), ("0x7FFFFFFFFFFFFFFF", .integer(.max)),
        ("-0x8000000000000000", .integer(.min)),
        ("1.5", .double(1.5)), ("-0.25", .double(-0.25)), ("1e3", .double(1000)), ("2.5E-3", .double(0.0025)),
        ("1e+16", .double(1e16)), ("-0.0", .double(-0.0)), ("5e-324", .double(.leastNonzeroMagnitude)),
    ])
    func numbers(_ literal: String, _ value: Value) throws {
        let parsed = try P(format: "a == \(literal)")
        #expect(parsed == cmp(key("a"), .equal, const(value)))
        if case .comparison(let c) = parsed, case .constant(.double(let d)) = c.rhs, case .double(let e) = value {
            #expect(d.bitPattern == e.bitPattern)
        }
    }

    @Test(arguments: [
        (#"'plain'"#, "plain"), (#""double""#, "double"), (#"'it\'s'"#, "it's"), (#""say \"hi\"""#, "say \"hi\""),
        (#"'back\\slash'"#, "back\\slash"), (#"'a\nb\tc\rd'"#, "a\nb\tc\rd"), (#"'\u00e9t\u00E9'"#, "été"),
        (#"'\ud83d\ude00'"#, "😀"), (#"'"'"#, "\""), (#""'""#, "'"), ("''", ""), ("'日本語'", "日本語"),
        (#"'nul\0'"#, "nul\0"),
    ])
    func strings(_ literal: String, _ value: String) throws {
        #expect(try P(format: "a == \(literal)") == cmp(key("a"), .equal, const(.string(value))))
    }

    @Test func stringsCompareByScalarsSoDecomposedTextStaysDecomposed() throws {
        let parsed = try P(format: "a == 'e\u{301}'")
        #expect(parsed == cmp(key("a"), .equal, const(.string("e\u{301}"))))
        #expect(parsed != cmp(key("a"), .equal, const(.string("\u{e9}"))))
    }

    @Test func leftOperandsNeedNotBeKeyPaths() throws {
        #expect(try P(format: "5 < height") == cmp(const(5), .less, key("height")))
        #expect(try P(format: "'x' IN names") == cmp(const("x"), .in, key("names")))
        #expect(try P(format: "a == b") == cmp(key("a"), .equal, key("b")))
    }

    @Test func castsBuildValuesWithoutLiterals() throws {
        let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        #expect(
            try P(format: "d == CAST(0, 'NSDate')")
                == cmp(key("d"), .equal, const(.date(Date(timeIntervalSinceReferenceDate: 0)))))
        #expect(
            try P(format: "d == cast(1.5, \"date\")")
                == cmp(key("d"), .equal, const(.date(Date(timeIntervalSinceReferenceDate: 1.5)))))
        #expect(try P(format: "f == CAST(0.5, 'Float')") == cmp(key("f"), .equal, const(.float(0.5))))
        #expect(try P(format: "x == CAST('-inf', 'Double')") == cmp(key("x"), .equal, const(.double(-.infinity))))
        #expect(try P(format: "x == CAST('nan', 'Double')") == cmp(key("x"), .equal, const(.double(.nan))))
        #expect(
            try P(format: "m == CAST('12.34', 'NSDecimalNumber')")
                == cmp(key("m"), .equal, const(.decimal(Decimal(string: "12.34")!))))
        #expect(try P(format: "u == CAST('\(uuid.uuidString)', 'UUID')") == cmp(key("u"), .equal, const(.uuid(uuid))))
        #expect(
            try P(format: "w == CAST('https://x.org/a', 'URL')")
                == cmp(key("w"), .equal, const(.uri(URL(string: "https://x.org/a")!))))
        #expect(try P(format: "b == CAST('AQID', 'Data')") == cmp(key("b"), .equal, const(.binary(Data([1, 2, 3])))))
        let id = ObjectID(entityName: "Employee", storeIdentifier: "S1", primaryKey: 42)
        #expect(
            try P(format: "SELF == CAST('strata://S1/Employee/p42', 'ObjectID')")
                == cmp(.evaluatedObject, .equal, .objectID(id)))
    }

    @Test func whitespaceIsFreeAroundTokens() throws {
        #expect(try P(format: "\n\t a\t==\n1 ") == cmp(key("a"), .equal, const(1)))
        #expect(
            try P(format: "(a==1)&&!(b==2)")
                == .and([cmp(key("a"), .equal, const(1)), .not(cmp(key("b"), .equal, const(2)))]))
    }
}

@Suite("Predicate format precedence")
struct PredicatePrecedenceTests {
    let a = cmp(key("a"), .equal, const(1))
    let b = cmp(key("b"), .equal, const(2))
    let c = cmp(key("c"), .equal, const(3))

    @Test func andBindsTighterThanOr() throws {
        #expect(try P(format: "a == 1 OR b == 2 AND c == 3") == .or([a, .and([b, c])]))
        #expect(try P(format: "a == 1 AND b == 2 OR c == 3") == .or([.and([a, b]), c]))
    }

    @Test func notBindsTighterThanAnd() throws {
        #expect(try P(format: "NOT a == 1 AND b == 2") == .and([.not(a), b]))
        #expect(try P(format: "! a == 1 || b == 2") == .or([.not(a), b]))
        #expect(try P(format: "NOT NOT a == 1") == .not(.not(a)))
    }

    @Test func chainsOfOneOperatorFormOneList() throws {
        #expect(try P(format: "a == 1 AND b == 2 && c == 3") == .and([a, b, c]))
        #expect(try P(format: "a == 1 or b == 2 || c == 3") == .or([a, b, c]))
    }

    @Test func parenthesesGroupAndAreNotFlattened() throws {
        #expect(try P(format: "(a == 1 OR b == 2) AND c == 3") == .and([.or([a, b]), c]))
        #expect(try P(format: "a == 1 AND (b == 2 AND c == 3)") == .and([a, .and([b, c])]))
        #expect(try P(format: "NOT (a == 1 AND b == 2)") == .not(.and([a, b])))
        #expect(try P(format: "((a == 1))") == a)
    }

    @Test func prefixListFormsExpressShortLists() throws {
        #expect(try P(format: "AND()") == .and([]))
        #expect(try P(format: "OR()") == .or([]))
        #expect(try P(format: "AND(a == 1)") == .and([a]))
        #expect(try P(format: "or(a == 1, b == 2 AND c == 3)") == .or([a, .and([b, c])]))
    }
}

@Suite("Predicate format arguments")
struct PredicateArgumentTests {
    @Test func objectPlaceholderTakesEveryArgumentKind() throws {
        let date = Date(timeIntervalSinceReferenceDate: 12345.5)
        let uuid = UUID()
        let url = URL(string: "file:///tmp/x")!
        let id = ObjectID(entityName: "Employee", storeIdentifier: "S", primaryKey: 7)
        let cases: [(any PredicateArgument, Operand)] = [
            (Int(3), const(.integer(3))), (Int16(-4), const(.integer(-4))), (Int32(5), const(.integer(5))),
            (Int64.max, const(.integer(.max))), (1.25, const(.double(1.25))), (Float(0.5), const(.float(0.5))),
            (Decimal(string: "1.1")!, const(.decimal(Decimal(string: "1.1")!))), ("ada", const("ada")),
            (true, const(.bool(true))), (date, const(.date(date))), (Data([9]), const(.binary(Data([9])))),
            (uuid, const(.uuid(uuid))), (url, const(.uri(url))), (Value.integer(8), const(8)),
            (Value.null, const(.null)),
            (id, .objectID(id)), (String?.none, const(.null)), (Int?.some(2), const(2)),
            ([1, 2], .list([const(1), const(2)])), (Set(["b", "a"]), .list([const("a"), const("b")])),
            ([[1], []] as [[Int]], .list([.list([const(1)]), .list([])])), ([id], .list([.objectID(id)])),
            (PropertyPath("x.y"), key("x.y")),
        ]
        for (argument, operand) in cases {
            #expect(try P(format: "k == %@", argument) == cmp(key("k"), .equal, operand))
            #expect(try P(format: "k == %@", argumentArray: [argument]) == cmp(key("k"), .equal, operand))
        }
    }

    @Test func argumentsAreTakenInOrder() throws {
        #expect(
            try P(format: "%K == %@ AND b IN %@", "a", "x", [1])
                == .and([cmp(key("a"), .equal, const("x")), cmp(key("b"), .in, .list([const(1)]))]))
    }

    @Test(arguments: ["%d", "%i", "%ld", "%lld", "%li", "%u", "%lu", "%hd", "%qd"])
    func integerPlaceholdersTakeIntegers(_ placeholder: String) throws {
        #expect(try P(format: "a == \(placeholder)", 5) == cmp(key("a"), .equal, const(5)))
        #expect(try P(format: "a == \(placeholder)", Int16(5)) == cmp(key("a"), .equal, const(5)))
    }

    @Test(arguments: ["%f", "%lf", "%g", "%e"])
    func floatingPlaceholdersTakeAnyNumberAsDouble(_ placeholder: String) throws {
        #expect(try P(format: "a == \(placeholder)", 5) == cmp(key("a"), .equal, const(.double(5))))
        #expect(try P(format: "a == \(placeholder)", 0.1) == cmp(key("a"), .equal, const(.double(0.1))))
        #expect(try P(format: "a == \(placeholder)", Float(0.5)) == cmp(key("a"), .equal, const(.double(0.5))))
        #expect(try P(format: "a == \(placeholder)", Decimal(2)) == cmp(key("a"), .equal, const(.double(2))))
    }

    @Test func keyPlaceholderTakesAStringAsAKeyPath() throws {
        #expect(try P(format: "%K == 1", "department.name") == cmp(key("department.name"), .equal, const(1)))
        #expect(try P(format: "%K.@count > 1", "employees") == cmp(.count("employees"), .greater, const(1)))
        #expect(try P(format: "%K.name == 1", "manager") == cmp(key("manager.name"), .equal, const(1)))
        #expect(try P(format: "%K == 1", "IN") == cmp(key("IN"), .equal, const(1)))
        #expect(try P(format: "ANY %K == 1", PropertyPath("a.b")) == cmp(key("a.b"), .equal, const(1), .any))
    }

    @Test func aStringArgumentIsAConstantNotAKey() throws {
        #expect(try P(format: "name == %@", "other") == cmp(key("name"), .equal, const("other")))
    }

    @Test func argumentsInsideAggregates() throws {
        #expect(try P(format: "a IN {%@, %d}", "x", 2) == cmp(key("a"), .in, .list([const("x"), const(2)])))
        #expect(
            try P(format: "a BETWEEN {%f, %@}", 1, 2.5)
                == cmp(key("a"), .between, .list([const(.double(1)), const(2.5)])))
    }
}
