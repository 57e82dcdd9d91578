import Foundation
import StrataCore
import Testing

/// `key IN {...}` over a list of constants is answered from a hash set built once per fetch: the
/// same answers as comparing with every element, and work per object that does not grow with the
/// length of the list.
@Suite struct InMembershipTests {
    static let model = try! Model(entities: [
        Entity(
            "Thing",
            attributes: [Attribute("n", .double, isOptional: true), Attribute("s", .string, isOptional: true)])
    ])

    /// A small deterministic generator, so a failure names the same lists every run.
    struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
    }

    static let words = ["ana", "ANA", "Ána", "e\u{301}t\u{E9}", "\u{E9}t\u{E9}", "ÉTÉ", "zoe", "Zoë", "", "ß", "SS"]

    static func number(_ g: inout Generator) -> Value {
        switch g.next(6) {
        case 0: return .null
        case 1: return .double(Double(g.next(20)))
        case 2: return .double(Double(g.next(20)) + 0.5)
        case 3: return .float(Float(g.next(20)))
        case 4: return .double(.nan)
        default: return .integer(Int64(g.next(20)))
        }
    }

    static func string(_ g: inout Generator) -> Value {
        g.next(8) == 0 ? .null : .string(words[g.next(words.count)])
    }

    static func things(_ g: inout Generator, _ count: Int) -> [Snapshot] {
        (0..<count).map { i in
            Snapshot(
                objectID: ObjectID(entityName: "Thing", storeIdentifier: "s", primaryKey: Int64(i + 1)), version: 1,
                attributes: [number(&g), string(&g)], relationships: [])
        }
    }

    static func evaluator() -> PredicateEvaluator { PredicateEvaluator(model: model) { _ in nil } }

    /// The reference answer: `value` equals some element of `list`.
    static func linear(_ value: Value, _ list: [Value], _ options: ObjectPredicate.Options) -> Bool {
        list.contains { ValueComparison.equal(value, $0, options: options) }
    }

    @Test func answersEqualComparingWithEveryElementForRandomLists() throws {
        var g = Generator(state: 20_261_126)
        let things = Self.things(&g, 300)
        let optionChoices: [ObjectPredicate.Options] = [
            [], [.caseInsensitive], [.diacriticInsensitive], [.caseInsensitive, .diacriticInsensitive],
        ]
        for round in 0..<40 {
            let attribute = round % 2 == 0 ? 0 : 1
            let list = (0..<g.next(12)).map { _ in attribute == 0 ? Self.number(&g) : Self.string(&g) }
            let options = optionChoices[g.next(optionChoices.count)]
            let predicate = ObjectPredicate.comparison(
                .init(.keyPath(attribute == 0 ? "n" : "s"), .in, .list(list.map { .constant($0) }), options: options))
            let evaluator = Self.evaluator()
            for thing in things {
                let expected = Self.linear(thing.attributes[attribute], list, options)
                #expect(try evaluator.evaluate(predicate, on: thing) == expected, "\(thing.attributes) IN \(list)")
                #expect(try evaluator.evaluate(.not(predicate), on: thing) == !expected)
            }
            #expect(evaluator.membershipSetBuilds == 1)
        }
    }

    @Test func integersAndDoublesMatchAcrossKindsAndNullMatchesOnlyNull() throws {
        let evaluator = Self.evaluator()
        func member(_ value: Value, _ list: [Value], _ options: ObjectPredicate.Options = []) throws -> Bool {
            let thing = Snapshot(
                objectID: ObjectID(entityName: "Thing", storeIdentifier: "s", primaryKey: 1), version: 1,
                attributes: [value, .null], relationships: [])
            return try evaluator.evaluate(
                .comparison(.init(.keyPath("n"), .in, .list(list.map { .constant($0) }), options: options)), on: thing)
        }
        #expect(try member(.integer(1), [.double(1.0)]))
        #expect(try member(.double(1.0), [.integer(1)]))
        #expect(try member(.float(2), [.integer(2), .string("x")]))
        #expect(try !member(.double(1.5), [.integer(1), .integer(2)]))
        #expect(try member(.null, [.integer(1), .null]))
        #expect(try !member(.null, [.integer(1), .double(.nan)]))
        #expect(try !member(.double(.nan), [.double(.nan)]))
        #expect(try !member(.integer(1), []))
        // 2^53 + 1 equals 2^53 as a double, but not as an integer.
        #expect(try member(.integer(9_007_199_254_740_993), [.double(9_007_199_254_740_992)]))
        #expect(try !member(.integer(9_007_199_254_740_993), [.integer(9_007_199_254_740_992)]))
    }

    @Test func workPerObjectDoesNotGrowWithTheListLength() throws {
        var g = Generator(state: 7)
        let things = Self.things(&g, 200)
        var lookupsPerObject: [Int] = []
        for length in [10, 10_000] {
            let list = (0..<length).map { ObjectPredicate.Operand.constant(.integer(Int64($0 * 3))) }
            let predicate = ObjectPredicate.comparison(.init(.keyPath("n"), .in, .list(list)))
            let evaluator = Self.evaluator()
            for thing in things { _ = try evaluator.evaluate(predicate, on: thing) }
            #expect(evaluator.membershipSetBuilds == 1)
            lookupsPerObject.append(evaluator.membershipLookups / things.count)
        }
        #expect(lookupsPerObject == [1, 1])
    }

    @Test func aListWithAKeyPathIsComparedElementByElement() throws {
        let evaluator = Self.evaluator()
        let thing = Snapshot(
            objectID: ObjectID(entityName: "Thing", storeIdentifier: "s", primaryKey: 1), version: 1,
            attributes: [.integer(4), .string("a")], relationships: [])
        let predicate = ObjectPredicate.comparison(
            .init(.keyPath("n"), .in, .list([.constant(.integer(1)), .keyPath("n")])))
        #expect(try evaluator.evaluate(predicate, on: thing))
        #expect(evaluator.membershipSetBuilds == 0)
        let objects = ObjectPredicate.comparison(.init(.evaluatedObject, .in, .list([.constant(.integer(1))])))
        #expect(throws: StrataError.self) { try evaluator.evaluate(objects, on: thing) }
    }

    static let graph = try! Model(entities: [
        Entity(
            "Node", attributes: [Attribute("n", .integer64, isOptional: true)],
            relationships: [
                Relationship("owner", to: "Node", inverse: "owned"),
                Relationship("owned", to: "Node", inverse: "owner", toMany: true),
            ])
    ])

    /// `count` nodes (keys 1 to `count`), each owned by a random node or by none.
    static func nodes(_ g: inout Generator, _ count: Int) -> [Snapshot] {
        let ids = (1...count).map { ObjectID(entityName: "Node", storeIdentifier: "s", primaryKey: Int64($0)) }
        return ids.map { id in
            let owner = g.next(4) == 0 ? nil : ids[g.next(count)]
            return Snapshot(
                objectID: id, version: 1, attributes: [g.next(5) == 0 ? .null : .integer(Int64(g.next(9)))],
                relationships: [.toOne(owner), .toMany([])])
        }
    }

    /// `SELF IN {...}` and `owner IN {...}` over object IDs (and `NULL`) are answered from a set
    /// of the objects: what comparing with every element answers (an object matches an equal
    /// object, `NULL` only `NULL`), built once, with work per object that does not grow with the
    /// list. A value against a list of objects stays an error, as element by element.
    @Test func listsOfObjectsAreAnsweredFromASetOfTheObjects() throws {
        var g = Generator(state: 11)
        let nodes = Self.nodes(&g, 300)
        for round in 0..<30 {
            let members = Set((0..<g.next(40)).map { _ in nodes[g.next(nodes.count)].objectID })
            let withNull = round % 3 == 0
            let list = members.map { ObjectPredicate.Operand.objectID($0) } + (withNull ? [.constant(.null)] : [])
            let evaluator = PredicateEvaluator(model: Self.graph) { _ in nil }
            for node in nodes {
                let isSelf = ObjectPredicate.comparison(.init(.evaluatedObject, .in, .list(list)))
                #expect(try evaluator.evaluate(isSelf, on: node) == members.contains(node.objectID))
                let owner = node.relationships[0].targets.first
                let byOwner = ObjectPredicate.comparison(.init(.keyPath("owner"), .in, .list(list)))
                #expect(try evaluator.evaluate(byOwner, on: node) == (owner.map(members.contains) ?? withNull))
            }
            #expect(evaluator.membershipSetBuilds == 1, "one set per list and fetch, shared by both predicates")
        }
        var lookupsPerObject: [Int] = []
        for length in [10, 10_000] {
            let list = (1...length).map {
                ObjectPredicate.Operand.objectID(
                    ObjectID(entityName: "Node", storeIdentifier: "s", primaryKey: Int64($0)))
            }
            let evaluator = PredicateEvaluator(model: Self.graph) { _ in nil }
            for node in nodes {
                _ = try evaluator.evaluate(
                    ObjectPredicate.comparison(.init(.evaluatedObject, .in, .list(list))), on: node)
            }
            #expect(evaluator.membershipSetBuilds == 1)
            lookupsPerObject.append(evaluator.membershipLookups / nodes.count)
        }
        #expect(lookupsPerObject == [1, 1])
        let valued = try #require(nodes.first { !$0.attributes[0].isNull })
        let evaluator = PredicateEvaluator(model: Self.graph) { _ in nil }
        let valueInObjects = ObjectPredicate.comparison(
            .init(.keyPath("n"), .in, .list([.objectID(nodes[0].objectID), .constant(.null)])))
        #expect(throws: StrataError.self) { try evaluator.evaluate(valueInObjects, on: valued) }
    }
}
