import Foundation
import StrataTestSupport
import Testing

/// The exact help of every command, 80 columns wide, against the files in `HelpSnapshots/`: a
/// change to an option, a value name or a text shows up in review as a change to those files.
/// After an intended change, run the suite with `STRATA_RECORD_HELP=1` to write them anew.
@Suite struct HelpSnapshotTests {
    static let commands = [
        "", "demo", "inspect", "import", "export", "validate", "query", "copy", "history", "migrate", "model",
        "model hash",
        "model diff", "model lint",
    ]
    static let directory = Repository.root.appendingPathComponent("Tests/StrataToolTests/HelpSnapshots")

    @Test(arguments: commands)
    func theHelpIsTheRecordedOne(_ command: String) throws {
        let run = try runBuilt(
            "strata", command.isEmpty ? ["--help"] : ["help"] + command.split(separator: " ").map(String.init),
            environment: ["COLUMNS": "80"])
        #expect(run.status == 0, "\(run.errors)")
        let file = Self.directory.appendingPathComponent(
            (command.isEmpty ? "strata" : command.replacingOccurrences(of: " ", with: "-")) + ".txt")
        if ProcessInfo.processInfo.environment["STRATA_RECORD_HELP"] == "1" {
            try Data(run.output.utf8).write(to: file)
            return
        }
        let recorded = try String(contentsOf: file, encoding: .utf8)
        #expect(run.output == recorded, "strata \(command) --help changed; record it with STRATA_RECORD_HELP=1")
    }

    @Test(arguments: commands)
    func noHelpLineIsBrokenInTheMiddleOfASentence(_ command: String) throws {
        let run = try runBuilt(
            "strata", command.isEmpty ? ["--help"] : ["help"] + command.split(separator: " ").map(String.init),
            environment: ["COLUMNS": "80"])
        let lines = run.output.split(separator: "\n", omittingEmptySubsequences: false)
        // Hard-wrapped source text wrapped again leaves a short line followed by a line that
        // continues its sentence in lowercase.
        for (line, next) in zip(lines, lines.dropFirst()) where line.count < 40 && !line.isEmpty {
            let continues = next.first.map { $0.isLowercase } ?? false
            #expect(!(continues && !line.hasSuffix(":") && !line.hasPrefix(" ")), "strata \(command): '\(line)'")
        }
    }
}
