import Foundation
import Strata
import StrataTestSupport
import StrataTransfer
import Testing

/// The progress line of long commands: rate and time left on a terminal, nothing when piped.
@Suite struct TerminalProgressTests {
    @Test func theLineSaysHowFarHowFastAndHowLongIsLeft() {
        let progress = StoreProgress(phase: "importing", completed: 42_000, total: 100_000)
        #expect(TerminalProgress.line(progress, elapsed: 2) == "importing: 42,000 of 100,000 (42%), 21,000/s, 3 s left")
        #expect(TerminalProgress.line(progress, elapsed: 0.1) == "importing: 42,000 of 100,000 (42%)")
        let unknown = StoreProgress(phase: "copying Employee", completed: 1_234_567, total: 0)
        #expect(TerminalProgress.line(unknown, elapsed: 10) == "copying Employee: 1,234,567, 123,456/s")
        #expect(TerminalProgress.duration(59.2) == "1 min 0 s")
        #expect(TerminalProgress.duration(41.5) == "42 s")
        #expect(TerminalProgress.duration(185) == "3 min 5 s")
        #expect(TerminalProgress.duration(7_800) == "2 h 10 min")
    }

    @Test func linesAreThrottledWithinAPhaseButTheLastOneIsShown() {
        var now: TimeInterval = 0
        var written: [String] = []
        let progress = TerminalProgress(isShown: true, clock: { now }, write: { written.append($0) })
        for done in stride(from: 100, through: 1_000, by: 100) {
            progress.show(StoreProgress(phase: "importing", completed: done, total: 1_000))
            now += 0.01
        }
        progress.finish()
        // The first report, then nothing for 0.1 s, then the last (done) one, then the newline.
        #expect(written.count == 3, "\(written)")
        #expect(written.last == "\n")
        #expect(written.dropLast().last?.contains("1,000 of 1,000 (100%)") == true)
    }

    @Test func nothingIsWrittenWhenNotShown() {
        var written: [String] = []
        let progress = TerminalProgress(isShown: false) { written.append($0) }
        progress.show(StoreProgress(phase: "importing", completed: 1, total: 2))
        progress.finish()
        #expect(written.isEmpty)
    }

    @Test func anImportOnATerminalShowsProgressAndAPipedOneDoesNot() throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let lines = (1...3_000).map { #"{"entity":"Department","ref":"d\#($0)","attributes":{"name":"D\#($0)"}}"# }
        let file = directory.appendingPathComponent("d.jsonl")
        try Data(lines.joined(separator: "\n").utf8).write(to: file)
        let tool = try builtExecutable("strata").path
        let model = Repository.root.appendingPathComponent("Examples/Models/Company.stratamodel").path
        let piped = try runProgram(
            try builtExecutable("strata"),
            ["import", "sqlite:\(directory.path)/a.sqlite", file.path, "--model", model])
        #expect(piped.status == 0 && piped.errors.isEmpty, "\(piped.errors)")
        // `script` gives the tool a terminal.
        let command = [tool, "import", "sqlite:\(directory.path)/b.sqlite", file.path, "--model", model].map {
            "'" + $0 + "'"
        }.joined(separator: " ")
        let onTerminal = try runProgram(URL(fileURLWithPath: "/usr/bin/script"), ["-qec", command, "/dev/null"])
        #expect(onTerminal.status == 0, "\(onTerminal.output)")
        #expect(onTerminal.output.contains("importing: 3,000 of 3,000 (100%)"), "\(onTerminal.output)")
        #expect(onTerminal.output.contains("imported 3000 objects"), "\(onTerminal.output)")
    }
}
