import Foundation
import Strata
import StrataTestSupport
import StrataTransfer
import Testing

/// A copy that replaces a store builds the new one beside it and puts it in place only when it
/// is whole: a copy that fails, or a `strata copy --replace` killed at any moment, leaves the
/// store it was replacing as it was, or the whole new one, and never half of either.
@Suite struct CopyReplaceSafetyTests {
    /// The persistent backends, PostgreSQL's when a test server is set.
    static let schemes = ["sqlite", "lmdb", "xml"] + (PostgresTestServer.shouldRun ? ["postgres"] : [])

    /// A destination for `scheme` in `directory` (on PostgreSQL, a schema of its own).
    static func destination(_ scheme: String, in directory: URL, name: String = "copy") throws -> StoreURL {
        scheme == "postgres" ? try PostgresTestServer.freshStoreURL() : storeURL(scheme, in: directory, name: name)
    }

    /// Runs `body` with `scheme`'s backend and a destination holding a Company graph of 40
    /// employees, in a temporary directory (on PostgreSQL, a schema dropped afterwards).
    static func withSeededDestination(
        _ scheme: String, _ body: (any StoreBackend, StoreURL, URL) throws -> Void
    ) throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let backend = try BuiltInBackends.registry.backend(for: scheme)
        let destination = try Self.destination(scheme, in: directory)
        defer { if scheme == "postgres" { try? backend.destroyStore(at: destination) } }
        try seed(destination, employees: 40)
        try body(backend, destination, directory)
    }

    /// Makes the store at `url` with the Company graph of `employees` employees, and closes it.
    static func seed(_ url: StoreURL, employees: Int) throws {
        let store = try Fixture.open(url)
        defer { try? store.close() }
        try seedCompany(store, employees: employees)
    }

    /// Checks that no staging store is left in `directory` (a PostgreSQL copy stages on the server).
    static func expectNothingStaged(in directory: URL, scheme: String) throws {
        guard scheme != "postgres" else { return }
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(!left.contains { $0.contains("strata-copying") }, "\(left)")
    }

    /// Every line of an export of the store at `url`, which is closed again.
    static func export(_ url: StoreURL) throws -> String {
        let store = try Fixture.open(url)
        defer { try? store.close() }
        return try Fixture.export(store)
    }

    @Test(arguments: schemes)
    func aCopyThatFailsLeavesTheStoreItWasReplacingAsItWas(_ scheme: String) throws {
        try Self.withSeededDestination(scheme) { backend, destination, directory in
            let before = try #require(try backend.metadata(at: destination))
            let exported = try Self.export(destination)
            let source = try WriteRulesTests.storeBreakingTheRules(storeURL("memory", in: directory, name: "bad"))

            let error = try #require(throws: StrataError.self) {
                try StoreCopier(batchSize: 1).copy(
                    from: source, to: destination, backend: backend, replacingExisting: true)
            }
            #expect(error.code == .validationFailed)
            #expect(try backend.metadata(at: destination)?.storeIdentifier == before.storeIdentifier)
            #expect(try Self.export(destination) == exported, "\(scheme): the replaced store changed")
            try Self.expectNothingStaged(in: directory, scheme: scheme)
        }
    }

    @Test(arguments: schemes)
    func aCopyThatSucceedsReplacesTheStoreWhole(_ scheme: String) throws {
        try Self.withSeededDestination(scheme) { backend, destination, directory in
            let source = try Fixture.open(storeURL("memory", in: directory, name: "source"))
            try seedCompany(source, employees: 75)

            let report = try StoreCopier(batchSize: 7).copy(
                from: source, to: destination, backend: backend, replacingExisting: true)
            #expect(report.total == (try Fixture.count(source)))
            #expect(try Self.export(destination) == (try Fixture.export(source)))
            try Self.expectNothingStaged(in: directory, scheme: scheme)
        }
    }

    @Test(arguments: ["sqlite", "lmdb", "xml"])
    func aCopyIntoAMissingDirectoryNamesTheDestinationAndMakesNothing(_ scheme: String) throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try Fixture.open(storeURL("memory", in: directory, name: "source"))
        try seedCompany(source, employees: 5)
        let destination = storeURL(scheme, in: directory.appendingPathComponent("missing"), name: "copy")
        let error = try #require(throws: StrataError.self) {
            try StoreCopier().copy(
                from: source, to: destination, backend: BuiltInBackends.registry.backend(for: scheme))
        }
        #expect(error.code == .io)
        #expect(error.message.contains("does not exist"), "\(error.message)")
        #expect(!error.message.contains("strata-copying"), "\(error.message)")
        #expect(error.location["url"] == destination.description)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("missing").path))
    }

    /// `strata copy FROM TO --replace` killed with SIGKILL at random moments: TO is then the
    /// old store or the whole copy, and the next copy succeeds.
    @Test(arguments: ["sqlite", "lmdb", "xml"])
    func aKilledCopyReplacingAStoreLeavesTheOldStoreOrTheWholeCopy(_ scheme: String) throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = storeURL("sqlite", in: directory, name: "source")
        try Self.seed(source, employees: scheme == "xml" ? 400 : 3_000)
        let sourceExport = try Self.export(source)
        let destination = storeURL(scheme, in: directory, name: "copy")
        try Self.seed(destination, employees: 40)
        let oldExport = try Self.export(destination)
        let arguments = ["copy", source.description, destination.description, "--replace", "--batch-size", "50"]
        // How long a whole copy takes, so that the kills land before, during and after it.
        let started = Date()
        let whole = try strata(arguments)
        #expect(whole.status == 0, "\(whole.errors)")
        let duration = Date().timeIntervalSince(started)
        var outcomes: [String: Int] = [:]
        for round in 0..<12 {
            // Back to the old store, then a copy killed at a random moment.
            try BuiltInBackends.registry.backend(for: scheme).destroyStore(at: destination)
            try Self.seed(destination, employees: 40)
            let program = try RunningProgram(
                builtExecutable("strata"), arguments, in: Repository.root,
                environment: ["STRATA_MODEL": Repository.companyModelDirectory.path])
            usleep(useconds_t(Double.random(in: 0.1...1.1) * duration * 1_000_000))
            kill(program.process.processIdentifier, SIGKILL)
            _ = program.finish()
            let export = try Self.export(destination)
            let outcome = export == oldExport ? "old" : export == sourceExport ? "copy" : "partial"
            outcomes[outcome, default: 0] += 1
            #expect(outcome != "partial", "round \(round): the destination holds part of a copy")
        }
        let again = try strata(arguments)
        #expect(again.status == 0, "\(again.errors)")
        #expect(try Self.export(destination) == sourceExport)
        print("copy --replace killed (\(scheme)): 12 kills, outcomes \(outcomes.sorted { $0.key < $1.key })")
    }
}
