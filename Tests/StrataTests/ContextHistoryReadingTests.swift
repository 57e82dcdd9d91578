import Foundation
import Strata
import StrataTestSupport
import Testing

/// Reading the persistent history from a context: as an array (``ObjectContext/fetchHistory(_:)``)
/// and as a sequence that pages through it and can wait for new transactions.
@Suite struct ContextHistoryReadingTests {
    /// A coordinator on a new in-memory store, and a context on it named "app" whose author is
    /// "tester".
    private func makeContext() throws -> ObjectContext {
        let coordinator = StoreCoordinator(model: SharedStorePair.model)
        try coordinator.addStore(BuiltInBackends.registry.open("memory:", model: SharedStorePair.model))
        let context = ObjectContext(coordinator: coordinator, name: "app")
        context.transactionAuthor = "tester"
        return context
    }

    /// Saves `count` notes, one save each.
    private func save(_ count: Int, in context: ObjectContext, from start: Int = 0) throws {
        for index in start..<(start + count) {
            try context.insert("Note")["text"] = .string("note \(index)")
            try context.save()
        }
    }

    @Test func theAuthorAndNameReachTheHistory() throws {
        let context = try makeContext()
        try save(1, in: context)
        let child = ObjectContext(parent: context, name: "editor")
        child.transactionAuthor = "editing"
        try child.performAndWait {
            try child.insert("Note")["text"] = .string("from the child")
            try child.save()
        }
        try context.save()
        let transactions = try context.fetchHistory(HistoryRequest())
        #expect(transactions.map(\.author) == ["tester", "editing"])
        #expect(transactions.map(\.contextName) == ["app", "editor"])
        #expect(try context.fetchHistory(HistoryRequest(authors: ["editing"])).count == 1)
    }

    @Test func theSequencePagesThroughEveryTransactionInOrder() async throws {
        let context = try makeContext()
        try save(7, in: context)
        let all = try context.fetchHistory(HistoryRequest())
        var read: [HistoryTransaction] = []
        for try await transaction in context.history(pageSize: 2) { read.append(transaction) }
        #expect(read == all)
        #expect(read.map(\.token.sequence) == Array(1...7))
        var after: [HistoryToken] = []
        for try await transaction in context.history(after: all[4].token, pageSize: 3) {
            after.append(transaction.token)
        }
        #expect(after == [all[5].token, all[6].token])
    }

    @Test func theSequenceCanWaitForNewTransactions() async throws {
        let context = try makeContext()
        try save(2, in: context)
        let coordinator = context.coordinator
        let seen = Collector<HistoryToken>()
        let reader = Task {
            for try await transaction in context.history(pageSize: 10, waitingEvery: .milliseconds(1)) {
                seen.append(transaction.token)
            }
        }
        // The reader is a task of its own: under the thread sanitizer, beside the suites that
        // run other processes, it can wait tens of seconds for a thread of the pool.
        #expect(await eventually(within: .seconds(180)) { seen.values.count == 2 })
        let writer = ObjectContext(coordinator: coordinator)
        try writer.insert("Note")["text"] = .string("later")
        try writer.save()
        #expect(await eventually(within: .seconds(180)) { seen.values.count == 3 })
        reader.cancel()
        try await reader.value
        #expect(seen.values.map(\.sequence) == [1, 2, 3])
    }

    @Test func aPrunedTokenEndsTheSequenceWithHistoryExpired() async throws {
        let context = try makeContext()
        try save(3, in: context)
        let first = try #require(try context.fetchHistory(HistoryRequest()).first)
        try context.coordinator.pruneHistory(.keepingLast(1))
        #expect(throws: StrataError.self) { try context.fetchHistory(HistoryRequest(after: first.token)) }
        do {
            for try await _ in context.history(after: first.token) {}
            Issue.record("the sequence did not fail")
        } catch let error as StrataError {
            #expect(error.code == .historyExpired)
        }
    }
}
