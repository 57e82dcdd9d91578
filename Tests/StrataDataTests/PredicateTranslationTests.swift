import Foundation
import StrataCore
import StrataData
import StrataTestSupport
import Testing

/// `#Predicate` translated to Strata's predicates: the tree each form gives, and the same
/// objects selected by Strata's evaluator as by `Predicate.evaluate`.
@Suite struct PredicateTranslationTests {
    static let paris = PlaceFixture(name: "Paris", rating: 5)
    static let oslo = PlaceFixture(name: "Oslo", rating: nil)

    static func trips() -> [TripFixture] {
        func trip(_ name: String, days: Int, budget: Double, _ configure: (TripFixture) -> Void = { _ in })
            -> TripFixture
        {
            let trip = TripFixture()
            trip.name = name
            trip.days = days
            trip.budget = budget
            trip.start = Date(timeIntervalSinceReferenceDate: Double(days) * 86_400)
            configure(trip)
            return trip
        }
        return [
            trip("Berlin", days: 3, budget: 800) {
                $0.rating = 4.5
                $0.place = paris
                $0.kind = .business
                $0.items = [ItemFixture(title: "Passport", price: 0, packed: true)]
                $0.isArchived = true
            },
            trip("Bern", days: 7, budget: 1_500.5) {
                $0.note = "ski"
                $0.place = oslo
                $0.items = [
                    ItemFixture(title: "Skis", price: 400, packed: false),
                    ItemFixture(title: "Boots", price: 150, packed: true),
                ]
                $0.isArchived = false
            },
            trip("Éze", days: 1, budget: 90) { $0.kind = .family },
            trip("oslo", days: 10, budget: 2_000) {
                $0.rating = 2
                $0.place = oslo
                $0.cost = Decimal(string: "12.5")!
                $0.weight = 1.5
                $0.small = 7
            },
        ]
    }

    /// Translates `predicate`, evaluates the translation with Strata's evaluator, and expects the
    /// same trips as `Predicate.evaluate`; returns the translation.
    @discardableResult
    func expectSameMatches(_ predicate: Predicate<TripFixture>, sourceLocation: SourceLocation = #_sourceLocation)
        throws -> ObjectPredicate
    {
        let store = FixtureStore(trips: Self.trips())
        let translated = try store.translate(predicate)
        let strata = try store.strataMatches(translated)
        let foundation = try store.foundationMatches(predicate)
        #expect(strata == foundation, "\(translated)", sourceLocation: sourceLocation)
        return translated
    }

    @Test func comparisonsOfStoredPropertiesWithConstants() throws {
        let limit = 5
        #expect(try expectSameMatches(#Predicate { $0.days > limit }) == (.key("days") > 5))
        #expect(
            try expectSameMatches(#Predicate { $0.days >= 3 && $0.days <= 7 })
                == (.key("days") >= 3 && .key("days") <= 7))
        #expect(
            try expectSameMatches(#Predicate { $0.name == "Bern" || $0.name != "Berlin" })
                == (.key("name") == "Bern" || .key("name") != "Berlin"))
        #expect(try expectSameMatches(#Predicate { !($0.budget < 100.0) }) == (!(.key("budget") < 100.0)))
        // A constant on the left moves to the right.
        #expect(try expectSameMatches(#Predicate { 3 < $0.days }) == (.key("days") > 3))
    }

    @Test func everyAttributeTypeConvertsItsConstants() throws {
        let date = Date(timeIntervalSinceReferenceDate: 5 * 86_400)
        let code = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
        let link = URL(string: "https://example.com")!
        let cost = Decimal(string: "12.5")!
        let small: Int16 = 7
        let weight: Float = 1.5
        let blob = Data()
        #expect(try expectSameMatches(#Predicate { $0.start < date }) == (.key("start") < date))
        #expect(try expectSameMatches(#Predicate { $0.code == code }) == (.key("code") == code))
        #expect(try expectSameMatches(#Predicate { $0.link == link }) == (.key("link") == link))
        #expect(try expectSameMatches(#Predicate { $0.cost == cost }) == (.key("cost") == cost))
        #expect(try expectSameMatches(#Predicate { $0.small == small }) == (.key("small") == 7))
        #expect(try expectSameMatches(#Predicate { $0.weight >= weight }) == (.key("weight") >= weight))
        #expect(try expectSameMatches(#Predicate { $0.blob == blob }) == (.key("blob") == blob))
        let business = TripKind.business
        #expect(try expectSameMatches(#Predicate { $0.kind == business }) == (.key("kind") == "business"))
        #expect(try expectSameMatches(#Predicate { $0.note == nil }) == (.key("note") == nil))
        #expect(try expectSameMatches(#Predicate { $0.rating != nil }) == (.key("rating") != nil))
    }

    @Test func notANumberComparesAsInSwift() throws {
        let notANumber = Double.nan
        try expectSameMatches(#Predicate { $0.budget > notANumber })
        try expectSameMatches(#Predicate { $0.budget <= notANumber })
        try expectSameMatches(#Predicate { $0.budget == notANumber })
        try expectSameMatches(#Predicate { $0.budget != notANumber })
        try expectSameMatches(#Predicate { ($0.rating ?? notANumber) < 3 })
    }

    @Test func constantSubexpressionsAreEvaluatedOnce() throws {
        let base = 2
        #expect(try expectSameMatches(#Predicate { $0.days > base * 2 + 1 }) == (.key("days") > 5))
        #expect(try expectSameMatches(#Predicate { base > 1 && $0.days > 1 }) == (.key("days") > 1))
        #expect(try expectSameMatches(#Predicate { base > 5 || $0.days > 1 }) == (.key("days") > 1))
        #expect(try expectSameMatches(#Predicate { _ in base > 5 }) == (.alwaysFalse))
    }

    @Test func keyPathsThroughToOneRelationships() throws {
        #expect(try expectSameMatches(#Predicate { $0.place?.name == "Oslo" }) == (.key("place.name") == "Oslo"))
        #expect(try expectSameMatches(#Predicate { $0.place?.name != "Oslo" }) == (.key("place.name") != "Oslo"))
        #expect(try expectSameMatches(#Predicate { $0.place == nil }) == (.key("place") == nil))
        let paris = Self.paris
        try expectSameMatches(#Predicate { $0.place == paris })
        // `Predicate.evaluate` throws on a nil place; the store reads it as nil.
        let store = FixtureStore(trips: Self.trips())
        #expect(try store.translate(#Predicate { $0.place!.name == "Paris" }) == (.key("place.name") == "Paris"))
    }

    @Test func modelInstancesAndIdentifiersCompareByObjectID() throws {
        let store = FixtureStore(trips: Self.trips())
        let parisID = store.id(of: Self.paris, entity: "Place")
        let identifier = Self.paris.identifier
        #expect(
            try expectSameMatches(#Predicate { $0.place?.identifier == identifier })
                == .comparison(.init(.keyPath("place"), .equal, .objectID(parisID))))
        try expectSameMatches(#Predicate { $0.place?.identifier != identifier })
        let skis = Self.trips()[1].items[0]
        let skisID = store.id(of: skis, entity: "Item")
        #expect(
            try store.translate(#Predicate { $0.items.contains(skis) })
                == .comparison(.init(.keyPath("items"), .contains, .objectID(skisID))))
    }

    @Test func aConstantWithNoStrataValueIsATypedError() throws {
        // An identifier the hook does not know converts to nothing.
        let unknown = PlaceIdentifier(name: "Atlantis")
        let store = FixtureStore(trips: Self.trips())
        let error = try #require(
            strataError { _ = try store.translate(#Predicate { $0.place?.identifier == unknown }) })
        #expect(error.code == .invalidPredicate)
        #expect(error.message.contains("Atlantis"))
    }

    @Test func nilCoalescingSplitsOnNil() throws {
        try expectSameMatches(#Predicate { ($0.rating ?? 0) > 3 })
        try expectSameMatches(#Predicate { ($0.rating ?? 5) > 3 })
        try expectSameMatches(#Predicate { ($0.note ?? "ski") == "ski" })
        try expectSameMatches(#Predicate { ($0.place?.rating ?? 0) >= 5 })
        try expectSameMatches(#Predicate { $0.isArchived ?? false })
        try expectSameMatches(#Predicate { $0.isArchived ?? true })
        try expectSameMatches(#Predicate { $0.place.flatMap { $0.rating.flatMap { $0 > 3 } } ?? false })
        try expectSameMatches(#Predicate { $0.place.flatMap { $0.rating.flatMap { $0 > 3 } } ?? true })
    }

    @Test func stringOperators() throws {
        #expect(try expectSameMatches(#Predicate { $0.name.contains("er") }) == (.key("name").contains("er")))
        #expect(try expectSameMatches(#Predicate { $0.name.starts(with: "Be") }) == (.key("name").beginsWith("Be")))
        #expect(
            try expectSameMatches(#Predicate { $0.name.localizedStandardContains("OSL") })
                == (.key("name").contains("OSL", [.caseInsensitive, .diacriticInsensitive])))
        try expectSameMatches(#Predicate { $0.name.localizedStandardContains("eze") })
        try expectSameMatches(#Predicate { "Bernese".contains($0.name) })
        try expectSameMatches(#Predicate { $0.name.isEmpty })
        try expectSameMatches(#Predicate { $0.name < "C" })
    }

    @Test func membershipInConstantCollectionsAndRanges() throws {
        let names = ["Bern", "oslo", "Rome"]
        let kinds: Set<TripKind> = [.family, .business]
        #expect(try expectSameMatches(#Predicate { names.contains($0.name) }) == (.key("name").in(names)))
        try expectSameMatches(#Predicate { kinds.contains($0.kind) })
        #expect(try expectSameMatches(#Predicate { (3...7).contains($0.days) }) == (.key("days").between(3, 7)))
        try expectSameMatches(#Predicate { (3..<7).contains($0.days) })
    }

    @Test func toManyRelationships() throws {
        #expect(try expectSameMatches(#Predicate { $0.items.count > 1 }) == (.key("items").count > 1))
        try expectSameMatches(#Predicate { $0.items.isEmpty })
        try expectSameMatches(#Predicate { !$0.items.isEmpty })
        #expect(
            try expectSameMatches(#Predicate { $0.items.contains { $0.price > 100 } })
                == (.any("items.price") > 100.0))
        try expectSameMatches(#Predicate { $0.items.contains { $0.packed } })
        try expectSameMatches(#Predicate { $0.items.allSatisfy { $0.packed } })
        try expectSameMatches(#Predicate { $0.items.contains { !$0.packed } })
        try expectSameMatches(#Predicate { $0.items.contains { $0.title == "Skis" || $0.price < 1 } })
        try expectSameMatches(#Predicate { trip in trip.items.contains { $0.price > 100 && trip.days > 5 } })
        try expectSameMatches(#Predicate { $0.items.allSatisfy { $0.price > 100 && $0.packed } })
    }

    @Test func optionalToManyRelationshipsAreNeverNil() throws {
        #expect(try expectSameMatches(#Predicate { ($0.extras?.count ?? 0) > 1 }) == (.key("items").count > 1))
        try expectSameMatches(#Predicate { $0.extras?.isEmpty ?? true })
        try expectSameMatches(#Predicate { $0.extras?.contains { $0.price > 100 } ?? false })
        try expectSameMatches(#Predicate { $0.extras?.allSatisfy { $0.packed } == true })
    }

    @Test func untranslatableExpressionsAreTypedErrorsNamingThem() throws {
        let store = FixtureStore(trips: Self.trips())
        let arithmetic = #Predicate<TripFixture> { $0.days * 2 > 10 }
        let error = try #require(strataError { _ = try store.translate(arithmetic) })
        #expect(error.code == .invalidPredicate)
        #expect(error.location["expressionType"] == "Arithmetic")
        #expect(error.location["predicate"] != nil)

        let subquery = #Predicate<TripFixture> { $0.items.contains { $0.packed && $0.price > 100 } }
        #expect(strataError { _ = try store.translate(subquery) }?.code == .invalidPredicate)

        let transient = #Predicate<TripFixture> { $0.label == "BERN" }
        let transientError = try #require(strataError { _ = try store.translate(transient) })
        #expect(transientError.message.contains("not a stored property"))

        let length = #Predicate<TripFixture> { $0.name.count > 3 }
        #expect(strataError { _ = try store.translate(length) }?.code == .invalidPredicate)

        let filter = #Predicate<TripFixture> { $0.items.filter { $0.packed }.count > 0 }
        #expect(strataError { _ = try store.translate(filter) }?.location["expressionType"] == "Filter")
    }
}
