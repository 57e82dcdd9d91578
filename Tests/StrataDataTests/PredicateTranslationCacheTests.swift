import Foundation
import StrataCore
import StrataData
import StrataTestSupport
import Testing

/// Translations kept per predicate shape: one full translation per shape, and for every other
/// constant the same predicate the full translation gives.
@Suite struct PredicateTranslationCacheTests {
    typealias Shape = @Sendable (inout SeededGenerator) -> Predicate<TripFixture>

    static let names = PredicateRandomizedTests.names
    static let places = PredicateRandomizedTests.places

    static func cache(for store: FixtureStore) -> PredicateTranslationCache {
        PredicateTranslationCache(
            naming: fixtureNaming, isIdentifier: { $0 == \PlaceFixture.identifier }, objectID: { store.objectID($0) })
    }

    static func name(_ random: inout SeededGenerator) -> String { names.randomElement(using: &random)! }

    /// Shapes whose translation is kept: their constants become operands and nothing else.
    static let keptShapes: [(String, Shape)] = [
        (
            "days ==",
            { random in
                let days = Int.random(in: -1...11, using: &random)
                return #Predicate { $0.days == days }
            }
        ),
        (
            "constant on the left",
            { random in
                let days = Int.random(in: 0...10, using: &random)
                return #Predicate { days < $0.days }
            }
        ),
        (
            "&& and >",
            { random in
                let name = name(&random)
                let budget = [0, 90, 800, 1_500.5, 2_000].randomElement(using: &random)!
                return #Predicate { $0.name == name && $0.budget > budget }
            }
        ),
        (
            "! and ||",
            { random in
                let name = name(&random)
                let days = Int.random(in: 0...10, using: &random)
                return #Predicate { !($0.name != name) || $0.days <= days }
            }
        ),
        (
            "optional constant, sometimes nil",
            { random in
                let note: String? = Bool.random(using: &random) ? nil : name(&random)
                return #Predicate { $0.note == note }
            }
        ),
        (
            "optional Boolean constant",
            { random in
                let archived = [nil, true, false].randomElement(using: &random)!
                return #Predicate { $0.isArchived == archived }
            }
        ),
        ("nil literal", { _ in #Predicate { $0.rating == nil } }),
        (
            "optional chain",
            { random in
                let place = places.randomElement(using: &random)!.name
                return #Predicate { $0.place?.name == place }
            }
        ),
        (
            "array of constants",
            { random in
                let chosen = (0..<Int.random(in: 0...4, using: &random)).map { _ in name(&random) }
                return #Predicate { chosen.contains($0.name) }
            }
        ),
        (
            "starts(with:)",
            { random in
                let prefix = name(&random)
                return #Predicate { $0.name.starts(with: prefix) }
            }
        ),
        (
            "contains",
            { random in
                let needle = name(&random)
                return #Predicate { $0.name.contains(needle) }
            }
        ),
        (
            "other attribute types",
            { random in
                let start = Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...4, using: &random)) * 86_400)
                let cost = Decimal(Int.random(in: 0...3, using: &random)) / 2
                let weight = Float(Int.random(in: 0...3, using: &random)) / 2
                let small = Int16.random(in: -2...2, using: &random)
                return #Predicate { $0.start >= start && $0.cost > cost && ($0.weight < weight || $0.small == small) }
            }
        ),
    ]

    /// Shapes translated in full every time: their constants change the translation's form.
    static let translatedEachTime: [(String, Shape)] = [
        (
            "contains(where:)",
            { random in
                let price = Double(Int.random(in: 0...4, using: &random) * 50)
                return #Predicate { $0.items.contains { $0.price > price } }
            }
        ),
        (
            "??",
            { random in
                let rating = Double(Int.random(in: 0...5, using: &random))
                return #Predicate { ($0.rating ?? 0) > rating }
            }
        ),
        (
            "Boolean constant as a condition",
            { random in
                let all = Bool.random(using: &random)
                let days = Int.random(in: 0...10, using: &random)
                return #Predicate { all || $0.days > days }
            }
        ),
        (
            "to-many count",
            { random in
                let count = Int.random(in: 0...3, using: &random)
                return #Predicate { $0.items.count > count }
            }
        ),
        (
            "to-many isEmpty in a condition",
            { random in
                let name = name(&random)
                return #Predicate { $0.items.isEmpty && $0.name == name }
            }
        ),
    ]

    static func store(_ random: inout SeededGenerator) -> FixtureStore {
        FixtureStore(trips: (0..<24).map { _ in PredicateRandomizedTests.trip(&random) }, places: places)
    }

    @Test(arguments: keptShapes.indices)
    func oneFullTranslationPerShape(shape index: Int) throws {
        let (label, shape) = Self.keptShapes[index]
        var random = SeededGenerator(seed: 0xCAC4E_0000 + UInt64(index))
        let store = Self.store(&random)
        let cache = Self.cache(for: store)
        var distinct = Set<ObjectPredicate>()
        for _ in 0..<40 {
            let predicate = shape(&random)
            let cached = try cache.objectPredicate(for: predicate)
            let full = try store.translate(predicate)
            #expect(cached == full, "\(label): \(predicate.expression)")
            #expect(try store.strataMatches(cached) == store.foundationMatches(predicate), "\(label)")
            distinct.insert(cached)
        }
        #expect(cache.fullTranslationCount == 1, "\(label)")
        // The constants vary, so predicates of one shape do not share a translation.
        #expect(distinct.count > 1 || label == "nil literal", "\(label)")
    }

    @Test(arguments: translatedEachTime.indices)
    func shapesWhoseConstantsChangeTheFormTranslateEachTime(shape index: Int) throws {
        let (label, shape) = Self.translatedEachTime[index]
        var random = SeededGenerator(seed: 0xCAC4E_1000 + UInt64(index))
        let store = Self.store(&random)
        let cache = Self.cache(for: store)
        for _ in 0..<20 {
            let predicate = shape(&random)
            #expect(try cache.objectPredicate(for: predicate) == store.translate(predicate), "\(label)")
        }
        #expect(cache.fullTranslationCount == 20, "\(label)")
    }

    @Test func anEmptyNeedleOfLocalizedStandardContainsIsNeverFilledIn() throws {
        var random = SeededGenerator(seed: 0xCAC4E_2000)
        let store = Self.store(&random)
        let cache = Self.cache(for: store)
        var empties = 0
        for round in 0..<40 {
            // The first needle is not empty, so the shape is kept before an empty one comes.
            let needle = round == 0 ? "er" : Self.name(&random)
            if needle.isEmpty { empties += 1 }
            let predicate = #Predicate<TripFixture> { $0.name.localizedStandardContains(needle) }
            let cached = try cache.objectPredicate(for: predicate)
            #expect(cached == (try store.translate(predicate)))
            if needle.isEmpty { #expect(cached == .alwaysFalse) }
        }
        #expect(empties > 0)
        #expect(cache.fullTranslationCount == 1 + empties)
    }

    @Test func keptAndUntranslatablePredicatesFailAsBefore() throws {
        var random = SeededGenerator(seed: 0xCAC4E_3000)
        let store = Self.store(&random)
        let cache = Self.cache(for: store)
        let predicate = #Predicate<TripFixture> { $0.label == "x" }
        #expect(throws: StrataError.self) { try cache.objectPredicate(for: predicate) }
        #expect(throws: StrataError.self) { try cache.objectPredicate(for: predicate) }
    }

    @Test(arguments: [ModelBackend.memory, .sqlite])
    func aModelContextTranslatesAFetchByKeyOnce(_ backend: ModelBackend) throws {
        try withTemporaryDirectory { directory in
            let container = try ModelContainer(for: Trip.self, configurations: backend.configuration(in: directory))
            let context = ModelContext(container)
            let names = (0..<30).map { "Trip \($0)" }
            for name in names { context.insert(Trip(name: name, destination: "D \(name)")) }
            try context.save()
            let before = container.predicateTranslations.fullTranslationCount
            for name in names.reversed() {
                var descriptor = FetchDescriptor<Trip>(predicate: #Predicate { $0.name == name })
                descriptor.fetchLimit = 1
                let found = try context.fetch(descriptor)
                #expect(found.map(\.destination) == ["D \(name)"])
            }
            #expect(container.predicateTranslations.fullTranslationCount == before + 1)
        }
    }
}
