import Foundation
import Strata
import StrataCore
import StrataData
import StrataTestSupport
import Testing

/// Translated predicates run by each built-in store (natively where it can, in memory where it
/// cannot) select the trips `Predicate.evaluate` selects.
@Suite struct PredicateStoreTests {
    @Test(arguments: ["memory", "sqlite", "lmdb", "xml"])
    func everyStoreSelectsWhatEvaluateSelects(scheme: String) throws {
        let location =
            scheme == "memory" ? "predicates-\(UUID().uuidString)" : TemporaryDirectory().file("trips.\(scheme)")
        let store = try BuiltInBackends.registry.open(
            StoreURL(scheme: scheme, location: location), model: fixtureModel,
            options: StoreOptions(identifierForNewStore: "S"))
        defer { try? store.close() }
        var random = SeededGenerator(seed: 0x5702_E000)
        let trips = (0..<24).map { _ in PredicateRandomizedTests.trip(&random) }
        let fixtures = FixtureStore(trips: trips, places: PredicateRandomizedTests.places) { entity in
            do {
                if let id = try store.obtainPermanentIDs(for: entity, count: 1).first { return id }
            } catch {
                Issue.record(error)
            }
            return ObjectID.temporary(entityName: entity)
        }
        // Every place gets its ID before the save, so identifiers of places no trip visits resolve.
        for place in PredicateRandomizedTests.places { _ = fixtures.id(of: place, entity: "Place") }
        _ = try store.save(SaveRequest(inserts: fixtures.insertions))
        let items = trips.flatMap(\.items)
        var selective = 0
        for _ in 0..<60 {
            let expression = PredicateRandomizedTests.condition(depth: 3, &random, items: items)
            let predicate = Predicate<TripFixture> { trip in expression(trip) }
            let translated = try fixtures.translate(predicate)
            let fetched = try fixtures.storeMatches(translated, in: store)
            let foundation = try fixtures.foundationMatches(predicate).sorted()
            #expect(fetched == foundation, "\(predicate.expression)\n→ \(translated)")
            if !foundation.isEmpty && foundation.count < 24 { selective += 1 }
        }
        // Most predicates select some trips but not all, so the comparison has something to compare.
        #expect(selective > 20)
    }
}
