import Foundation
import StrataTestSupport
import Testing

@testable import StrataCore

@Suite("Predicate format printer")
struct PredicateFormatTests {
    static let id = ObjectID(entityName: "Employee", storeIdentifier: "STORE-1", primaryKey: 42)
    static let tempID = ObjectID.temporary(entityName: "Department")

    static let table: [ObjectPredicate] = [
        .alwaysTrue, .alwaysFalse, .and([]), .or([]), .and([.alwaysTrue]), .or([.alwaysFalse]),
        .not(.and([])), .not(.not(.alwaysTrue)),
        cmp(key("name"), .equal, const("ada")),
        cmp(key("a"), .notEqual, const(.null)),
        cmp(key("a"), .less, const(.integer(.min))), cmp(key("a"), .lessOrEqual, const(.integer(.max))),
        cmp(key("a"), .greater, const(-0.0)), cmp(key("a"), .greaterOrEqual, const(.double(.leastNonzeroMagnitude))),
        cmp(key("name"), .beginsWith, const("x"), .direct, .caseInsensitive),
        cmp(key("name"), .endsWith, const("x"), .direct, .diacriticInsensitive),
        cmp(key("name"), .contains, const("x"), .direct, [.caseInsensitive, .diacriticInsensitive]),
        cmp(key("name"), .like, const("a*?\\*")), cmp(key("name"), .matches, const("^[a-z]+\\d$")),
        cmp(key("a"), .in, .list([const(1), const("two"), const(.null), .list([])])),
        cmp(key("a"), .between, .list([const(1.5), const(2)])),
        cmp(key("employees.name"), .equal, const("x"), .any), cmp(key("employees.salary"), .greater, const(5), .all),
        cmp(key("employees.name"), .beginsWith, const("z"), .none, .caseInsensitive),
        cmp(.count("employees"), .greater, const(2)),
        cmp(.keyPath(PropertyPath(["in", "SELF", "size", "Cast", "nil"])), .equal, const(true)),
        cmp(.count(PropertyPath(["first"])), .equal, const(false)),
        cmp(.evaluatedObject, .equal, .objectID(id)),
        cmp(.evaluatedObject, .in, .list([.objectID(id), .objectID(tempID)])),
        cmp(key("manager"), .equal, .objectID(id)),
        cmp(key("a"), .equal, key("b")), cmp(const(5), .less, key("h")),
        cmp(
            key("s"), .equal,
            const(.string("quote \" apostrophe ' backslash \\ newline \n tab \t cr \r nul \0 bell \u{7} del \u{7F}"))),
        cmp(key("s"), .equal, const(.string("e\u{301} é 😀 日本 \u{200B} \u{FEFF}"))),
        cmp(key("f"), .equal, const(.float(0.1))), cmp(key("f"), .equal, const(.float(.nan))),
        cmp(key("f"), .equal, const(.float(-.infinity))), cmp(key("f"), .equal, const(.float(.leastNonzeroMagnitude))),
        cmp(key("d"), .equal, const(.double(.nan))), cmp(key("d"), .equal, const(.double(.infinity))),
        cmp(key("d"), .equal, const(.double(.greatestFiniteMagnitude))),
        cmp(key("m"), .equal, const(.decimal(Decimal(string: "-123.456")!))),
        cmp(key("m"), .equal, const(.decimal(.nan))),
        cmp(key("m"), .equal, const(.decimal(Decimal(string: "1e-30")!))),
        cmp(key("t"), .equal, const(.date(Date(timeIntervalSinceReferenceDate: 123.456)))),
        cmp(key("t"), .less, const(.date(Date(timeIntervalSinceReferenceDate: -1e9)))),
        cmp(key("u"), .equal, const(.uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!))),
        cmp(key("w"), .equal, const(.uri(URL(string: "https://example.org/a%20b?q=1#f")!))),
        cmp(key("b"), .equal, const(.binary(Data([0, 1, 2, 255])))), cmp(key("b"), .equal, const(.binary(Data()))),
        .and([
            cmp(key("a"), .equal, const(1)), .or([cmp(key("b"), .equal, const(2)), cmp(key("c"), .equal, const(3))]),
        ]),
        .or([
            .and([cmp(key("a"), .equal, const(1)), cmp(key("b"), .equal, const(2))]),
            .not(cmp(key("c"), .equal, const(3))),
        ]),
        .and([.and([.alwaysTrue, .alwaysFalse]), .alwaysTrue]), .or([.alwaysTrue, .or([.alwaysFalse, .alwaysTrue])]),
        .not(.or([.alwaysTrue, .alwaysFalse])), .and([.and([.alwaysTrue]), .or([])]),
    ]

    @Test(arguments: table)
    func printedPredicatesParseBackToTheSameTree(_ predicate: ObjectPredicate) throws {
        #expect(try ObjectPredicate(format: predicate.description) == predicate, "printed as \(predicate.description)")
    }

    @Test func printedTextIsTheFormatLanguage() {
        let p: ObjectPredicate = .or([
            .and([
                cmp(
                    key("department.name"), .beginsWith, const("Eng"), .direct,
                    [.caseInsensitive, .diacriticInsensitive]),
                cmp(.count("employees"), .greater, const(2)),
            ]),
            .not(cmp(key("employees.name"), .in, .list([const("a"), const(.null)]), .any)),
            cmp(key("in"), .between, .list([const(1), const(2.5)])),
        ])
        #expect(
            p.description
                == #"(department.name BEGINSWITH[cd] "Eng" AND employees.@count > 2) OR NOT ANY employees.name IN {"a", nil} OR #in BETWEEN {1, 2.5}"#
        )
        #expect(
            cmp(.evaluatedObject, .equal, .objectID(Self.id)).description
                == #"SELF == CAST("strata://STORE-1/Employee/p42", "ObjectID")"#)
        #expect(cmp(key("s"), .equal, const("a\"b\\c\n\u{1}")).description == #"s == "a\"b\\c\n\u0001""#)
        #expect(
            cmp(key("t"), .equal, const(.date(Date(timeIntervalSinceReferenceDate: 0)))).description
                == #"t == CAST(0.0, "NSDate")"#)
        #expect(ObjectPredicate.and([]).description == "AND()")
        #expect(cmp(key("f"), .equal, const(.float(-.infinity))).description == #"f == CAST("-inf", "Float")"#)
        #expect(cmp(key("f"), .equal, const(.float(.nan))).description == #"f == CAST("nan", "Float")"#)
        #expect(cmp(key("ın"), .equal, const(.float(0.5))).description == #"ın == CAST(0.5, "Float")"#)
    }

    @Test(arguments: [
        0.1, 1.0 / 3.0, -0.0, 0.0, 1e16, 1e-5, 123456789.123456789, .pi, .ulpOfOne, .leastNonzeroMagnitude,
        .leastNormalMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 9007199254740993.0, 2.5e-308,
    ])
    func doublesParseBackToTheSameBits(_ value: Double) throws {
        let printed = cmp(key("x"), .equal, const(.double(value))).description
        guard case .comparison(let c) = try ObjectPredicate(format: printed),
            case .constant(.double(let parsed)) = c.rhs
        else {
            Issue.record("\(printed) did not parse to a double")
            return
        }
        #expect(parsed.bitPattern == value.bitPattern, "\(printed)")
    }

    @Test func randomTreesRoundTrip() throws {
        var generator = SeededGenerator(seed: 0x5EED_F00D)
        for _ in 0..<2_000 {
            let predicate = RandomPredicates.predicate(depth: 4, using: &generator)
            let text = predicate.description
            let parsed = try ObjectPredicate(format: text)
            #expect(parsed == predicate, "printed as \(text)")
            if parsed != predicate { return }
        }
    }

    @Test func operandsPrintAlone() {
        #expect(Operand.list([const(1), .evaluatedObject, .count("a.b")]).description == "{1, SELF, a.b.@count}")
        #expect(Operand.keyPath(PropertyPath(["a", "AND"])).description == "a.#AND")
    }
}

/// Random trees for round-trip tests.
enum RandomPredicates {
    static let keys = ["name", "a", "_x1", "größe", "in", "SELF", "Size", "nil", "cast", "employees", "日本"]
    static let strings = [
        "", "x", "'", "\"", "\\", "\n\t\r", "\u{0}\u{1F}\u{7F}", "e\u{301}", "😀👩‍👩‍👧", "%@", "#IN", "a b",
    ]

    static func predicate(depth: Int, using g: inout SeededGenerator) -> ObjectPredicate {
        let choice = Int.random(in: 0..<(depth > 0 ? 9 : 4), using: &g)
        switch choice {
        case 0: return [.alwaysTrue, .alwaysFalse][Int.random(in: 0..<2, using: &g)]
        case 1...3: return .comparison(comparison(using: &g))
        case 4: return .not(predicate(depth: depth - 1, using: &g))
        case 5, 6:
            return .and((0..<Int.random(in: 0...4, using: &g)).map { _ in predicate(depth: depth - 1, using: &g) })
        default: return .or((0..<Int.random(in: 0...4, using: &g)).map { _ in predicate(depth: depth - 1, using: &g) })
        }
    }

    static func comparison(using g: inout SeededGenerator) -> ObjectPredicate.Comparison {
        let op = ObjectPredicate.Operator.allCases.randomElement(using: &g)!
        let modifier = [ObjectPredicate.Modifier.direct, .any, .all, .none].randomElement(using: &g)!
        let options = ObjectPredicate.Options(rawValue: UInt8.random(in: 0...3, using: &g))
        let rhs: Operand =
            op == .between
            ? .list([operand(depth: 1, using: &g), operand(depth: 1, using: &g)])
            : operand(depth: 2, using: &g)
        return .init(operand(depth: 1, using: &g), op, rhs, modifier: modifier, options: options)
    }

    static func path(using g: inout SeededGenerator) -> PropertyPath {
        PropertyPath((0..<Int.random(in: 1...3, using: &g)).map { _ in keys.randomElement(using: &g)! })
    }

    static func operand(depth: Int, using g: inout SeededGenerator) -> Operand {
        switch Int.random(in: 0..<(depth > 0 ? 6 : 5), using: &g) {
        case 0: return .keyPath(path(using: &g))
        case 1: return .count(path(using: &g))
        case 2: return .evaluatedObject
        case 3:
            return .objectID(
                Bool.random(using: &g)
                    ? ObjectID(
                        entityName: "E", storeIdentifier: "S.1", primaryKey: Int64.random(in: .min ... .max, using: &g))
                    : .temporary(entityName: "T"))
        case 4: return .constant(value(using: &g))
        default: return .list((0..<Int.random(in: 0...3, using: &g)).map { _ in operand(depth: depth - 1, using: &g) })
        }
    }

    static func value(using g: inout SeededGenerator) -> Value {
        switch Int.random(in: 0..<12, using: &g) {
        case 0: return .null
        case 1: return .integer(Int64.random(in: .min ... .max, using: &g))
        case 2: return .double(Double(bitPattern: UInt64.random(in: 0 ... .max, using: &g)))
        case 3: return .double(Double.random(in: -1e6...1e6, using: &g))
        case 4: return .float(Float(bitPattern: UInt32.random(in: 0 ... .max, using: &g)))
        case 5: return .decimal(Decimal(Int64.random(in: -1_000_000...1_000_000, using: &g)) / 1000)
        case 6:
            return .string(
                (0..<Int.random(in: 0...3, using: &g)).map { _ in strings.randomElement(using: &g)! }.joined())
        case 7: return .bool(Bool.random(using: &g))
        case 8: return .date(Date(timeIntervalSinceReferenceDate: Double.random(in: -1e10...1e10, using: &g)))
        case 9:
            return .binary(
                Data((0..<Int.random(in: 0...8, using: &g)).map { _ in UInt8.random(in: 0...255, using: &g) }))
        case 10: return .uuid(UUID())
        default: return .uri(URL(string: "https://example.org/\(Int.random(in: 0...999, using: &g))?q=\"x\"")!)
        }
    }
}
