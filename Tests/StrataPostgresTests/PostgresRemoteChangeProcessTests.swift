import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataPostgres

/// Two and three processes (strata-remote-probe), each with its own container, saving notes
/// into one PostgreSQL store at once: each hears the others' saves through `LISTEN`/`NOTIFY`
/// and merges them into its view context, none lost, none twice; and when the listeners'
/// connections are terminated during the saves, they connect again and catch up.
@Suite(.serialized, .enabled(if: PostgresTestServer.shouldRun, Comment(rawValue: PostgresTestServer.skipReason)))
struct PostgresRemoteChangeProcessTests {
    /// A probe's `result` line: `result own=O merged=M duplicates=D foreign=F fetched=N missing=X`.
    struct Report {
        var fields: [String: Int] = [:]

        init(_ line: String) {
            for field in line.split(separator: " ").dropFirst() {
                let parts = field.split(separator: "=")
                if parts.count == 2, let value = Int(parts[1]) { fields[String(parts[0])] = value }
            }
        }

        var own: Int { fields["own", default: -1] }
        var merged: Int { fields["merged", default: -1] }
        var duplicates: Int { fields["duplicates", default: -1] }
        var foreign: Int { fields["foreign", default: -1] }
        var fetched: Int { fields["fetched", default: -1] }
        var missing: Int { fields["missing", default: -1] }
    }

    static let model = try! Model(
        versionIdentifier: "remote-probe", entities: [Entity("Note", attributes: [Attribute("text", .string)])])

    /// Runs `processes` probes on a new store, each saving `count` notes; `during` runs once
    /// every probe has started saving. Returns their reports and latency lines.
    private func run(
        processes: Int, count: Int, during: (StoreURL, String) throws -> Void = { _, _ in }
    ) throws -> [(Report, String)] {
        let directory = TemporaryDirectory()
        let url = try PostgresTestServer.freshStoreURL()
        let goFile = directory.file("go")
        let total = processes * count
        // The store exists before the probes start, so none of them races to create it.
        let store = try PostgresBackend().open(url, model: Self.model, options: StoreOptions())
        let identifier = store.identifier
        try store.close()
        defer { try? PostgresBackend().destroyStore(at: url) }
        let probes = try (0..<processes).map { index in
            try LineReadingProgram(
                builtExecutable("strata-remote-probe"),
                [url.unredactedDescription, "p\(index)", String(count), String(total), goFile])
        }
        for probe in probes { #expect(probe.waitForLine(startingWith: "ready") != nil) }
        #expect(FileManager.default.createFile(atPath: goFile, contents: Data()))
        try during(url, identifier)
        let reports = probes.map { probe -> (Report, String)? in
            guard let result = probe.waitForLine(startingWith: "result", timeout: 120),
                let latency = probe.waitForLine(startingWith: "latency", timeout: 10)
            else { return nil }
            return (Report(result), latency)
        }
        for probe in probes { probe.finish() }
        return try reports.map { try #require($0) }
    }

    @Test func twoProcessesEachMergeTheOthersSaves() throws {
        for (report, _) in try run(processes: 2, count: 25) {
            #expect(report.own == 25)
            #expect(report.merged == 25)
            #expect(report.duplicates == 0)
            #expect(report.foreign == 0)
            #expect(report.missing == 0)
            #expect(report.fetched == 50)
        }
    }

    @Test func threeProcessesEachMergeTheOthersSaves() throws {
        for (report, _) in try run(processes: 3, count: 15) {
            #expect(report.own == 15)
            #expect(report.merged == 30)
            #expect(report.duplicates == 0)
            #expect(report.foreign == 0)
            #expect(report.missing == 0)
            #expect(report.fetched == 45)
        }
    }

    @Test func terminatedListenersConnectAgainAndCatchUp() throws {
        var terminated = 0
        let reports = try run(processes: 3, count: 60) { url, identifier in
            let admin = try PostgresConnection(settings: PostgresConnectionSettings(url))
            defer { admin.close() }
            // Every probe's listener, again and again while they save.
            for _ in 0..<5 {
                let result = try admin.query(
                    "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1) AS t",
                    [.text(PostgresChangeListener.applicationName(identifier))])
                terminated += Int(result.int64(0, 0))
                usleep(20_000)
            }
        }
        #expect(terminated >= 3)
        for (report, _) in reports {
            #expect(report.own == 60)
            #expect(report.merged == 120)
            #expect(report.duplicates == 0)
            #expect(report.foreign == 0)
            #expect(report.missing == 0)
            #expect(report.fetched == 180)
        }
    }
}
