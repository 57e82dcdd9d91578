import Foundation
import StrataCore
import StrataData
import StrataTestSupport
import Testing

/// `SortDescriptor` translated to Strata's sorts: the same order as Foundation's.
@Suite struct PredicateSortTests {
    @Test func sortDescriptorsGiveTheirPropertyAndOrder() throws {
        let sorts = try StrataData.sorts(
            [SortDescriptor(\TripFixture.name), SortDescriptor(\TripFixture.days, order: .reverse)],
            naming: fixtureNaming)
        #expect(sorts == [.ascending("name"), .descending("days")])
    }

    @Test(arguments: 0..<4)
    func translatedSortsOrderAsFoundationDoes(run: Int) throws {
        var random = SeededGenerator(seed: 0x5071_0000 + UInt64(run))
        let store = FixtureStore(trips: (0..<30).map { _ in PredicateRandomizedTests.trip(&random) })
        let candidates: [(SortDescriptor<TripFixture>, SortDescriptor<TripFixture>)] = [
            (SortDescriptor(\TripFixture.name), SortDescriptor(\TripFixture.name, order: .reverse)),
            (SortDescriptor(\TripFixture.days), SortDescriptor(\TripFixture.days, order: .reverse)),
            (SortDescriptor(\TripFixture.rating), SortDescriptor(\TripFixture.rating, order: .reverse)),
            (SortDescriptor(\TripFixture.start), SortDescriptor(\TripFixture.start, order: .reverse)),
            (SortDescriptor(\TripFixture.note), SortDescriptor(\TripFixture.note, order: .reverse)),
            (SortDescriptor(\TripFixture.budget), SortDescriptor(\TripFixture.budget, order: .reverse)),
        ]
        for _ in 0..<10 {
            let descriptors = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                let pair = candidates.randomElement(using: &random)!
                return Bool.random(using: &random) ? pair.0 : pair.1
            }
            let foundation = store.trips.sorted(using: descriptors).map(\.name)
            let strata = try store.strataSorted(StrataData.sorts(descriptors, naming: fixtureNaming))
            #expect(strata == foundation, "\(descriptors)")
        }
    }

    @Test func aSortOnAPropertyThatIsNotStoredIsATypedError() throws {
        let error = try #require(
            strataError { _ = try StrataData.sort(SortDescriptor(\TripFixture.label), naming: fixtureNaming) })
        #expect(error.code == .invalidPredicate)
        #expect(error.location["keyPath"] != nil)
    }
}
