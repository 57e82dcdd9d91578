import Foundation
import Synchronization
import Testing

@testable import StrataCore

/// A request shape keeps what the model check reads (entity, structure, key paths, operators,
/// the kinds of constants) and drops the constants' values; the cache built on it checks each
/// shape against the model once and everything else on every call.
@Suite struct FetchRequestValidationShapeTests {
    static let model = try! Model(
        versionIdentifier: "shape",
        entities: [
            Entity("Note", attributes: [Attribute("text", .string), Attribute("rank", .integer64)]),
            Entity("Tag", attributes: [Attribute("text", .string), Attribute("rank", .integer64)]),
        ])

    static func shape(_ predicate: ObjectPredicate?, of entity: String = "Note") -> FetchRequestValidationShape? {
        FetchRequestValidationShape(FetchRequest(entityName: entity, predicate: predicate))
    }

    @Test func requestsDifferingOnlyInConstantsShareAShape() throws {
        #expect(Self.shape(.key("rank") == 1) == Self.shape(.key("rank") == 99))
        #expect(Self.shape(.key("text") == "a") == Self.shape(.key("text") == "a much longer string"))
        let parsed = try ObjectPredicate(format: "rank BETWEEN {1, 5} AND text IN {'a', 'b'}")
        #expect(
            Self.shape(parsed) == Self.shape(try ObjectPredicate(format: "rank BETWEEN {7, 9} AND text IN {'x', 'y'}")))
        #expect(Self.shape(nil) == Self.shape(nil))
    }

    @Test func whatTheCheckReadsMakesAnotherShape() throws {
        let base = Self.shape(.key("rank") == 1)
        #expect(base != nil)
        #expect(base != Self.shape(.key("rank") == 1, of: "Tag"), "another entity")
        #expect(base != Self.shape(.key("text") == 1), "another key path")
        #expect(base != Self.shape(.key("rank") == "1"), "another kind of constant")
        #expect(base != Self.shape(.key("rank") == nil), "nil")
        #expect(base != Self.shape(.key("rank") == 1.5), "a double")
        #expect(base != Self.shape(.key("rank") != 1), "another operator")
        #expect(base != Self.shape(.any("rank") == 1), "a modifier")
        #expect(base != Self.shape(.key("rank").equals(1, .caseInsensitive)), "options")
        #expect(base != Self.shape(.key("rank.count") == 1), "a longer path")
        #expect(base != Self.shape(!(.key("rank") == 1)), "a NOT")
        #expect(
            Self.shape(try ObjectPredicate(format: "rank IN {1, 2}"))
                != Self.shape(try ObjectPredicate(format: "rank IN {1, 2, 3}")), "list lengths")
        #expect(
            Self.shape(.key("rank") == 1 && .key("text") == "a")
                != Self.shape(.key("text") == "a" && .key("rank") == 1),
            "order")
        var sorted = FetchRequest(entityName: "Note", predicate: .key("rank") == 1)
        sorted.sorts = [Sort("text")]
        #expect(base != FetchRequestValidationShape(sorted), "sorts")
        var dictionaries = FetchRequest(entityName: "Note", predicate: .key("rank") == 1)
        dictionaries.propertiesToFetch = ["text"]
        #expect(base != FetchRequestValidationShape(dictionaries), "properties to fetch")
    }

    @Test func aPatternOrALongListHasNoShape() throws {
        #expect(Self.shape(try ObjectPredicate(format: "text MATCHES 'a.*'")) == nil)
        let many = Array(Int64(0)..<Int64(FetchRequestValidationShape.maximumTokens))
        #expect(Self.shape(.key("rank").in(many)) == nil)
        #expect(Self.shape(.key("rank").in(Array(many.prefix(3)))) != nil)
    }

    /// How many requests `PredicateValidator.validate` checked while `body` ran (in this task).
    private func validations(_ body: () throws -> Void) rethrows -> Int {
        let counter = Atomic<Int>(0)
        PredicateValidator.observers.add(1, ordering: .relaxed)
        defer { PredicateValidator.observers.subtract(1, ordering: .relaxed) }
        return try withExtendedLifetime(counter) {
            let count: @Sendable (FetchRequest) -> Void = { _ in counter.add(1, ordering: .relaxed) }
            try PredicateValidator.$requestObserver.withValue(count) { try body() }
            return counter.load(ordering: .relaxed)
        }
    }

    @Test func aRepeatedShapeIsCheckedAgainstTheModelOnce() throws {
        let cache = FetchRequestValidationCache(model: Self.model)
        let checks = try validations {
            for rank in Int64(0)..<100 {
                let checked = try cache.validated(FetchRequest(entityName: "Note", predicate: .key("rank") == rank))
                #expect(checked.isValidated(for: Self.model))
                let expected: ObjectPredicate = .key("rank") == rank
                #expect(checked.predicate == expected)
            }
        }
        #expect(checks == 1)
        #expect(cache.count == 1)
        #expect(
            try validations { _ = try cache.validated(FetchRequest(entityName: "Tag", predicate: .key("rank") == 1)) }
                == 1)
        #expect(cache.count == 2)
    }

    @Test func aFailingRequestIsNeverRemembered() throws {
        let cache = FetchRequestValidationCache(model: Self.model)
        let checks = validations {
            for _ in 0..<3 {
                let error = #expect(throws: StrataError.self) {
                    try cache.validated(FetchRequest(entityName: "Note", predicate: .key("rank") == "high"))
                }
                #expect(error?.code == .invalidPredicate)
            }
        }
        #expect(checks == 3)
        #expect(cache.count == 0)
    }

    @Test func valuesOutsideTheShapeAreCheckedOnEveryCall() throws {
        let cache = FetchRequestValidationCache(model: Self.model)
        _ = try cache.validated(FetchRequest(entityName: "Note", predicate: .key("rank") == 1, limit: 1))
        let negative = #expect(throws: StrataError.self) {
            try cache.validated(FetchRequest(entityName: "Note", predicate: .key("rank") == 2, limit: -1))
        }
        #expect(negative?.code == .invalidRequest)
        let temporary = ObjectID.temporary(entityName: "Note")
        let named = #expect(throws: StrataError.self) {
            try cache.validated(FetchRequest(entityName: "Note", predicate: .key("rank") == 2, objectIDs: [temporary]))
        }
        #expect(named?.code == .invalidObjectID)
    }

    @Test func aCacheChecksAgainstItsOwnModelOnly() throws {
        let other = try Model(
            versionIdentifier: "other", entities: [Entity("Note", attributes: [Attribute("rank", .string)])])
        let cache = FetchRequestValidationCache(model: Self.model)
        let otherCache = FetchRequestValidationCache(model: other)
        let request = FetchRequest(entityName: "Note", predicate: .key("rank") == 1)
        _ = try cache.validated(request)
        let error = #expect(throws: StrataError.self) { try otherCache.validated(request) }
        #expect(error?.code == .invalidPredicate)
        let checkedHere = try cache.validated(request)
        #expect(!checkedHere.isValidated(for: other))
        #expect(throws: StrataError.self) { try otherCache.validated(checkedHere) }
    }

    @Test func aFullCacheStartsOver() throws {
        let cache = FetchRequestValidationCache(model: Self.model)
        for length in 1...FetchRequestValidationCache.capacity + 1 {
            let properties = Array(repeating: PropertyPath("rank"), count: length)
            _ = try cache.validated(
                FetchRequest(entityName: "Note", resultType: .dictionaries, propertiesToFetch: properties))
        }
        #expect(cache.count == 1)
    }

    @Test func aPlainNameIsOnePathComponentAndDotsStillSplit() {
        #expect(PropertyPath("rank").components == ["rank"])
        #expect(PropertyPath("").components == [""])
        #expect(PropertyPath("department.name").components == ["department", "name"])
        #expect(PropertyPath("a..b").components == ["a", "", "b"])
        #expect(PropertyPath("départément").components == ["départément"])
    }
}
