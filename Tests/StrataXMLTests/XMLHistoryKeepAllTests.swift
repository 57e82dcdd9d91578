import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataXML

/// `historyKeepTransactions=all` lifts the XML store's default limit of kept transactions.
@Suite struct XMLHistoryKeepAllTests {
    @Test(arguments: ["all", "ALL"])
    func keepAllLiftsTheDefaultLimit(_ value: String) throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try XMLHistoryTests.open(dir.url(), [HistoryOptions.keepTransactionsOption: value])
        defer { try? store.close() }
        #expect(store.options.history.keepTransactions == nil)
        #expect(store.options.history.keepsAllTransactions)
        #expect(!store.options.history.prunesAutomatically)
    }

    @Test func theURLQueryTakesKeepAllToo() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        var url = dir.url()
        url.query[HistoryOptions.keepTransactionsOption] = "all"
        let store = try XMLBackend().openStore(url, model: XMLHistoryTests.model, options: StoreOptions())
        defer { try? store.close() }
        #expect(store.options.history.keepTransactions == nil)
    }
}
