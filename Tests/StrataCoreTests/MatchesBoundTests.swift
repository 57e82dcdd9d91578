import Foundation
import StrataCore
import Testing

/// `MATCHES` costs are bounded: a pattern longer than ``StringMatching/maximumPatternLength`` is
/// refused with a typed error before any object is matched.
///
/// Before, `name MATCHES "(a|b)?(a|b)?..."` with 10,000 groups was accepted and took about a
/// second per object (ICU's cost grows faster than the pattern), so a fetch over 10,000 objects
/// ran for hours; and a predicate nested 10,000 levels deep crashed the process.
@Suite struct MatchesBoundTests {
    static let model = try! Model(entities: [
        Entity("Person", attributes: [Attribute("name", .string, isOptional: true)])
    ])

    static func people(_ count: Int) -> [Snapshot] {
        (0..<count).map { i in
            Snapshot(
                objectID: ObjectID(entityName: "Person", storeIdentifier: "s", primaryKey: Int64(i + 1)), version: 1,
                attributes: [.string(i % 3 == 0 ? "ab\(i % 10)" : String(repeating: "ab", count: i % 7))],
                relationships: [])
        }
    }

    static func matching(_ pattern: String, over snapshots: [Snapshot]) throws -> Int {
        let request = FetchRequest(
            entityName: "Person", predicate: try ObjectPredicate(format: "name MATCHES %@", pattern), resultType: .count
        )
        try PredicateValidator.validate(request, in: model)
        return try QueryEvaluation.run(
            request, over: snapshots, evaluator: PredicateEvaluator(model: model) { _ in nil }
        ).count()
    }

    @Test func aPatternLongerThanTheLimitIsRefusedNamingTheLimitAndTheLength() throws {
        let pattern = String(repeating: "(a|b)?", count: 10_000)
        let error = #expect(throws: StrataError.self) { _ = try Self.matching(pattern, over: Self.people(10_000)) }
        #expect(error?.code == .invalidPredicate)
        #expect(error?.location["limit"] == String(StringMatching.maximumPatternLength))
        #expect(error?.location["length"] == "60000")
        #expect(error?.location["entity"] == "Person")
        #expect(error?.message.contains("60000") == true)
        #expect((error?.location["pattern"]?.count ?? .max) <= 101)

        let direct = #expect(throws: StrataError.self) { _ = try StringMatching.matches("ab", pattern) }
        #expect(direct?.code == .invalidPredicate)
    }

    @Test func aPatternAtTheLimitRunsOverTenThousandObjects() throws {
        let groups = StringMatching.maximumPatternLength / 6
        let pattern =
            String(repeating: "(a|b)?", count: groups)
            + String(repeating: "x?", count: (StringMatching.maximumPatternLength - groups * 6) / 2)
        #expect(pattern.unicodeScalars.count == StringMatching.maximumPatternLength)
        let people = Self.people(10_000)
        let expected = people.filter { snapshot in
            guard case .string(let name) = snapshot.attributes[0] else { return false }
            return name.count <= groups && name.allSatisfy { $0 == "a" || $0 == "b" }
        }.count
        #expect(expected > 0)
        #expect(try Self.matching(pattern, over: people) == expected)
    }

    @Test func catastrophicBacktrackingIsATypedErrorNotAHang() throws {
        let almost = String(repeating: "a", count: 30) + "!"
        let error = #expect(throws: StrataError.self) { _ = try StringMatching.matches(almost, "(a+)+$") }
        #expect(error?.code == .invalidPredicate)
        #expect(error?.location["pattern"] == "(a+)+$")
        #expect(error?.location["length"] == "31")
        #expect(error?.message.contains("backtracks") == true)
        // A simple pattern over a long string stays well within the work its length allows.
        #expect(try StringMatching.matches(String(repeating: "ab", count: 100_000) + "c", "(a|b)*c"))
        #expect(try !StringMatching.matches(String(repeating: "a", count: 30) + "!", "a+"))
    }

    @Test func aPredicateNestedTooDeepInCodeIsATypedError() throws {
        var predicate = ObjectPredicate.comparison(.init(.keyPath("name"), .matches, .constant("a.*")))
        for _ in 0..<10_000 { predicate = .not(predicate) }
        let request = FetchRequest(entityName: "Person", predicate: predicate)
        let validation = #expect(throws: StrataError.self) { try PredicateValidator.validate(request, in: Self.model) }
        #expect(validation?.code == .invalidPredicate)
        #expect(validation?.location["limit"] == String(ObjectPredicate.maximumDepth))
        let evaluation = #expect(throws: StrataError.self) {
            _ = try QueryEvaluation.run(
                request, over: Self.people(3), evaluator: PredicateEvaluator(model: Self.model) { _ in nil })
        }
        #expect(evaluation?.code == .invalidPredicate)
    }

    @Test func theDepthLimitAdmitsEveryParsedPredicate() throws {
        var deepest: ObjectPredicate?
        for count in stride(from: 200, through: 1, by: -1) {
            if let parsed = try? ObjectPredicate(format: String(repeating: "NOT ", count: count) + "name IN {{{'a'}}}")
            {
                deepest = parsed
                break
            }
        }
        let predicate = try #require(deepest)
        try PredicateValidator.validate(FetchRequest(entityName: "Person", predicate: predicate), in: Self.model)
    }
}
