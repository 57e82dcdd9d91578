import Foundation
import Testing

@testable import StrataCore

/// Parsed and built predicates have the shapes the evaluator expects.
@Suite("Parsed predicates evaluate")
struct PredicateParserEvaluationTests {
    static let model = try! Model(entities: [
        Entity(
            "Person",
            attributes: [Attribute("name", .string, isOptional: true), Attribute("age", .integer32, isOptional: true)],
            relationships: [Relationship("team", to: "Team", inverse: "members")]),
        Entity(
            "Team", attributes: [Attribute("title", .string)],
            relationships: [Relationship("members", to: "Person", inverse: "team", toMany: true)]),
    ])
    static let team = ObjectID(entityName: "Team", storeIdentifier: "s", primaryKey: 1)
    static let ada = ObjectID(entityName: "Person", storeIdentifier: "s", primaryKey: 1)
    static let bob = ObjectID(entityName: "Person", storeIdentifier: "s", primaryKey: 2)

    static let snapshots: [ObjectID: Snapshot] = [
        team: Snapshot(objectID: team, version: 1, attributes: ["Red"], relationships: [.toMany([ada, bob])]),
        ada: Snapshot(objectID: ada, version: 1, attributes: ["Ada", 36], relationships: [.toOne(team)]),
        bob: Snapshot(objectID: bob, version: 1, attributes: [nil, 17], relationships: [.toOne(team)]),
    ]

    var evaluator: PredicateEvaluator { PredicateEvaluator(model: Self.model) { Self.snapshots[$0] } }

    func matches(_ format: String, _ arguments: any PredicateArgument...) throws -> [ObjectID] {
        let predicate = try ObjectPredicate(format: format, argumentArray: arguments)
        return try [Self.ada, Self.bob].filter { try evaluator.evaluate(predicate, on: Self.snapshots[$0]!) }
    }

    @Test func comparisonsOptionsAndNulls() throws {
        #expect(try matches("name BEGINSWITH[c] 'a'") == [Self.ada])
        #expect(try matches("name == nil") == [Self.bob])
        #expect(try matches("age BETWEEN {18, 40}") == [Self.ada])
        #expect(try matches("age IN %@", [17, 99]) == [Self.bob])
        #expect(try matches("NOT age < 18 AND name LIKE[c] 'a?a'") == [Self.ada])
        #expect(try matches("%K > %d OR name MATCHES %@", "age", 30, "B.*") == [Self.ada])
    }

    @Test func keyPathsCountsObjectsAndModifiers() throws {
        #expect(try matches("team.title == 'Red' AND team.members.@count == 2") == [Self.ada, Self.bob])
        #expect(try matches("SELF == %@", Self.bob) == [Self.bob])
        #expect(try matches("SELF IN %@", [Self.ada]) == [Self.ada])
        #expect(try matches("ANY team.members.age < 18") == [Self.ada, Self.bob])
        #expect(try matches("ALL team.members.age < 18") == [])
        #expect(try matches("team.members CONTAINS %@", Self.ada) == [Self.ada, Self.bob])
    }

    @Test func builtPredicatesEvaluateAsParsedOnes() throws {
        let built: ObjectPredicate = .key("name").beginsWith("a", .caseInsensitive) || .key("age").between(10, 20)
        let parsed = try ObjectPredicate(format: "name BEGINSWITH[c] 'a' OR age BETWEEN {10, 20}")
        #expect(built == parsed)
        for id in [Self.ada, Self.bob] {
            #expect(
                try evaluator.evaluate(built, on: Self.snapshots[id]!)
                    == evaluator.evaluate(parsed, on: Self.snapshots[id]!))
        }
    }
}
