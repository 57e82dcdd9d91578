import Foundation
import StrataCore
import StrataMigrations
import Testing

/// `strata migrate`, run as a process.
@Suite struct MigrateCommandTests {
    private func strata(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [directory.appendingPathComponent("strata"), directory.deletingLastPathComponent().appendingPathComponent("strata")]
        let executable = try #require(candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) })
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile(), errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }

    private func v1Store(in directory: URL) throws -> StoreURL {
        let url = BackendKind.sqlite.url(in: directory)
        let store = try builtInRegistry().open(url, model: companyVersions().versions[0])
        try CompanySeed.seed(store)
        try store.close()
        return url
    }

    @Test func dryRunPrintsThePlanAndChangesNothing() throws {
        try withTemporaryDirectory { directory in
            let url = try v1Store(in: directory)
            let before = try snapshotOfFiles(url)
            let result = try strata(["migrate", url.description, "--model", companyModelURL.path, "--dry-run"])
            #expect(result.status == 0)
            #expect(result.out.hasPrefix("migrate from v1 to v3 in 2 steps\nstep v1 -> v2 (inferred)\n"))
            #expect(result.out.contains("renameAttribute Employee.dateOfBirth"))
            #expect(try snapshotOfFiles(url) == before)
        }
    }

    @Test func withoutYesAndWithoutATerminalNothingIsMigrated() throws {
        try withTemporaryDirectory { directory in
            let url = try v1Store(in: directory)
            let result = try strata(["migrate", url.description, "--model", companyModelURL.path])
            #expect(result.status == 3)
            #expect(result.err.contains("--yes"))
            #expect(try builtInRegistry().backend(for: "sqlite").metadata(at: url)?.modelVersionIdentifier == "v1")
        }
    }

    @Test func yesMigratesAndJSONDescribesIt() throws {
        try withTemporaryDirectory { directory in
            let url = try v1Store(in: directory)
            let result = try strata(["migrate", url.description, "--model", companyModelURL.path, "--to", "v2", "--yes", "--json"])
            #expect(result.status == 0)
            let node = try JSONNode.parse(Data(result.out.utf8))
            #expect(node["migrated"] == .bool(true))
            #expect(node["plan"]?["from"] == .string("v1") && node["plan"]?["to"] == .string("v2"))
            #expect(try builtInRegistry().backend(for: "sqlite").metadata(at: url)?.modelVersionIdentifier == "v2")
            let again = try strata(["migrate", url.description, "--model", companyModelURL.path, "--to", "v2"])
            #expect(again.status == 0 && again.out.contains("nothing to do"))
        }
    }

    @Test func errorsExitWithOneAndTheirCode() throws {
        try withTemporaryDirectory { directory in
            let result = try strata(["migrate", "sqlite:" + directory.appendingPathComponent("missing.sqlite").path, "--model", companyModelURL.path, "--json"])
            #expect(result.status == 1)
            #expect(result.err.hasPrefix("strata: storeNotFound"))
            #expect(try JSONNode.parse(Data(result.out.utf8))["error"]?["code"] == .string("storeNotFound"))
        }
    }

    @Test func helpListsEveryOptionAndTheExitCodes() throws {
        let result = try strata(["migrate", "--help"])
        #expect(result.status == 0)
        for text in ["--model", "--to", "--dry-run", "--yes", "--json", "3 not confirmed"] { #expect(result.out.contains(text), "\(text)") }
    }
}
