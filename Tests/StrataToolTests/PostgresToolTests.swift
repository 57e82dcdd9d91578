import Foundation
import Strata
import StrataTestSupport
import StrataTransfer
import Testing

@testable import StrataPostgres

/// The `strata` tool on PostgreSQL stores: every command, copies to and from every other backend,
/// `copy --replace` refusing the same store under another spelling, `--delete-existing-store`
/// dropping the store's tables alone, and no password in any output.
@Suite(.enabled(if: PostgresTestServer.shouldRun, Comment(rawValue: PostgresTestServer.skipReason)))
struct PostgresToolTests {
    /// Runs `strata` with `STRATA_MODEL` set (as ``strata(_:input:)``) and `environment` added.
    static func run(_ arguments: [String], environment: [String: String] = [:], input: String? = nil) throws
        -> ProgramOutput
    {
        try runBuilt(
            "strata", arguments, in: Repository.root, input: input ?? "",
            environment: environment.merging(["STRATA_MODEL": Repository.companyModelDirectory.path]) { $1 })
    }

    /// A connection to the test server outside any store.
    static func admin() throws -> PostgresConnection {
        try PostgresConnection(settings: PostgresConnectionSettings(PostgresTestServer.requireURL()))
    }

    static func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    /// The object count `strata inspect --json` reports.
    static func objectCount(_ url: StoreURL, environment: [String: String] = [:]) throws -> Int? {
        let run = try run(["inspect", url.unredactedDescription, "--json"], environment: environment)
        guard run.status == 0, case .integer(let count)? = try parseJSON(run.output)["objects"] else { return nil }
        return Int(count)
    }

    /// A PostgreSQL store seeded with the Company graph.
    static func seeded(employees: Int = 60, _ query: [String: String] = [:]) throws -> StoreURL {
        let url = try PostgresTestServer.freshStoreURL(query)
        let store = try Fixture.open(url)
        defer { try? store.close() }
        try seedCompany(store, employees: employees)
        return url
    }

    static func objects(employees: Int) -> Int { 2 + 6 + employees + 12 }

    @Test func theDemoRunsOnPostgresAndTellsHowToLookInside() throws {
        let url = try PostgresTestServer.freshStoreURL()
        let demo = try Self.run(["demo", "--store", url.unredactedDescription, "--objects", "300"])
        #expect(demo.status == 0, "\(demo.output)\(demo.errors)")
        #expect(demo.output.contains("store identifier unchanged"), "\(demo.output)")
        #expect(demo.output.contains("Look inside with: psql '"), "\(demo.output)")
        #expect(demo.output.contains(#"\dt "\#(url.query["schema"]!)".*"#), "\(demo.output)")
        let employees = try Self.run([
            "query", url.unredactedDescription, "--entity", "Employee", "--count", "--json",
        ])
        #expect(employees.status == 0 && employees.output.contains("300"), "\(employees.output)\(employees.errors)")
    }

    @Test func everyReadingCommandAnswersAsOnSQLite() throws {
        let url = try Self.seeded(employees: 120)
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let reference = storeURL("sqlite", in: directory, name: "reference")
        let sqlite = try Fixture.open(reference)
        try seedCompany(sqlite, employees: 120)
        try sqlite.close()
        let text = url.unredactedDescription

        #expect(try Self.objectCount(url) == Self.objects(employees: 120))
        for arguments in [
            ["export"],
            [
                "query", "--entity", "Employee", "--where", "level >= 3 AND name BEGINSWITH[c] 'e'",
                "--sort", "-height,name", "--limit", "7", "--json",
            ],
            [
                "query", "--entity", "Employee", "--group-by", "department.name", "--min", "level", "--max", "height",
                "--json",
            ],
        ] {
            let postgres = try Self.run([arguments[0], text] + arguments.dropFirst())
            let reference = try Self.run([arguments[0], reference.description] + arguments.dropFirst())
            #expect(postgres.status == 0, "\(arguments): \(postgres.errors)")
            #expect(postgres.output == reference.output, "\(arguments)")
        }
        let validate = try Self.run(["validate", text, "--json"])
        #expect(validate.status == 0, "\(validate.output)\(validate.errors)")
        let history = try Self.run(["history", text, "--json"])
        #expect(history.status == 0, "\(history.errors)")
        #expect(history.output.split(separator: "\n").count == 1, "\(history.output)")

        // An export imported into a new PostgreSQL store reads back the same.
        let file = directory.appendingPathComponent("company.jsonl").path
        try Self.run(["export", text]).output.write(toFile: file, atomically: true, encoding: .utf8)
        let imported = try PostgresTestServer.freshStoreURL()
        let importing = try Self.run(["import", imported.unredactedDescription, file])
        #expect(importing.status == 0, "\(importing.errors)")
        #expect(try Self.objectCount(imported) == Self.objects(employees: 120))
        #expect(try Self.run(["export", imported.unredactedDescription]).output == Self.run(["export", text]).output)
    }

    @Test(arguments: Fixture.schemes)
    func copiesToAndFromEveryOtherBackendKeepEveryObject(_ scheme: String) throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try Fixture.open(storeURL(scheme, in: directory, name: "source"))
        defer { try? source.close() }
        try seedCompany(source, employees: 150)
        let postgres = try PostgresTestServer.freshStoreURL()
        let backend = try BuiltInBackends.registry.backend(for: postgres.scheme)
        let there = try StoreCopier(batchSize: 64).copy(
            from: source, to: postgres, backend: backend,
            sourceBackend: BuiltInBackends.registry.backend(for: scheme))
        #expect(there.total == Self.objects(employees: 150))
        let middle = try Fixture.open(postgres)
        defer { try? middle.close() }
        let back = storeURL(scheme, in: directory, name: "back")
        try StoreCopier(batchSize: 64).copy(
            from: middle, to: back, backend: BuiltInBackends.registry.backend(for: scheme), sourceBackend: backend)
        let returned = try Fixture.open(back)
        defer { try? returned.close() }
        let original = try Fixture.export(source)
        #expect(try Fixture.export(middle) == original, "\(scheme) -> postgres")
        #expect(try Fixture.export(returned) == original, "postgres -> \(scheme)")

        guard scheme != "memory" else { return }
        // The same through the tool, which runs in a process of its own.
        let viaTool = try PostgresTestServer.freshStoreURL()
        let copied = try Self.run(["copy", back.description, viaTool.unredactedDescription, "--batch-size", "50"])
        #expect(copied.status == 0, "\(copied.errors)")
        let again = storeURL(scheme, in: directory, name: "again")
        let copiedBack = try Self.run(["copy", viaTool.unredactedDescription, again.description])
        #expect(copiedBack.status == 0, "\(copiedBack.errors)")
        #expect(
            try Self.run(["export", again.description]).output == Self.run(["export", back.description]).output,
            "\(scheme) -> postgres -> \(scheme) through the tool")
    }

    /// `copy A B --replace` where B is A under another spelling: refused, A untouched.
    @Test func copyReplaceOntoTheSameStoreUnderAnotherSpellingIsRefused() throws {
        let url = try Self.seeded(employees: 30)
        let expected = Self.objects(employees: 30)
        var spellings: [(String, StoreURL, [String: String])] = []
        var localhost = url
        localhost.host = "localhost"
        spellings.append(("localhost", localhost, [:]))
        var scheme = url
        scheme.scheme = "postgresql"
        spellings.append(("postgresql://", scheme, [:]))
        var options = url
        options.query["pool"] = "3"
        options.query["connect_timeout"] = "7"
        spellings.append(("more options", options, [:]))
        var defaultPort = url
        defaultPort.port = nil
        spellings.append(("the port from PGPORT", defaultPort, ["PGPORT": String(url.port ?? 5432)]))
        let socketDirectory = "/tmp/strata-postgres-test-\(getuid())-\(url.port ?? 5432)"
        if FileManager.default.fileExists(atPath: socketDirectory) {
            var socket = StoreURL(scheme: "postgres", host: nil, location: url.location, query: url.query)
            socket.query["host"] = socketDirectory
            spellings.append(
                ("a unix socket", socket, ["PGUSER": url.user ?? "", "PGPORT": String(url.port ?? 5432)]))
        }
        for (name, spelling, environment) in spellings {
            let run = try Self.run(
                ["copy", url.unredactedDescription, spelling.unredactedDescription, "--replace"],
                environment: environment)
            #expect(run.status == 1 && run.errorCode == "invalidRequest", "\(name): \(run.output)\(run.errors)")
            #expect(run.errors.contains("same store"), "\(name): \(run.errors)")
            #expect(try Self.objectCount(url) == expected, "\(name): the store lost objects")
        }
        // Another schema of the same database is another store.
        let other = try PostgresTestServer.freshStoreURL()
        let copied = try Self.run(["copy", url.unredactedDescription, other.unredactedDescription, "--replace"])
        #expect(copied.status == 0, "\(copied.errors)")
        #expect(try Self.objectCount(other) == expected)
    }

    /// The default schema, `public`, written out or left out, in a database of the test's own.
    @Test func theDefaultSchemaSpelledOutIsTheSameStore() throws {
        let admin = try Self.admin()
        defer { admin.close() }
        let database = "strata_tool_" + UUID().uuidString.prefix(8).lowercased()
        try admin.execute("CREATE DATABASE \(Self.quoted(database))")
        defer { try? admin.execute("DROP DATABASE \(Self.quoted(database)) WITH (FORCE)") }
        var plain = try PostgresTestServer.requireURL()
        plain.location = "/" + database
        let store = try Fixture.open(plain)
        try seedCompany(store, employees: 10)
        try store.close()
        var spelled = plain
        spelled.query["schema"] = "public"
        for (from, to) in [(plain, spelled), (spelled, plain)] {
            let run = try Self.run(["copy", from.unredactedDescription, to.unredactedDescription, "--replace"])
            #expect(run.status == 1 && run.errorCode == "invalidRequest", "\(run.output)\(run.errors)")
        }
        #expect(try Self.objectCount(plain) == Self.objects(employees: 10))
    }

    /// `--delete-existing-store` drops the store's tables and nothing else of its schema. The
    /// schema then holds a table that is not the store's, so the demo refuses to make a new store
    /// there, saying why.
    @Test func deletingTheStoreDropsItsTablesAndNothingElseOfItsSchema() throws {
        let url = try PostgresTestServer.freshStoreURL()
        let schema = Self.quoted(url.query["schema"]!)
        let first = try Self.run(["demo", "--store", url.unredactedDescription, "--objects", "40"])
        #expect(first.status == 0, "\(first.errors)")
        let admin = try Self.admin()
        defer { admin.close() }
        try admin.execute("CREATE TABLE \(schema).notes (line text); INSERT INTO \(schema).notes VALUES ('kept')")
        let again = try Self.run([
            "demo", "--store", url.unredactedDescription, "--objects", "20", "--delete-existing-store",
        ])
        #expect(again.output.contains("deleted the existing store"), "\(again.output)\(again.errors)")
        #expect(again.status == 1 && again.errors.contains("no Strata store"), "\(again.output)\(again.errors)")
        let tables = try admin.queryOnce(
            "SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY tablename", [.text(url.query["schema"]!)])
        #expect((0..<tables.rowCount).map { tables.string($0, 0) } == ["notes"])
        let notes = try admin.queryOnce("SELECT line FROM \(schema).notes")
        #expect(notes.rowCount == 1 && notes.string(0, 0) == "kept")
    }

    /// `copy --replace` onto another PostgreSQL store that holds objects replaces it.
    @Test func copyReplaceOntoAnotherStoreReplacesIt() throws {
        let destination = try Self.seeded(employees: 40)
        let source = try Self.seeded(employees: 5)
        let refused = try Self.run(["copy", source.unredactedDescription, destination.unredactedDescription])
        #expect(refused.status == 1 && refused.errorCode == "invalidRequest", "\(refused.errors)")
        #expect(try Self.objectCount(destination) == Self.objects(employees: 40))
        let replaced = try Self.run([
            "copy", source.unredactedDescription, destination.unredactedDescription, "--replace",
        ])
        #expect(replaced.status == 0, "\(replaced.errors)")
        #expect(try Self.objectCount(destination) == Self.objects(employees: 5))
    }

    @Test func migrateBringsAnImportedStoreToTheCurrentVersion() throws {
        let url = try PostgresTestServer.freshStoreURL()
        var lines = #"{"entity":"Department","ref":"d0","attributes":{"name":"engineering"}}"# + "\n"
        for i in 0..<25 {
            lines +=
                #"{"entity":"Employee","ref":"e\#(i)","attributes":{"name":"employee \#(i)","height":1.75},"relationships":{"department":"d0"}}"#
                + "\n"
        }
        let imported = try Self.run(["import", url.unredactedDescription, "-", "--model-version", "v1"], input: lines)
        #expect(imported.status == 0, "\(imported.errors)")
        let plan = try Self.run(["migrate", url.unredactedDescription, "--dry-run"])
        #expect(plan.status == 0 && plan.output.contains("migrate from v1 to v3"), "\(plan.output)\(plan.errors)")
        let migrated = try Self.run(["migrate", url.unredactedDescription, "--yes", "--json"])
        #expect(migrated.status == 0, "\(migrated.output)\(migrated.errors)")
        let inspect = try Self.run(["inspect", url.unredactedDescription, "--json"])
        #expect(try parseJSON(inspect.output)["modelVersion"] == .string("v3"), "\(inspect.output)")
        #expect(try Self.objectCount(url) == 26)
        let valid = try Self.run(["validate", url.unredactedDescription])
        #expect(valid.status == 0, "\(valid.output)\(valid.errors)")
    }

    /// Every command, run with a password in the URL (one that needs percent-encoding), prints it
    /// nowhere: not in its output, its errors, its `--json` or its trace log.
    @Test func noCommandPrintsThePassword() throws {
        let admin = try Self.admin()
        defer { admin.close() }
        let role = "strata_tool_" + UUID().uuidString.prefix(8).lowercased()
        let password = "Pw@" + UUID().uuidString.prefix(12)
        try admin.execute("CREATE ROLE \(Self.quoted(role)) LOGIN SUPERUSER PASSWORD '\(password)'")
        defer { try? admin.execute("DROP ROLE IF EXISTS \(Self.quoted(role))") }
        func withRole(_ url: StoreURL, wrongPassword: Bool = false) -> String {
            var url = url
            url.user = role
            url.password = wrongPassword ? password + "-wrong" : password
            return url.unredactedDescription
        }
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = withRole(try PostgresTestServer.freshStoreURL())
        let older = withRole(try PostgresTestServer.freshStoreURL())
        let copy = withRole(try PostgresTestServer.freshStoreURL())
        let sqlite = storeURL("sqlite", in: directory, name: "copy").description
        let file = directory.appendingPathComponent("lines.jsonl").path
        try #"{"entity":"Department","ref":"d","attributes":{"name":"x"}}"#.write(
            toFile: file, atomically: true, encoding: .utf8)
        let runs: [[String]] = [
            ["demo", "--store", store, "--objects", "30", "--log-level", "trace"],
            ["inspect", store], ["inspect", store, "--json", "--log-level", "trace"],
            ["query", store, "--entity", "Employee", "--limit", "2"],
            ["query", store, "--entity", "Employee", "--count", "--json"],
            ["export", store, "--entity", "Department"], ["validate", store], ["validate", store, "--json"],
            ["history", store, "--limit", "1"], ["history", store, "--json", "--limit", "1"],
            ["copy", store, sqlite], ["copy", sqlite, copy, "--json"], ["copy", store, store, "--replace"],
            ["import", older, file, "--model-version", "v1"], ["migrate", older, "--dry-run"],
            ["migrate", older, "--yes", "--log-level", "debug"],
            ["inspect", withRole(try PostgresTestServer.freshStoreURL(), wrongPassword: true)],
            ["inspect", withRole(try PostgresTestServer.freshStoreURL(), wrongPassword: true), "--json"],
        ]
        let encoded = password.replacingOccurrences(of: "@", with: "%40")
        var shownStars = 0
        for arguments in runs {
            let run = try Self.run(arguments)
            let printed = run.output + run.errors
            for secret in [password, encoded, String(password.dropFirst(3))] {
                #expect(!printed.contains(secret), "\(arguments[0]) printed the password: \(printed.prefix(2000))")
            }
            if printed.contains("\(role):***@") { shownStars += 1 }
        }
        #expect(shownStars >= runs.count / 2, "the URLs were printed with *** in \(shownStars) of \(runs.count) runs")
    }
}
