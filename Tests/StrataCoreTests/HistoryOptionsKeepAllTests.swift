import StrataCore
import Testing

/// `historyKeepTransactions=all`: every transaction is kept, and the option's check says so.
@Suite struct HistoryOptionsKeepAllTests {
    static let option = HistoryOptions.supportedOptions.first { $0.name == HistoryOptions.keepTransactionsOption }!

    @Test func allKeepsEveryTransaction() throws {
        let options = try HistoryOptions(StoreOptions(options: [HistoryOptions.keepTransactionsOption: "all"]))
        #expect(options.keepsAllTransactions)
        #expect(options.keepTransactions == nil)
        #expect(!options.prunesAutomatically)
        #expect(try !HistoryOptions(StoreOptions()).keepsAllTransactions)
        #expect(try HistoryOptions(StoreOptions(options: ["historyKeepTransactions": "7"])).keepTransactions == 7)
    }

    @Test func theOptionAcceptsAllAndCountsOnly() {
        for value in ["all", "All", "1", "2147483647"] { #expect(Self.option.isValid(value), "\(value)") }
        for value in ["none", "0", "-1", "2147483648", ""] { #expect(!Self.option.isValid(value), "\(value)") }
        #expect(Self.option.expected.hasSuffix("or all"))
    }

    @Test func anotherWordIsAnInvalidOptionNamingAll() {
        let error = #expect(throws: StrataError.self) {
            try HistoryOptions(StoreOptions(options: [HistoryOptions.keepTransactionsOption: "none"]))
        }
        #expect(error?.code == .invalidOption)
        #expect(error?.message.contains("or all") == true)
        #expect(error?.location["value"] == "none")
    }
}
