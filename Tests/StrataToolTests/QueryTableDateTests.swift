import Foundation
import Strata
import StrataTestSupport
import Testing

/// `strata query`'s table shows dates in ISO 8601, also a date with more precision than the
/// millisecond (as `Date.now` has), which JSON Lines write as a number to keep it exact.
@Suite struct QueryTableDateTests {
    @Test func aPreciseDateIsShownInISO8601() throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = storeURL("sqlite", in: directory, name: "dates")
        do {
            let store = try Fixture.open(url)
            defer { try? store.close() }
            let company = try #require(store.model.entity(named: "Company"))
            var snapshot = Snapshot(
                objectID: try store.obtainPermanentIDs(for: "Company", count: 1)[0], entity: company)
            snapshot.attributes[company.attributeIndex(named: "name")!] = "Acme"
            snapshot.attributes[company.attributeIndex(named: "founded")!] = .date(
                Date(timeIntervalSince1970: 1_000_000_000.123_456))
            try store.save(SaveRequest(inserts: [snapshot]))
        }
        let table = try strata(["query", url.description, "--entity", "Company"])
        #expect(table.status == 0, "\(table.errors)")
        #expect(table.output.contains("2001-09-09T01:46:40.123Z"), "\(table.output)")
        let lines = try strata(["query", url.description, "--entity", "Company", "--json"])
        #expect(lines.output.contains("1000000000.123456"), "JSON Lines keep the exact value: \(lines.output)")
    }
}
