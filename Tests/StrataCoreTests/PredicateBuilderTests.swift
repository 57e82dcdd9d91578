import Foundation
import Testing

@testable import StrataCore

/// One builder expression and the format text that must parse to the same tree.
struct BuilderCase: Sendable, CustomTestStringConvertible {
    var built: ObjectPredicate
    var format: String
    var arguments: [any PredicateArgument]
    var testDescription: String { format }

    init(_ built: ObjectPredicate, _ format: String, _ arguments: any PredicateArgument...) {
        self.built = built
        self.format = format
        self.arguments = arguments
    }
}

@Suite("Predicate builder")
struct PredicateBuilderTests {
    static let id = ObjectID(entityName: "Employee", storeIdentifier: "S", primaryKey: 3)

    static let cases: [BuilderCase] = [
        .init(.key("height") > 1.8, "height > 1.8"),
        .init(.key("height") >= 2, "height >= 2"),
        .init(.key("height") < Float(1.5), "height < %@", Float(1.5)),
        .init(.key("height") <= Decimal(3), "height <= %@", Decimal(3)),
        .init(.key("name") == "ada", "name == 'ada'"),
        .init(.key("name") != "ada", "name != 'ada'"),
        .init(.key("name") == nil, "name == nil"),
        .init(.key("name") != nil, "name != NULL"),
        .init(.key("a") == .key("b"), "a == b"),
        .init(.key("a") != .key("b"), "a <> b"),
        .init(.key("a") < .key("b"), "a < b"),
        .init(.key("a") <= .key("b"), "a =< b"),
        .init(.key("a") > .key("b.@count"), "a > b.@count"),
        .init(.key("a") >= .key("b").count, "a => b.@count"),
        .init(.key("active") == true, "active == YES"),
        .init(.key("name").equals("ada", .caseInsensitive), "name ==[c] 'ada'"),
        .init(.key("name").beginsWith("l", .caseInsensitive), "name BEGINSWITH[c] 'l'"),
        .init(.key("name").beginsWith("l"), "name BEGINSWITH 'l'"),
        .init(.key("name").endsWith("z", [.caseInsensitive, .diacriticInsensitive]), "name ENDSWITH[cd] 'z'"),
        .init(.key("name").contains("oo", .diacriticInsensitive), "name CONTAINS[d] 'oo'"),
        .init(.key("name").like("l*"), "name LIKE 'l*'"),
        .init(.key("name").matches("^l.+$", .caseInsensitive), "name MATCHES[c] '^l.+$'"),
        .init(.key("department.name").in(["a", "b"]), "department.name IN {'a', 'b'}"),
        .init(.key("age").in(Set([3, 1, 2])), "age IN {1, 2, 3}"),
        .init(.key("name").in(.key("aliases")), "name IN aliases"),
        .init(.key("employees").count > 2, "employees.@count > 2"),
        .init(.key("employees").count == 0, "employees.@count == 0"),
        .init(.any("employees.name") == "x", "ANY employees.name == 'x'"),
        .init(.any("employees.name").beginsWith("x", .caseInsensitive), "SOME employees.name BEGINSWITH[c] 'x'"),
        .init(.all("employees.salary") > 1000, "ALL employees.salary > 1000"),
        .init(.none("employees.name") == "eve", "NONE employees.name == 'eve'"),
        .init(.key("height").between(1.5, 2.0), "height BETWEEN {1.5, 2.0}"),
        .init(
            .key("born").between(Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: 10)),
            "born BETWEEN {CAST(0, 'NSDate'), CAST(10, 'NSDate')}"),
        .init(.key("manager") == id, "manager == %@", id),
        .init(ObjectPredicate.evaluatedObject == id, "SELF == %@", id),
        .init(ObjectPredicate.evaluatedObject.in([id]), "SELF IN %@", [id]),
        .init(.key("employees").contains(id), "employees CONTAINS %@", id),
        .init(.key("nickname") == String?.none, "nickname == nil"),
        .init(.key("in") == 1, "#in == 1"),
        .init(
            .key("height") > 1.8 && .key("name").beginsWith("l", .caseInsensitive),
            "height > 1.8 AND name BEGINSWITH[c] 'l'"),
        .init(.key("a") == 1 && .key("b") == 2 && .key("c") == 3, "a == 1 AND b == 2 AND c == 3"),
        .init(.key("a") == 1 || .key("b") == 2 || .key("c") == 3, "a == 1 OR b == 2 OR c == 3"),
        .init(.key("a") == 1 || .key("b") == 2 && .key("c") == 3, "a == 1 OR b == 2 AND c == 3"),
        .init((.key("a") == 1 || .key("b") == 2) && .key("c") == 3, "(a == 1 OR b == 2) AND c == 3"),
        .init(.key("a") == 1 && (.key("b") == 2 && .key("c") == 3), "a == 1 AND (b == 2 AND c == 3)"),
        .init(!(.key("a") == 1), "NOT a == 1"),
        .init(!(.key("a") == 1) && .key("b") == 2, "!a == 1 && b == 2"),
        .init(!(.key("a") == 1 || .key("b") == 2), "NOT (a == 1 OR b == 2)"),
        .init(!(!(.key("a") == 1)), "NOT NOT a == 1"),
    ]

    @Test(arguments: cases)
    func builderBuildsTheSameTreeAsTheParser(_ builderCase: BuilderCase) throws {
        #expect(
            try ObjectPredicate(format: builderCase.format, argumentArray: builderCase.arguments) == builderCase.built)
    }

    @Test func everyOperatorHasABuilderForm() {
        var built = Set<ObjectPredicate.Operator>()
        var modifiers = Set<ObjectPredicate.Modifier>()
        for builderCase in Self.cases {
            Self.collect(builderCase.built, into: &built, &modifiers)
        }
        #expect(built == Set(ObjectPredicate.Operator.allCases))
        #expect(modifiers == [.direct, .any, .all, .none])
    }

    private static func collect(
        _ predicate: ObjectPredicate, into ops: inout Set<ObjectPredicate.Operator>,
        _ modifiers: inout Set<ObjectPredicate.Modifier>
    ) {
        switch predicate {
        case .comparison(let c):
            ops.insert(c.op)
            modifiers.insert(c.modifier)
        case .not(let p): collect(p, into: &ops, &modifiers)
        case .and(let ps), .or(let ps): for p in ps { collect(p, into: &ops, &modifiers) }
        case .alwaysTrue, .alwaysFalse: break
        }
    }

    @Test func explicitTypeNamesWorkAsWellAsLeadingDots() {
        let explicit = ObjectPredicate.key("height") > 1.8
        let key = ObjectPredicate.key("height")
        #expect(explicit == (key > 1.8))
        #expect(ObjectPredicate.Key.key("x").modifier == .direct)
        #expect(ObjectPredicate.any("x").modifier == .any)
    }

    @Test func countOfSomethingOtherThanAKeyPathIsUnchanged() {
        #expect(ObjectPredicate.key("a").count.count.operand == .count("a"))
        #expect(ObjectPredicate.evaluatedObject.count.operand == .evaluatedObject)
    }

    @Test func longBuilderExpressionsCombineAsTheTextDoes() throws {
        let minimum = 1.8
        let initial = "l"
        let p: ObjectPredicate =
            .key("height") > minimum && .key("name").beginsWith(initial, .caseInsensitive)
            || !(.key("nickname") == nil) && .any("employees.name").in(["a", "b"]) && .key("employees").count >= 2
        let text =
            "height > %@ AND name BEGINSWITH[c] %@ OR NOT nickname == nil AND ANY employees.name IN {'a', 'b'} AND employees.@count >= 2"
        #expect(try ObjectPredicate(format: text, minimum, initial) == p)
    }

    @Test func ordinarySwiftComparisonsAreUnaffected() {
        let a = 1
        let b = 2
        let flag: Bool = a < b && !(a == b) || a > b
        #expect(flag)
        let names = ["x", "y"]
        #expect(names.contains("x") && names != ["z"])
    }
}
