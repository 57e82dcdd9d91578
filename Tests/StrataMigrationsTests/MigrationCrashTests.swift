import Foundation
import StrataCore
import StrataMigrations
import StrataTestSupport
import Testing

/// A child process (`strata-migration-probe`) migrates a Company v1 store to v3 and is killed
/// with SIGKILL at a random moment; the store must then open at a whole version (v1, v2 or v3)
/// with every object intact, and a new migration must finish it. On PostgreSQL (with a test
/// server) the migration is one server transaction: a killed child's session ends and the server
/// rolls it back.
@Suite struct MigrationCrashTests {
    static let runs = 50

    /// The persistent backends, PostgreSQL's when a test server is set.
    static var kinds: [BackendKind] { [.sqlite, .lmdb, .xml] + (PostgresTestServer.shouldRun ? [.postgres] : []) }

    /// Small stores, so that 50 runs per backend stay within seconds; the XML store rewrites its
    /// file at every save, so it gets fewer objects and the child's batches are small.
    static func employees(_ kind: BackendKind) -> Int { kind == .xml ? 45 : 150 }
    static func batch(_ kind: BackendKind) -> Int { kind == .xml ? 15 : 25 }

    @Test(arguments: kinds)
    func killedMigrationLeavesAWholeVersionWithEveryObject(kind: BackendKind) throws {
        let probe = try builtExecutable("strata-migration-probe")
        try withTemporaryDirectory { root in
            let registry = builtInRegistry()
            let versions = try Repository.companyVersions()
            let template = kind.url(in: root, name: "template")
            defer {
                if kind.outlivesDirectory { try? registry.backend(for: template.scheme).destroyStore(at: template) }
            }
            do {
                let store = try registry.open(template, model: versions.versions[0])
                try CompanySeed.seed(store, employees: Self.employees(kind))
                try store.close()
            }
            // Calibrate: how long the child takes to start, and to start and migrate.
            let calibration = kind.url(in: root.appendingPathComponent("calibration"), name: "store")
            defer {
                if kind.outlivesDirectory {
                    try? registry.backend(for: calibration.scheme).destroyStore(at: calibration)
                }
            }
            try copyStore(template, to: calibration, kind: kind, registry: registry, model: versions.versions[0])
            var start = Date()
            _ = try runProbe(probe, calibration, command: "start", batch: Self.batch(kind), killAfter: nil)
            let startup = Date().timeIntervalSince(start)
            start = Date()
            let whole = try runProbe(probe, calibration, command: "migrate", batch: Self.batch(kind), killAfter: nil)
            let duration = Date().timeIntervalSince(start)
            #expect(whole.status == 0, "the whole migration failed: \(whole.errors)")
            var generator = SystemRandomNumberGenerator()
            var killedMidway = 0
            var killedBeforeStart = 0
            var versionsSeen: [String: Int] = [:]
            // On a loaded machine the calibrated start-up can come out longer than the whole
            // run; the window then still spans from start-up to just past it. The window follows
            // the runs: a kill that came before the migration began moves its start later, a run
            // that finished before its kill moves its end earlier (and its start, once the window
            // is at its narrowest), so that one slow or fast calibration cannot make every kill
            // miss the migration.
            var earliest = startup * 0.8
            var latest = max(duration * 1.05, startup * 1.2)
            let narrowest = 0.002
            for run in 0..<Self.runs {
                let url = kind.url(in: root.appendingPathComponent("run\(run)"), name: "store")
                try copyStore(template, to: url, kind: kind, registry: registry, model: versions.versions[0])
                let delay = Double.random(in: earliest...latest, using: &generator)
                let result = try runProbe(probe, url, command: "migrate", batch: Self.batch(kind), killAfter: delay)
                switch (result.status, result.started) {
                case (nil, true): killedMidway += 1
                case (nil, false):
                    killedBeforeStart += 1
                    earliest = min(delay, latest - narrowest)
                case (.some, _):
                    // Finished before its kill. Once the window is as narrow as it goes, its start
                    // (a start-up calibrated under load) is past the migration too: move it earlier.
                    if delay - earliest <= narrowest { earliest /= 2 }
                    latest = max(delay, earliest + narrowest)
                }
                let metadata = try #require(try registry.backend(for: url.scheme).metadata(at: url))
                let version = try #require(
                    versions.version(withHash: metadata.modelVersionHash),
                    "run \(run): the store is at no whole version")
                versionsSeen[version.versionIdentifier, default: 0] += 1
                do {
                    let store = try registry.open(url, model: version)
                    defer { try? store.close() }
                    #expect(
                        try companyProblems(store, version: version.versionIdentifier, employees: Self.employees(kind))
                            == [], "run \(run) after \(delay)s at \(version.versionIdentifier)")
                }
                try StoreMigrator(versions: versions, registry: registry).migrate(storeAt: url)
                let store = try registry.open(url, model: versions.current)
                #expect(
                    try companyProblems(store, version: "v3", employees: Self.employees(kind)) == [],
                    "run \(run), migrated again")
                try store.close()
                if kind.outlivesDirectory { try registry.backend(for: url.scheme).destroyStore(at: url) }
                try? FileManager.default.removeItem(at: root.appendingPathComponent("run\(run)"))
            }
            print(
                "migration crash test (\(kind)): \(Self.runs) runs, \(killedMidway) kills landed mid-migration, \(killedBeforeStart) before it began, \(Self.runs - killedMidway - killedBeforeStart) after it ended; child start-up \(Int(startup * 1000)) ms, whole run \(Int(duration * 1000)) ms; versions found after the kill: \(versionsSeen.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))"
            )
            #expect(killedMidway > 0)
        }
    }

    /// Runs the probe on `url`; with `killAfter`, sends SIGKILL after that many seconds.
    /// Returns the exit status (`nil` when the kill landed before the child finished), whether
    /// the child had begun migrating, and what it wrote to standard error.
    private func runProbe(_ probe: URL, _ url: StoreURL, command: String, batch: Int, killAfter: Double?) throws -> (
        status: Int32?, started: Bool, errors: String
    ) {
        let process = Process()
        process.executableURL = probe
        // A PostgreSQL password goes to the child in PGPASSWORD, as a user would pass it, never
        // on its command line.
        var withoutPassword = url
        withoutPassword.password = nil
        process.arguments = [
            command, withoutPassword.unredactedDescription, Repository.companyModelDirectory.path, String(batch),
        ]
        if let password = url.password {
            process.environment = ProcessInfo.processInfo.environment.merging(["PGPASSWORD": password]) { $1 }
        }
        let output = Pipe.closedOnExec()
        process.standardOutput = output
        let errors = Pipe.closedOnExec()
        process.standardError = errors
        try process.run()
        var status: Int32?
        if let killAfter {
            usleep(useconds_t(killAfter * 1_000_000))
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
        if process.terminationReason == .exit { status = process.terminationStatus }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (status, text.contains("start"), errorText)
    }

    /// A store at `to` holding what the template at `from` holds: a copy of its files, or on
    /// PostgreSQL (a schema, which cannot be copied as a file) the same seed saved again.
    private func copyStore(_ from: StoreURL, to: StoreURL, kind: BackendKind, registry: StoreRegistry, model: Model)
        throws
    {
        if kind == .postgres {
            let store = try registry.open(to, model: model)
            defer { try? store.close() }
            try CompanySeed.seed(store, employees: Self.employees(kind))
            return
        }
        let target = URL(fileURLWithPath: to.location)
        try FileManager.default.createDirectory(
            at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: URL(fileURLWithPath: from.location), to: target)
    }
}
