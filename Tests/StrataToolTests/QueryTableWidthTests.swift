import Foundation
import Strata
import StrataTestSupport
import StrataTransfer
import Testing

/// `strata query`'s table lines its columns up on a terminal: wide characters (CJK, emoji) take
/// two columns, combining marks none.
@Suite struct QueryTableWidthTests {
    @Test func wideCharactersTakeTwoColumnsAndCombiningMarksNone() {
        #expect(TerminalDisplayWidth.of("Acme") == 4)
        #expect(TerminalDisplayWidth.of("株式会社") == 8)
        #expect(TerminalDisplayWidth.of("한국") == 4)
        #expect(TerminalDisplayWidth.of("ＡＢ") == 4)
        #expect(TerminalDisplayWidth.of("ｱｲ") == 2)
        #expect(TerminalDisplayWidth.of("🚀") == 2)
        #expect(TerminalDisplayWidth.of("👍🏽") == 2)
        #expect(TerminalDisplayWidth.of("🇯🇵") == 2)
        #expect(TerminalDisplayWidth.of("❤\u{FE0F}") == 2)
        #expect(TerminalDisplayWidth.of("Cafe\u{301}") == 4)
        #expect(TerminalDisplayWidth.of("\u{301}") == 0)
        #expect(TerminalDisplayWidth.of("a\u{200B}b") == 2)
        #expect(TerminalDisplayWidth.of("Émilie Иванова") == 14)
        #expect(TerminalDisplayWidth.padded("株式", toWidth: 6) == "株式  ")
        #expect(TerminalDisplayWidth.padded("株式会社", toWidth: 6) == "株式会社")
    }

    @Test func theTableColumnsLineUpByDisplayWidth() throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = storeURL("sqlite", in: directory, name: "wide")
        let names = ["Acme", "株式会社ミライ", "🚀 Rocket 🇯🇵", "Cafe\u{301} Ромашка", "한국 상사"]
        do {
            let store = try Fixture.open(url)
            defer { try? store.close() }
            let company = try #require(store.model.entity(named: "Company"))
            let ids = try store.obtainPermanentIDs(for: "Company", count: names.count)
            let snapshots = zip(ids, names).map { id, name in
                var snapshot = Snapshot(objectID: id, entity: company)
                snapshot.attributes[company.attributeIndex(named: "name")!] = .string(name)
                return snapshot
            }
            try store.save(SaveRequest(inserts: snapshots))
        }
        let run = try strata(["query", url.description, "--entity", "Company", "--sort", "name"])
        #expect(run.status == 0, "\(run.errors)")
        let lines = run.output.split(separator: "\n").dropLast().map(String.init)
        try #require(lines.count == names.count + 1)
        // The last column (`founded`, null here) starts at the same terminal column on every line.
        let starts = lines.map { line in TerminalDisplayWidth.of(line.dropLast(line.hasSuffix("founded") ? 7 : 4)) }
        #expect(Set(starts).count == 1, "\(run.output)")
        // Counting characters would not line them up: the test sees the difference.
        let characterStarts = lines.map { $0.count - ($0.hasSuffix("founded") ? 7 : 4) }
        #expect(Set(characterStarts).count > 1)
        #expect(lines.dropFirst().allSatisfy { $0.hasSuffix("null") })
    }
}
