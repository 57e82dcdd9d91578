import Foundation
import Strata
import StrataTestSupport
import Testing

/// `strata import` as a user runs it: a failed import into a new path left an empty store
/// behind; standard input must be read twice without leaving a copy of it anywhere.
@Suite struct ImportCommandSafetyTests {
    static let bad = """
        {"entity":"Company","ref":"c1","attributes":{"name":"Acme"}}
        {"entity":"Company","ref":"c2","attributes":{"name":""}}

        """

    /// Every file and directory under `directory`, by relative path.
    static func contents(of directory: URL) -> Set<String> {
        Set(FileManager.default.enumerator(atPath: directory.path)?.compactMap { $0 as? String } ?? [])
    }

    @Test(arguments: ["sqlite", "lmdb", "xml"])
    func aFailedImportIntoANewPathLeavesNothingBehind(_ scheme: String) throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("bad.jsonl")
        try Data(Self.bad.utf8).write(to: input)
        let url = storeURL(scheme, in: directory)
        let run = try strata(["import", url.description, input.path])
        #expect(run.status == 1)
        #expect(run.errors.contains("line 2:"), "\(run.errors)")
        #expect(Self.contents(of: directory) == ["bad.jsonl"], "\(scheme): \(Self.contents(of: directory))")
    }

    @Test(arguments: ["sqlite", "lmdb", "xml"])
    func aFailedImportKeepsAStoreThatExisted(_ scheme: String) throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = storeURL(scheme, in: directory)
        #expect(
            try strata(
                ["import", url.description, "-"], input: #"{"entity":"Company","ref":"k","attributes":{"name":"Kept"}}"#
            ).status == 0)
        let input = directory.appendingPathComponent("bad.jsonl")
        try Data(Self.bad.utf8).write(to: input)
        #expect(try strata(["import", url.description, input.path]).status == 1)
        let store = try Fixture.open(url)
        defer { try? store.close() }
        #expect(
            try Fixture.export(store)
                == #"{"entity":"Company","ref":"Company/1","attributes":{"name":"Kept","founded":null},"relationships":{"departments":[]}}"#
                + "\n")
    }

    @Test func standardInputIsImportedAndItsSpoolRemoved() throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let spool = directory.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: spool, withIntermediateDirectories: true)
        let url = storeURL("sqlite", in: directory)
        let good = """
            {"entity":"Employee","ref":"e1","attributes":{"name":"a"},"relationships":{"department":"d1"}}
            {"entity":"Department","ref":"d1","attributes":{"name":"D"}}
            """
        let run = try Self.strataWithTemporaryDirectory(
            ["import", url.description, "-"], input: good, temporaryDirectory: spool)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("imported 2 objects"), "\(run.output)")
        #expect(Self.contents(of: spool).isEmpty)
        let failed = try Self.strataWithTemporaryDirectory(
            ["import", url.description, "-"], input: Self.bad, temporaryDirectory: spool)
        #expect(failed.status == 1)
        #expect(Self.contents(of: spool).isEmpty)
        let store = try Fixture.open(url)
        defer { try? store.close() }
        #expect(try Fixture.count(store) == 2)
    }

    /// Runs the `strata` executable with `TMPDIR` set to `temporaryDirectory`.
    static func strataWithTemporaryDirectory(_ arguments: [String], input: String, temporaryDirectory: URL) throws
        -> ProgramOutput
    {
        let process = Process()
        process.executableURL = try builtExecutable("strata")
        process.arguments = arguments
        process.currentDirectoryURL = Repository.root
        process.environment = ProcessInfo.processInfo.environment.merging([
            "TMPDIR": temporaryDirectory.path, "STRATA_MODEL": Repository.companyModelDirectory.path,
        ]) { $1 }
        let inputFile = temporaryDirectory.deletingLastPathComponent().appendingPathComponent(
            "input-\(UUID().uuidString)")
        let outputFile = inputFile.appendingPathExtension("out")
        let errorFile = inputFile.appendingPathExtension("err")
        try Data(input.utf8).write(to: inputFile)
        try Data().write(to: outputFile)
        try Data().write(to: errorFile)
        process.standardInput = try FileHandle(forReadingFrom: inputFile)
        process.standardOutput = try FileHandle(forWritingTo: outputFile)
        process.standardError = try FileHandle(forWritingTo: errorFile)
        try process.run()
        process.waitUntilExit()
        return ProgramOutput(
            status: process.terminationStatus, output: try String(contentsOf: outputFile, encoding: .utf8),
            errors: try String(contentsOf: errorFile, encoding: .utf8))
    }
}
