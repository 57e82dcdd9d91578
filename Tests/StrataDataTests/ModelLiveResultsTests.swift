import Foundation
import StrataData
import StrataTestSupport
import Testing

/// Live results of a fetch descriptor: identifiers in order, and the diff after a change.
@Suite struct ModelLiveResultsTests {
    @Test func aDescriptorsLiveResultsFollowTheContext() throws {
        try withTemporaryDirectory { directory in
            let context = try ModelFetchTests.plannedTrips(.memory, in: directory)
            let descriptor = FetchDescriptor<Trip>(
                predicate: #Predicate { $0.destination == "Norway" }, sortBy: [SortDescriptor(\.name)])
            let iterator = try context.liveResults(descriptor).makeAsyncIterator()
            let first = try #require(try iterator.nextIfReady())
            #expect(first.identifiers == (try context.fetchIdentifiers(descriptor)))
            #expect(first.inserted.count == 4)

            context.insert(Trip(name: "Alta", destination: "Norway"))
            try context.save()
            let next = try #require(try iterator.nextIfReady())
            #expect(next.identifiers == (try context.fetchIdentifiers(descriptor)))
            #expect(next.inserted.map(\.index) == [0])
            #expect(next.deleted.isEmpty)
        }
    }
}
