import Foundation
import StrataCore
import StrataMigrations
import StrataTestSupport
import Testing

/// `strata migrate`, run as a process.
@Suite struct MigrateCommandTests {
    private func strata(_ arguments: [String]) throws -> ProgramOutput {
        try runBuilt("strata", arguments)
    }

    private func v1Store(in directory: URL) throws -> StoreURL {
        let url = BackendKind.sqlite.url(in: directory)
        let store = try builtInRegistry().open(url, model: Repository.companyVersions().versions[0])
        try CompanySeed.seed(store)
        try store.close()
        return url
    }

    @Test func dryRunPrintsThePlanAndChangesNothing() throws {
        try withTemporaryDirectory { directory in
            let url = try v1Store(in: directory)
            let before = try snapshotOfFiles(url)
            let result = try strata([
                "migrate", url.description, "--model", Repository.companyModelDirectory.path, "--dry-run",
            ])
            #expect(result.status == 0)
            #expect(result.output.hasPrefix("migrate from v1 to v3 in 2 steps\nstep v1 -> v2 (inferred)\n"))
            #expect(result.output.contains("renameAttribute Employee.dateOfBirth"))
            #expect(try snapshotOfFiles(url) == before)
        }
    }

    @Test func withoutYesAndWithoutATerminalNothingIsMigrated() throws {
        try withTemporaryDirectory { directory in
            let url = try v1Store(in: directory)
            let result = try strata(["migrate", url.description, "--model", Repository.companyModelDirectory.path])
            #expect(result.status == 3)
            #expect(result.errors.contains("--yes"))
            #expect(try builtInRegistry().backend(for: "sqlite").metadata(at: url)?.modelVersionIdentifier == "v1")
        }
    }

    @Test func yesMigratesAndJSONDescribesIt() throws {
        try withTemporaryDirectory { directory in
            let url = try v1Store(in: directory)
            let result = try strata([
                "migrate", url.description, "--model", Repository.companyModelDirectory.path, "--to", "v2", "--yes",
                "--json",
            ])
            #expect(result.status == 0)
            let node = try JSONNode.parse(Data(result.output.utf8))
            #expect(node["migrated"] == .bool(true))
            #expect(node["plan"]?["from"] == .string("v1") && node["plan"]?["to"] == .string("v2"))
            #expect(try builtInRegistry().backend(for: "sqlite").metadata(at: url)?.modelVersionIdentifier == "v2")
            let again = try strata([
                "migrate", url.description, "--model", Repository.companyModelDirectory.path, "--to", "v2",
            ])
            #expect(again.status == 0 && again.output.contains("nothing to do"))
        }
    }

    @Test func errorsExitWithOneAndTheirCode() throws {
        try withTemporaryDirectory { directory in
            let result = try strata([
                "migrate", "sqlite:" + directory.appendingPathComponent("missing.sqlite").path, "--model",
                Repository.companyModelDirectory.path, "--json",
            ])
            #expect(result.status == 1)
            #expect(result.errors.hasPrefix("strata: storeNotFound"))
            #expect(try JSONNode.parse(Data(result.output.utf8))["error"]?["code"] == .string("storeNotFound"))
        }
    }

    @Test func helpListsEveryOptionAndTheExitCodes() throws {
        let result = try strata(["migrate", "--help"])
        #expect(result.status == 0)
        // Words as a reader sees them, whatever the width the help was wrapped to.
        let words = result.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for text in ["--model", "--to", "--dry-run", "--yes", "--json", "3 not confirmed"] {
            #expect(words.contains(text), "\(text)")
        }
    }
}
