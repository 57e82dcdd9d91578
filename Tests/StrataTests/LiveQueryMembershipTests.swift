import Foundation
import Strata
import StrataCore
import StrataTestSupport
import Testing

/// The membership index of a context's live queries lists each query an object is a member of
/// once: an object whose sort value changes again and again moves within its queries, and
/// neither joins them again nor makes each later change reach them twice.
@Suite struct LiveQueryMembershipTests {
    @Test func aMemberThatMovesStaysListedOncePerQuery() throws {
        let context = try LiveQueryTests.populated(8)
        let everyone = FetchRequest(entityName: "Employee", sorts: [Sort("key")])
        let firstFive = FetchRequest(entityName: "Employee", sorts: [Sort("key")], limit: 5)
        let iterators = try [everyone, firstFive].map { try context.liveResults(for: $0).makeAsyncIterator() }
        for index in iterators.indices { _ = try iterators[index].nextIfReady() }
        let moving = try LiveQueryTests.employee(context, key: 3)
        #expect(context.liveMembershipCount(of: moving.objectID) == 2)
        // Moves within both queries (keys 0 to 7 are taken by the others but 3).
        for (step, key) in [1, 2, 0, 2, 1, 0, 2].enumerated() {
            moving["key"] = .integer(Int64(key) - 10 * Int64(step + 1))
            context.processPendingChanges()
            for index in iterators.indices {
                let result = try #require(try iterators[index].nextIfReady(), "step \(step), query \(index)")
                #expect(result.objectIDs == (try context.fetchObjectIDs(index == 0 ? everyone : firstFive)))
            }
            #expect(context.liveMembershipCount(of: moving.objectID) == 2, "after move \(step + 1)")
        }
        // Out of the window of five and back: it leaves that query and joins it again, once.
        moving["key"] = 100
        context.processPendingChanges()
        #expect(context.liveMembershipCount(of: moving.objectID) == 1)
        moving["key"] = -100
        context.processPendingChanges()
        #expect(context.liveMembershipCount(of: moving.objectID) == 2)
        for index in iterators.indices {
            var last: LiveResult?
            while let next = try iterators[index].nextIfReady() { last = next }
            #expect(last?.objectIDs == (try context.fetchObjectIDs(index == 0 ? everyone : firstFive)))
        }
    }
}
