import Foundation
import Strata
import StrataTestSupport
import Testing

/// Two and three processes saving notes into one store at the same time (strata-remote-probe):
/// each sees every other's notes merged into its view context, none lost, none twice, and none
/// of its own coming back as another's.
@Suite(.serialized) struct RemoteChangeProcessTests {
    /// The per-process report of the probe.
    struct Report {
        var own = 0
        var merged = 0
        var duplicates = 0
        var foreign = 0
        var fetched = 0
        var missing = 0

        init(_ line: String) {
            for field in line.split(separator: " ").dropFirst() {
                let parts = field.split(separator: "=")
                guard parts.count == 2, let value = Int(parts[1]) else { continue }
                switch parts[0] {
                case "own": own = value
                case "merged": merged = value
                case "duplicates": duplicates = value
                case "foreign": foreign = value
                case "fetched": fetched = value
                case "missing": missing = value
                default: break
                }
            }
        }
    }

    /// Runs `processes` probes on one new store of `scheme`, each saving `count` notes, and
    /// returns their reports.
    private func run(scheme: String, processes: Int, count: Int) throws -> [Report] {
        let directory = TemporaryDirectory()
        let url = directory.storeURL(scheme, name: "shared").description
        let goFile = directory.file("go")
        let total = processes * count
        // The store exists before the probes start, so none of them races to create it.
        let model = try Model(
            versionIdentifier: "remote-probe", entities: [Entity("Note", attributes: [Attribute("text", .string)])])
        try BuiltInBackends.registry.open(url, model: model).close()
        let probes = try (0..<processes).map { index in
            try LineReadingProgram(
                builtExecutable("strata-remote-probe"), [url, "p\(index)", String(count), String(total), goFile])
        }
        for probe in probes { #expect(probe.waitForLine(startingWith: "ready") != nil) }
        #expect(FileManager.default.createFile(atPath: goFile, contents: Data()))
        let reports = probes.map { probe in probe.waitForLine(startingWith: "result", timeout: 120).map(Report.init) }
        for probe in probes { probe.finish() }
        return try reports.map { try #require($0) }
    }

    @Test(arguments: ["sqlite", "lmdb"])
    func twoProcessesEachMergeTheOthersSaves(scheme: String) throws {
        let reports = try run(scheme: scheme, processes: 2, count: 25)
        for report in reports {
            #expect(report.own == 25)
            #expect(report.merged == 25)
            #expect(report.duplicates == 0)
            #expect(report.foreign == 0)
            #expect(report.missing == 0)
            #expect(report.fetched == 50)
        }
    }

    @Test(arguments: ["sqlite", "lmdb"])
    func threeProcessesEachMergeTheOthersSaves(scheme: String) throws {
        let reports = try run(scheme: scheme, processes: 3, count: 15)
        for report in reports {
            #expect(report.own == 15)
            #expect(report.merged == 30)
            #expect(report.duplicates == 0)
            #expect(report.foreign == 0)
            #expect(report.missing == 0)
            #expect(report.fetched == 45)
        }
    }
}
