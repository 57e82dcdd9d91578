import Foundation
import StrataCore
import Testing

@testable import StrataSQLite

/// Predicates that are long, wide or deep give the SQLite store the in-memory evaluator's answer.
///
/// Before, an `OR` of 1,000 comparisons failed with `internalInconsistency` ("Expression tree is
/// too large"), as did 50 nested `NOT`s or nested `ANY` through seven to-many steps ("parser stack
/// overflow"): SQLite's limits on expression depth and parser nesting were reached by SQL the
/// store chose to run natively.
@Suite struct PredicateDepthTests {
    static let rowCount = 60

    /// A store with `rowCount` employees named `a0`, `a1`, ... aged 0, 1, ..., and a chain of
    /// people who are each other's friends.
    static func seeded() throws -> SQLiteStore {
        let model = try testModel()
        let store = try openStore(temporaryStoreURL(), model: model)
        let employees = try store.obtainPermanentIDs(for: "Employee", count: rowCount)
        var inserts = employees.enumerated().map { i, id in
            makeSnapshot(
                id, in: model, ["name": .string("a\(i)"), "age": .integer(Int64(i)), "big": .integer(Int64(i))])
        }
        let people = try store.obtainPermanentIDs(for: "Person", count: 12)
        for (i, id) in people.enumerated() {
            let friends = [i - 1, i + 1].filter { people.indices.contains($0) }.map { people[$0] }
            inserts.append(
                makeSnapshot(id, in: model, ["name": .string("p\(i)")], relationships: ["friends": .toMany(friends)]))
        }
        try store.save(SaveRequest(inserts: inserts))
        return store
    }

    /// The IDs the engine's fetch returns (native when the store says so), next to the reference
    /// evaluator's over the same data.
    static func answers(_ store: SQLiteStore, _ predicate: ObjectPredicate, entity: String = "Employee") throws -> (
        engine: [ObjectID], reference: [ObjectID], native: Bool
    ) {
        let request = FetchRequest(entityName: entity, predicate: predicate, resultType: .objectIDs)
        return (
            try store.fetch(request).objectIDs(), try store.fetchInMemory(request).objectIDs(),
            store.nativeEvaluationDeclineReason(request) == nil
        )
    }

    @Test(arguments: [1_000, 5_000, 20_000])
    func longOrOfEqualitiesIsAnsweredNatively(terms: Int) throws {
        let store = try Self.seeded()
        let format = (0..<terms).map { "name == \"a\($0 * 3)\"" }.joined(separator: " OR ")
        let predicate = try ObjectPredicate(format: format)
        let request = FetchRequest(entityName: "Employee", predicate: predicate, resultType: .objectIDs)
        #expect(
            store.nativeEvaluationDeclineReason(request) == nil, "\(store.nativeEvaluationDeclineReason(request) ?? "")"
        )
        let (engine, reference, _) = try Self.answers(store, predicate)
        #expect(engine == reference)
        #expect(engine.count == (Self.rowCount + 2) / 3)
    }

    @Test(arguments: [1_000, 5_000, 20_000])
    func longOrOfMixedComparisonsMatchesTheEvaluator(terms: Int) throws {
        let store = try Self.seeded()
        let format = (0..<terms).map { i in
            switch i % 3 {
            case 0: return "name BEGINSWITH \"a1\(i)\""
            case 1: return "age == \(i)"
            default: return "(age > \(i) AND name ENDSWITH \"7\")"
            }
        }.joined(separator: " OR ")
        let (engine, reference, native) = try Self.answers(store, try ObjectPredicate(format: format))
        #expect(engine == reference)
        #expect(!engine.isEmpty)
        #expect(native)
    }

    @Test(arguments: [1_000, 5_000, 20_000])
    func longAndMatchesTheEvaluator(terms: Int) throws {
        let store = try Self.seeded()
        let format = (0..<terms).map { i in i % 2 == 0 ? "name != \"a\(i / 2 * 3)\"" : "NOT (age == \(i / 2 * 5 + 1))" }
            .joined(separator: " AND ")
        let (engine, reference, native) = try Self.answers(store, try ObjectPredicate(format: format))
        #expect(engine == reference)
        #expect(engine.count < Self.rowCount && !engine.isEmpty)
        #expect(native)
    }

    @Test(arguments: [60, 61, 125])
    func nestedNotsMatchTheEvaluator(count: Int) throws {
        let store = try Self.seeded()
        let format = String(repeating: "NOT ", count: count) + "(name BEGINSWITH \"a1\")"
        let (engine, reference, native) = try Self.answers(store, try ObjectPredicate(format: format))
        #expect(engine == reference)
        #expect(engine.count == (count % 2 == 0 ? 11 : Self.rowCount - 11))
        #expect(native)
    }

    @Test(arguments: [20, 40, 60])
    func deeplyNestedParenthesesMatchTheEvaluator(depth: Int) throws {
        let store = try Self.seeded()
        var format = "age == 0"
        for level in 1...depth {
            format = level % 2 == 0 ? "(age == \(level) OR (\(format)))" : "(name != \"a\(level)\" AND (\(format)))"
        }
        let (engine, reference, _) = try Self.answers(store, try ObjectPredicate(format: format))
        #expect(engine == reference)
    }

    @Test func anyThroughManyToManyStepsMatchesTheEvaluator() throws {
        let store = try Self.seeded()
        for steps in [1, 3, 7, 10] {
            let path = Array(repeating: "friends", count: steps).joined(separator: ".")
            let (engine, reference, _) = try Self.answers(
                store, try ObjectPredicate(format: "ANY \(path).name == \"p11\""), entity: "Person")
            #expect(engine == reference, "\(steps) steps")
            #expect(!engine.isEmpty)
        }
    }

    @Test func moreValuesThanSQLiteBindsFallBackToTheEvaluator() throws {
        let store = try Self.seeded()
        let limit = try SQLiteLimits.current().variables
        let names = (0...limit).map { "a\($0 * 7)" }
        // `age < 30` first, so that the evaluator walks the long list for 30 rows only.
        let predicate = try ObjectPredicate(format: "age < 30 AND name IN %@", names)
        let request = FetchRequest(entityName: "Employee", predicate: predicate, resultType: .objectIDs)
        #expect(store.nativeEvaluationDeclineReason(request) != nil)
        let (engine, reference, _) = try Self.answers(store, predicate)
        #expect(engine == reference)
        #expect(engine.count == 5)
    }

    @Test func parenthesesBeyondTheParserLimitAreASyntaxError() {
        for depth in [129, 10_000, 100_000] {
            let format = String(repeating: "(", count: depth) + "name == \"a1\"" + String(repeating: ")", count: depth)
            #expect(throws: StrataError.self) { try ObjectPredicate(format: format) }
            do {
                _ = try ObjectPredicate(format: format)
            } catch let error as StrataError {
                #expect(error.code == .predicateSyntax)
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
    }

    @Test func aPredicateBuiltTooDeepInCodeIsRefusedOnEveryPath() throws {
        let store = try Self.seeded()
        var predicate = ObjectPredicate.comparison(.init(.keyPath("name"), .equal, .constant("a1")))
        for _ in 0..<10_000 { predicate = .not(predicate) }
        let request = FetchRequest(entityName: "Employee", predicate: predicate, resultType: .objectIDs)
        #expect(store.nativeEvaluationDeclineReason(request) != nil)
        let attempts: [() throws -> FetchResult] = [{ try store.fetch(request) }, { try store.fetchInMemory(request) }]
        for attempt in attempts {
            do {
                _ = try attempt()
                Issue.record("a predicate 10,001 levels deep was accepted")
            } catch let error as StrataError {
                #expect(error.code == .invalidPredicate || error.code == .unsupported, "\(error)")
            }
        }
    }

    @Test func theDeepestPredicateTheParserAcceptsPassesValidation() throws {
        let store = try Self.seeded()
        var deepest: ObjectPredicate?
        for count in stride(from: 200, through: 1, by: -1) {
            if let parsed = try? ObjectPredicate(
                format: String(repeating: "NOT ", count: count) + "name IN {{{\"a1\"}}}")
            {
                deepest = parsed
                break
            }
        }
        let predicate = try #require(deepest)
        let (engine, reference, _) = try Self.answers(store, predicate)
        #expect(engine == reference)
    }
}
