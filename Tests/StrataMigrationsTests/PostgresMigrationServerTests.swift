import Foundation
import StrataCore
import StrataMigrations
import StrataTestSupport
import Testing

@testable import StrataPostgres

/// What only a PostgreSQL store's migration does: one transaction whose failure leaves the old
/// schema whole (DDL included), the history kept, and an advisory lock so that of several hosts
/// one migrates and the others wait for it, opening included. (The rule, stage and Company
/// migration tests run on PostgreSQL too, through `BackendKind.allCases`, when a server is set.)
@Suite(.enabled(if: PostgresTestServer.shouldRun, Comment(rawValue: PostgresTestServer.skipReason)))
struct PostgresMigrationServerTests {
    static let v1 = try! Model(
        versionIdentifier: "v1", entities: [Entity("Note", attributes: [Attribute("title", .string)])])
    /// Adds `rank` and a unique constraint on `title`.
    static let v2 = try! Model(
        versionIdentifier: "v2",
        entities: [
            Entity(
                "Note",
                attributes: [Attribute("title", .string), Attribute("rank", .integer64, defaultValue: .integer(3))],
                uniqueConstraints: [["title"]])
        ])

    /// A new store at v1 holding notes with `titles`.
    private func store(titles: [String]) throws -> StoreURL {
        let url = try PostgresTestServer.freshStoreURL()
        let store = try PostgresBackend().open(url, model: Self.v1, options: StoreOptions())
        defer { try? store.close() }
        let ids = try store.obtainPermanentIDs(for: "Note", count: titles.count)
        try store.save(
            SaveRequest(
                inserts: zip(ids, titles).map {
                    Snapshot(objectID: $0, version: 0, attributes: [.string($1)], relationships: [])
                }))
        return url
    }

    private func columns(of url: StoreURL) throws -> [String] {
        let connection = try PostgresConnection(settings: PostgresConnectionSettings(url))
        defer { connection.close() }
        let result = try connection.query(
            "SELECT column_name::text FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'Note' ORDER BY ordinal_position",
            [.text(url.query["schema"] ?? "")])
        return (0..<result.rowCount).map { result.string($0, 0) }
    }

    private func migrator() throws -> StoreMigrator {
        let registry = StoreRegistry()
        registry.register(PostgresBackend())
        return try StoreMigrator(
            versions: VersionedModel(name: "Notes", versions: [Self.v1, Self.v2]), registry: registry)
    }

    @Test func aStepThatFailsLeavesTheOldSchemaWhole() throws {
        // The new unique constraint fails at the end of the step, after the column was added.
        let url = try store(titles: ["same", "same"])
        defer { try? PostgresBackend().destroyStore(at: url) }
        let error = #expect(throws: StrataError.self) { try migrator().migrate(storeAt: url) }
        #expect(error?.code == .uniqueConstraint)
        #expect(try columns(of: url) == ["_pk", "_version", "title"])
        let store = try PostgresBackend().open(url, model: Self.v1, options: StoreOptions())
        defer { try? store.close() }
        #expect(try store.metadata().modelVersionIdentifier == "v1")
        #expect(try store.fetch(FetchRequest(entityName: "Note")).snapshots().count == 2)
    }

    @Test func theHistorySurvivesAndGoesOn() throws {
        let url = try store(titles: ["a", "b"])
        defer { try? PostgresBackend().destroyStore(at: url) }
        let before = try {
            let store = try PostgresBackend().open(url, model: Self.v1, options: StoreOptions())
            defer { try? store.close() }
            return try #require(store.capability((any HistoryRecording).self)).fetchHistory(HistoryRequest())
        }()
        try migrator().migrate(storeAt: url)
        let store = try PostgresBackend().open(url, model: Self.v2, options: StoreOptions())
        defer { try? store.close() }
        let history = try #require(store.capability((any HistoryRecording).self))
        #expect(try history.fetchHistory(HistoryRequest()) == before)
        #expect(try columns(of: url) == ["_pk", "_version", "title", "rank"])
        let notes = try store.fetch(FetchRequest(entityName: "Note")).snapshots()
        #expect(notes.map { $0.attributes[1] } == [.integer(3), .integer(3)])
        var changed = notes[0]
        changed.attributes[1] = .integer(5)
        try store.save(SaveRequest(updates: [.init(changed, expectedVersion: notes[0].version)]))
        #expect(try history.fetchHistory(HistoryRequest(after: before.last?.token)).map(\.token.sequence) == [2])
    }

    /// Another host's migration, as the migration lock it holds on a connection of its own.
    private func holdMigrationLock(of url: StoreURL) throws -> PostgresConnection {
        let connection = try PostgresConnection(settings: PostgresConnectionSettings(url))
        try connection.query(
            "SELECT pg_advisory_lock($1)", [.int64(PostgresMigrationLock.key(schema: url.query["schema"] ?? ""))])
        return connection
    }

    @Test func anOpenDuringAnotherHostsMigrationWaitsForItsEnd() throws {
        let url = try store(titles: ["a"])
        defer { try? PostgresBackend().destroyStore(at: url) }
        let other = try holdMigrationLock(of: url)
        let released = Locked(false)
        let opened = Locked<Bool?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            let store = try? PostgresBackend().open(url, model: Self.v1, options: StoreOptions())
            // Opened only once the migration lock was let go.
            opened.withLock { $0 = store != nil && released.withLock { $0 } }
            try? store?.close()
            done.signal()
        }.start()
        usleep(300_000)
        released.withLock { $0 = true }
        other.close()
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(opened.withLock { $0 } == true)
    }

    @Test func anOpenGetsStoreBusyWhenTheMigrationOutlastsTheWait() throws {
        let url = try store(titles: ["a"])
        defer { try? PostgresBackend().destroyStore(at: url) }
        let other = try holdMigrationLock(of: url)
        defer { other.close() }
        let error = #expect(throws: StrataError.self) {
            try PostgresBackend().open(url, model: Self.v1, options: StoreOptions())
        }
        #expect(error?.code == .storeBusy)
        #expect(throws: StrataError.self) {
            try PostgresBackend().lockForMigration(of: url, timeoutMilliseconds: 50)
        }
    }

    @Test func twoProcessesMigratingAtOnceLeaveOneMigratedStore() throws {
        let versions = try Repository.companyVersions()
        let url = try PostgresTestServer.freshStoreURL()
        defer { try? PostgresBackend().destroyStore(at: url) }
        do {
            let store = try PostgresBackend().open(url, model: versions.versions[0], options: StoreOptions())
            try CompanySeed.seed(store)
            try store.close()
        }
        let processes = try (0..<2).map { _ -> Process in
            let process = Process()
            process.executableURL = try builtExecutable("strata")
            process.arguments = [
                "migrate", url.unredactedDescription, "--model", Repository.companyModelDirectory.path, "--yes",
            ]
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            return process
        }
        for process in processes { process.waitUntilExit() }
        #expect(processes.map(\.terminationStatus) == [0, 0])
        let store = try PostgresBackend().open(url, model: versions.current, options: StoreOptions())
        defer { try? store.close() }
        #expect(try store.metadata().modelVersionIdentifier == versions.current.versionIdentifier)
        #expect(try companyProblems(store, version: "v3") == [])
    }
}
