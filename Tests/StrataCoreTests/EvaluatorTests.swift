import Foundation
import StrataCore
import Testing

/// The reference semantics, pinned on small hand-made snapshots.
@Suite struct EvaluatorTests {
    static let model = try! Model(entities: [
        Entity(
            "Person",
            attributes: [
                Attribute("name", .string, isOptional: true), Attribute("age", .integer32, isOptional: true),
                Attribute("score", .double, isOptional: true), Attribute("tag", .binary, isOptional: true),
            ],
            relationships: [Relationship("team", to: "Team", inverse: "members")]),
        Entity(
            "Team", attributes: [Attribute("title", .string)],
            relationships: [Relationship("members", to: "Person", inverse: "team", toMany: true)]),
    ])
    static let team = ObjectID(entityName: "Team", storeIdentifier: "s", primaryKey: 1)

    func person(_ name: Value, age: Value = nil, score: Value = nil, team: ObjectID? = nil, key: Int64 = 1) -> Snapshot
    {
        Snapshot(
            objectID: ObjectID(entityName: "Person", storeIdentifier: "s", primaryKey: key), version: 1,
            attributes: [name, age, score, nil], relationships: [.toOne(team)])
    }

    var evaluator: PredicateEvaluator {
        PredicateEvaluator(model: Self.model) { id in
            id == Self.team
                ? Snapshot(objectID: Self.team, version: 1, attributes: ["Red"], relationships: [.toMany([])]) : nil
        }
    }

    func holds(
        _ lhs: String, _ op: ObjectPredicate.Operator, _ rhs: Value, _ options: ObjectPredicate.Options = [],
        on snapshot: Snapshot
    ) throws -> Bool {
        try evaluator.evaluate(
            .comparison(.init(.keyPath(PropertyPath(lhs)), op, .constant(rhs), options: options)), on: snapshot)
    }

    @Test func nullComparisons() throws {
        let nobody = person(nil)
        #expect(try holds("name", .equal, nil, on: nobody))
        #expect(try holds("name", .notEqual, "x", on: nobody))
        #expect(try !holds("name", .less, "x", on: nobody))
        #expect(try !holds("name", .beginsWith, "", on: nobody))
        #expect(try !holds("age", .greaterOrEqual, 0, on: nobody))
    }

    @Test func numbersCompareAcrossKinds() throws {
        let p = person("a", age: 30, score: 2.5)
        #expect(try holds("age", .equal, 30.0, on: p))
        #expect(try holds("age", .less, 30.5, on: p))
        #expect(try holds("score", .greater, 2, on: p))
        #expect(try holds("score", .equal, .decimal(Decimal(string: "2.5")!), on: p))
        #expect(try !holds("score", .equal, .double(.nan), on: person("a", score: .double(.nan))))
    }

    @Test func stringOptionsFoldCaseAndDiacritics() throws {
        #expect(try holds("name", .equal, "straße", .caseInsensitive, on: person("STRASSE")))
        #expect(try holds("name", .equal, "иван", .caseInsensitive, on: person("ИВАН")))
        #expect(try holds("name", .equal, "cafe", .diacriticInsensitive, on: person("café")))
        #expect(try holds("name", .equal, "cafe", .diacriticInsensitive, on: person("cafe\u{301}")))
        #expect(try !holds("name", .equal, "café", on: person("cafe\u{301}")))
        #expect(try holds("name", .beginsWith, "ÉCO", [.caseInsensitive, .diacriticInsensitive], on: person("école")))
    }

    @Test func likeAndMatches() throws {
        #expect(try holds("name", .like, "a*c?", on: person("abbcd")))
        #expect(try !holds("name", .like, "a*c?", on: person("abbc")))
        #expect(try holds("name", .like, "a\\*", on: person("a*")))
        #expect(try !holds("name", .like, "a\\*", on: person("ab")))
        #expect(try holds("name", .like, "张*", on: person("张伟")))
        #expect(try holds("name", .matches, "[0-9]+", on: person("123")))
        #expect(try !holds("name", .matches, "[0-9]+", on: person("123a")))
        #expect(throws: StrataError.self) { _ = try holds("name", .matches, "(", on: person("x")) }
    }

    @Test func keyPathThroughNilToOneIsNull() throws {
        #expect(try holds("team.title", .equal, nil, on: person("a")))
        #expect(try holds("team.title", .equal, "Red", on: person("a", team: Self.team)))
    }

    @Test func unknownKeyNamesEntityAndKey() {
        let error = #expect(throws: StrataError.self) { _ = try holds("salary", .equal, 1, on: person("a")) }
        #expect(error?.code == .unknownKey)
        #expect(error?.location["key"] == "salary")
    }

    @Test func validatorRejectsTypeErrorsBeforeAnyStore() {
        let person = Self.model.entity(named: "Person")!
        let cases: [(ObjectPredicate, StrataError.Code)] = [
            (.comparison(.init(.keyPath("name"), .greater, .constant(5))), .invalidPredicate),
            (.comparison(.init(.keyPath("age"), .beginsWith, .constant("1"))), .invalidPredicate),
            (.comparison(.init(.keyPath("tag"), .less, .constant(.binary(Data())))), .invalidPredicate),
            (.comparison(.init(.keyPath("team.members"), .equal, .constant(nil))), .invalidPredicate),
            (.comparison(.init(.keyPath("name"), .equal, .constant("x"), modifier: .any)), .invalidPredicate),
            (.comparison(.init(.count("team"), .equal, .constant(1))), .invalidPredicate),
            (
                .comparison(
                    .init(
                        .keyPath("team"), .equal,
                        .objectID(ObjectID(entityName: "Person", storeIdentifier: "s", primaryKey: 1)))),
                .invalidPredicate
            ),
            (.comparison(.init(.keyPath("team.nope"), .equal, .constant(1))), .unknownKey),
            (.comparison(.init(.keyPath("name.length"), .equal, .constant(1))), .unknownKey),
            (.comparison(.init(.keyPath("age"), .between, .list([.constant(1)]))), .invalidPredicate),
            (.comparison(.init(.keyPath("name"), .matches, .constant("["))), .invalidPredicate),
        ]
        for (predicate, code) in cases {
            let error = #expect(throws: StrataError.self, "\(predicate)") {
                try PredicateValidator.validate(predicate, for: person, in: Self.model)
            }
            #expect(error?.code == code, "\(predicate): \(error?.description ?? "")")
            #expect(error?.location["entity"] != nil)
        }
    }

    @Test func sortOrderPutsNullFirstAndBreaksTiesByKey() throws {
        let items = [person("b", key: 3), person(nil, key: 2), person("a", key: 5), person("b", key: 1)]
        let sorted = try evaluator.sorted(items, by: [Sort("name")])
        #expect(sorted.map { $0.objectID.primaryKey! } == [2, 5, 1, 3])
        let descending = try evaluator.sorted(items, by: [Sort("name", ascending: false)])
        #expect(descending.map { $0.objectID.primaryKey! } == [1, 3, 5, 2])
    }

    @Test func jsonNodeRejectsMalformedInput() throws {
        for text in [
            "", "{", "[1,]", "{\"a\":1,}", "01", "1.", "\"\\x\"", "\"\u{1}\"", "{\"a\" 1}", "tru", "[1] 2",
            "{\"a\":1,\"a\":2}", "\"\\ud800\"",
        ] {
            #expect(throws: JSONSyntaxError.self, "\(text)") { _ = try JSONNode.parse(Data(text.utf8)) }
        }
        #expect(
            try JSONNode.parse(Data(#"{"a":[1,2.5,"\u00e9\ud83d\ude00",true,null]}"#.utf8)).compactText()
                == #"{"a":[1,2.5,"é😀",true,null]}"#)
    }
}
