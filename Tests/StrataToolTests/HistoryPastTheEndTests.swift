import Foundation
import Strata
import StrataTestSupport
import Testing

/// `strata history --after N` with N past the last transaction lists nothing and says why.
@Suite struct HistoryPastTheEndTests {
    @Test(arguments: HistoryCommandTests.schemes)
    func aTokenPastTheEndIsNamedOnStandardError(_ scheme: String) throws {
        let recorded = try HistoryCommandTests.Recorded(scheme)
        defer { recorded.close() }
        let last = try #require(recorded.transactions.last).token
        let past = last.sequence + 5
        for arguments in [["--after", String(past)], ["--after", String(past), "--json"]] {
            let run = try strata(["history", recorded.url.description] + arguments)
            #expect(run.status == 0, "\(run.errors)")
            #expect(
                run.errors.contains(
                    "--after \(recorded.identifier):\(past) is past the end of the history of \(recorded.url) (its last transaction is \(last))"
                ), "\(run.errors)")
            #expect(!run.output.contains(":\(last.sequence)  "))
        }
        #expect(try recorded.history("--after", String(past)).output == "(0 transactions)\n")
    }

    @Test func theLastTokenItselfListsNothingWithoutANote() throws {
        let recorded = try HistoryCommandTests.Recorded("sqlite")
        defer { recorded.close() }
        let last = try #require(recorded.transactions.last).token
        let run = try recorded.history("--after", String(last.sequence))
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output == "(0 transactions)\n")
        #expect(!run.errors.contains("past the end"))
    }
}
