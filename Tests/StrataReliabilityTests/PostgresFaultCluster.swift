import Foundation
import StrataCore
import StrataTestSupport

@testable import StrataPostgres

/// A PostgreSQL cluster of the fault tests' own (`scripts/postgres-test-server` on port 54339), so
/// that killing its processes and stopping it never touches the cluster the other tests share.
///
/// Its commits are synchronous (`synchronous_commit = on`, set with `ALTER SYSTEM`): the shared
/// cluster commits asynchronously for speed, and a crash may then lose a commit the client was
/// told of, which is not the fault under test.
final class PostgresFaultCluster: Sendable {
    static let port = 54339

    /// Whether the fault tests run: with a test server set (as for every PostgreSQL test) and
    /// PostgreSQL's server programs installed, since they start a cluster of their own; or when
    /// a server is required (CI), where a missing one fails them.
    static var shouldRun: Bool {
        PostgresTestServer.isRequired || (PostgresTestServer.url != nil && serverProgramsInstalled)
    }

    static let skipReason =
        PostgresTestServer.skipReason + ", and PostgreSQL's server programs (initdb, pg_ctl: Debian's postgresql)"

    /// Whether `pg_ctl` is installed where the test server script looks for it.
    static let serverProgramsInstalled: Bool = {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        return versions.contains {
            FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/\($0)/bin/pg_ctl")
        }
            || which("pg_ctl") != nil
    }()
    /// The database's URL: `postgres://strata:strata@127.0.0.1:54339/strata`.
    let url: StoreURL

    /// Starts the cluster (making it the first time).
    ///
    /// - Throws: when the script fails (no PostgreSQL server programs installed).
    init() throws {
        let started = try Self.script("start")
        guard started.status == 0, let url = StoreURL(started.output.trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            throw StrataError(
                .serverUnavailable, "scripts/postgres-test-server start failed: \(started.errors)",
                location: ["port": String(Self.port)])
        }
        self.url = url
        let admin = try waitUntilAccepting()
        defer { admin.close() }
        try admin.execute("ALTER SYSTEM SET synchronous_commit = on")
        try admin.execute("SELECT pg_reload_conf()")
    }

    /// Runs `scripts/postgres-test-server COMMAND` for this cluster, its standard output and
    /// standard error going to files of their own: `pg_ctl` warns on standard error (for example
    /// "another server might be running" when a killed cluster left its pid file), and only
    /// standard output carries the URL.
    ///
    /// Spawned and waited for with `posix_spawn` and `waitpid` rather than Foundation's
    /// `Process`, which after a few hundred children sometimes misses one's exit and waits forever.
    private static func script(_ command: String) throws -> ProgramOutput {
        let script = Repository.root.appendingPathComponent("scripts/postgres-test-server").path
        let directory = TemporaryDirectory()
        let output = directory.path + "/output"
        let errors = directory.path + "/errors"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var variables = ProcessInfo.processInfo.environment
        variables["STRATA_TEST_POSTGRES_PORT"] = String(port)
        let arguments: [UnsafeMutablePointer<CChar>?] = [strdup(script), strdup(command), nil]
        let environment: [UnsafeMutablePointer<CChar>?] = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in arguments + environment { free(pointer) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, script, &actions, nil, arguments, environment)
        guard spawned == 0 else {
            throw StrataError(.io, "cannot run \(script): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let exited = status & 0x7f == 0
        return ProgramOutput(
            status: exited ? (status >> 8) & 0xff : 128 + (status & 0x7f),
            output: (try? String(contentsOfFile: output, encoding: .utf8)) ?? "",
            errors: (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")
    }

    /// A store URL of its own on the cluster: a fresh PostgreSQL schema.
    func freshStoreURL(_ query: [String: String] = [:]) -> StoreURL {
        var url = url
        url.query["schema"] = "f_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(20)
        for (key, value) in query { url.query[key] = value }
        return url
    }

    /// A connection outside any store, for setting up faults and for checking.
    func connect() throws -> PostgresConnection {
        try PostgresConnection(settings: PostgresConnectionSettings(url))
    }

    /// Connects as soon as the server accepts connections again (after a crash it recovers
    /// first), trying for up to `seconds`.
    ///
    /// - Throws: the last connection error when it never does.
    func waitUntilAccepting(seconds: Double = 60) throws -> PostgresConnection {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            do {
                let connection = try connect()
                _ = try connection.queryOnce("SELECT 1")
                return connection
            } catch let error as StrataError where error.code == .serverUnavailable && Date() < deadline {
                usleep(20_000)
            }
        }
    }

    /// Stops the whole server at once (`pg_ctl stop -m immediate`): every backend process ends
    /// without finishing its transaction, as in a crash.
    func crash() throws {
        let run = try Self.script("crash")
        guard run.status == 0 else {
            throw StrataError(.io, "scripts/postgres-test-server crash failed: \(run.errors)")
        }
    }

    /// Starts the server again after ``crash()`` and waits until it accepts connections.
    func restart() throws {
        let run = try Self.script("start")
        guard run.status == 0 else {
            throw StrataError(.io, "scripts/postgres-test-server start failed: \(run.errors)")
        }
        try waitUntilAccepting().close()
    }

    /// Kills the server process serving one connection with SIGKILL. The postmaster then ends
    /// every other session too and recovers, as after a crash.
    func killBackend(_ pid: Int32) {
        kill(pid, SIGKILL)
    }

    /// The process id of a session of the cluster that waits for a lock (a save stopped by a
    /// lock `admin` holds), other than `admin`'s own; waits up to `seconds` for one to appear.
    func waitingSession(besides admin: PostgresConnection, seconds: Double = 30) throws -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let found = try admin.queryOnce(
                "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid() LIMIT 1")
            if found.rowCount > 0 { return Int32(found.int64(0, 0)) }
            usleep(2_000)
        }
        return nil
    }
}
