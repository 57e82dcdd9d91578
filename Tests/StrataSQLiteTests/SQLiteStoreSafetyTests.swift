import CStrataSQLite
import Foundation
import StrataCore
import Testing

@testable import StrataSQLite

/// Creating, locking and sharing a SQLite store safely: a store exists whole or not at all, one
/// store under two spellings is one store, and a store migrated under an open one refuses the
/// open one's next save.
@Suite struct SQLiteStoreSafetyTests {
    /// Several threads creating one store at once all end up with the one store: one creates it,
    /// the others open it. (Two processes got `storeCorrupt`.)
    @Test func threadsCreatingOneStoreAtOnceShareOneStore() throws {
        for round in 0..<20 {
            let url = temporaryStoreURL()
            let model = try testModel()
            let identifiers = Locked<[String]>([])
            let failures = Locked<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 6) { _ in
                do {
                    let store = try SQLiteBackend().open(url, model: model, options: StoreOptions())
                    identifiers.withLock { $0.append(store.identifier) }
                    try store.close()
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            #expect(failures.withLock { $0 }.isEmpty, "round \(round)")
            #expect(Set(identifiers.withLock { $0 }).count == 1, "round \(round)")
            let directory = SQLiteFileInspection.directory(of: url.location)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains(".creating-") }
            #expect(leftovers.isEmpty, "round \(round): \(leftovers)")
        }
    }

    /// What a creation killed midway left (a 0-byte file from older versions, a database with no
    /// tables, a temporary file of a dead process) is no store: the metadata says so, and an
    /// open creates the store.
    @Test func whatAnInterruptedCreationLeftIsNoStore() throws {
        let url = temporaryStoreURL()
        let backend = SQLiteBackend()
        #expect(FileManager.default.createFile(atPath: url.location, contents: Data()))
        #expect(try backend.metadata(at: url) == nil)
        try openStore(url).close()
        #expect(try backend.metadata(at: url) != nil)

        let tableless = temporaryStoreURL()
        var db: OpaquePointer?
        #expect(sqlite3_open(tableless.location, &db) == SQLITE_OK)
        #expect(sqlite3_exec(db, "PRAGMA journal_mode = WAL", nil, nil, nil) == SQLITE_OK)
        sqlite3_close(db)
        #expect(try backend.metadata(at: tableless) == nil)
        try openStore(tableless).close()

        // A dead process's temporary file is removed by the next creation beside it.
        let fresh = temporaryStoreURL()
        let directory = SQLiteFileInspection.directory(of: fresh.location)
        let dead = directory + "/" + SQLiteStoreCreation.temporaryPrefix(of: "store.sqlite") + "999999999-1"
        #expect(FileManager.default.createFile(atPath: dead, contents: Data("half".utf8)))
        // Left a minute ago: a creator locks its file a moment after making it, so only an
        // unlocked file older than that is abandoned.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: dead)
        try openStore(fresh).close()
        #expect(!FileManager.default.fileExists(atPath: dead))
    }

    /// A write-ahead log left by a deleted store is never replayed into a new store of that
    /// name: an empty one is removed, and one holding data (committed transactions of a store
    /// whose database file was moved away) is refused, never deleted.
    @Test func aDeletedStoresWriteAheadLogIsNeitherReplayedNorDeleted() throws {
        let url = temporaryStoreURL()
        try "committed pages".write(toFile: url.location + "-wal", atomically: false, encoding: .utf8)
        let refused = #expect(throws: StrataError.self) { try openStore(url) }
        #expect(refused?.code == .storeCorrupt)
        #expect(try String(contentsOfFile: url.location + "-wal", encoding: .utf8) == "committed pages")
        #expect(!FileManager.default.fileExists(atPath: url.location))

        try Data().write(to: URL(fileURLWithPath: url.location + "-wal"))
        let store = try openStore(url)
        let id = try store.obtainPermanentIDs(for: "Department", count: 1)[0]
        try store.save(SaveRequest(inserts: [makeSnapshot(id, in: store.model, ["name": "one"])]))
        try store.close()
        #expect(try openStore(url).fetch(FetchRequest(entityName: "Department")).snapshots().count == 1)
    }

    /// VACUUM, ANALYZE and an index a user adds change SQLite's schema version but not the
    /// schema the model describes: the open store keeps saving.
    @Test func maintenanceUnderAnOpenStoreDoesNotRefuseItsNextSave() throws {
        let url = temporaryStoreURL()
        let store = try openStore(url)
        defer { try? store.close() }
        let ids = try store.obtainPermanentIDs(for: "Department", count: 4)
        try store.save(SaveRequest(inserts: [makeSnapshot(ids[0], in: store.model, ["name": "before"])]))
        for (index, sql) in ["VACUUM", "ANALYZE", "CREATE INDEX userIndex ON \"Department\" (\"name\")"].enumerated() {
            var db: OpaquePointer?
            #expect(sqlite3_open(url.location, &db) == SQLITE_OK)
            #expect(sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK, "\(sql)")
            sqlite3_close(db)
            try store.save(SaveRequest(inserts: [makeSnapshot(ids[index + 1], in: store.model, ["name": .string("after \(sql)")])]))
        }
        #expect(try store.fetch(FetchRequest(entityName: "Department")).snapshots().count == 4)
    }

    /// A store whose schema another program changed after it was opened (a migration that
    /// ignored the store lock) refuses its next save with `modelMismatch` and writes nothing,
    /// instead of writing rows of its model's shape into the new schema.
    @Test func aSchemaChangedUnderAnOpenStoreRefusesItsNextSave() throws {
        let url = temporaryStoreURL()
        let store = try openStore(url)
        defer { try? store.close() }
        let ids = try store.obtainPermanentIDs(for: "Department", count: 2)
        try store.save(SaveRequest(inserts: [makeSnapshot(ids[0], in: store.model, ["name": "before"])]))
        var db: OpaquePointer?
        #expect(sqlite3_open(url.location, &db) == SQLITE_OK)
        // What a migration to a model whose departments have a budget does.
        #expect(sqlite3_exec(db, "ALTER TABLE \"Department\" ADD COLUMN \"budget\" REAL NOT NULL DEFAULT 1", nil, nil, nil) == SQLITE_OK)
        #expect(sqlite3_exec(db, "UPDATE \"_strata_metadata\" SET \"value\" = 'v2' WHERE \"key\" = 'modelVersionIdentifier'", nil, nil, nil) == SQLITE_OK)
        #expect(sqlite3_exec(db, "UPDATE \"_strata_metadata\" SET \"value\" = 'a-later-hash' WHERE \"key\" = 'modelVersionHash'", nil, nil, nil) == SQLITE_OK)
        sqlite3_close(db)
        let error = #expect(throws: StrataError.self) {
            try store.save(SaveRequest(inserts: [makeSnapshot(ids[1], in: store.model, ["name": "after"])]))
        }
        #expect(error?.code == .modelMismatch)
        #expect(try store.fetch(FetchRequest(entityName: "Department")).snapshots().count == 1)
    }

    /// The store lock is the same for every spelling of the store's path: a migration's
    /// exclusive lock waits for an open made through a symbolic link, and gives up with
    /// `storeBusy`.
    @Test func theStoreLockIsSharedByEverySpellingOfThePath() throws {
        let url = temporaryStoreURL()
        try openStore(url).close()
        let directory = SQLiteFileInspection.directory(of: url.location)
        try FileManager.default.createSymbolicLink(atPath: directory + "/alias.sqlite", withDestinationPath: url.location)
        let aliased = try openStore(StoreURL(scheme: "sqlite", location: directory + "/./alias.sqlite"))
        let spellings = [url.location, directory + "/../" + (directory as NSString).lastPathComponent + "/store.sqlite"]
        for spelling in spellings {
            let busy = #expect(throws: StrataError.self) {
                _ = try SQLiteBackend().lockForMigration(of: StoreURL(scheme: "sqlite", location: spelling), timeoutMilliseconds: 50)
            }
            #expect(busy?.code == .storeBusy, "\(spelling)")
        }
        try aliased.close()
        let lock = try SQLiteBackend().lockForMigration(of: url, timeoutMilliseconds: 50)
        #expect(lock != nil)
        // The exclusive holder's own thread may open the store (a migration does); another
        // thread waits and gives up.
        try openStore(url).close()
        let other = Locked<StrataError?>(nil)
        let thread = Thread {
            do { try openStore(url, options: StoreOptions(options: ["busyTimeout": "50"])).close() } catch let error as StrataError { other.withLock { $0 = error } } catch {}
        }
        thread.start()
        while !thread.isFinished { usleep(1_000) }
        #expect(other.withLock { $0 }?.code == .storeBusy)
        lock?.release()
        try openStore(url).close()
    }

    /// A FIFO, a socket or a device at a `sqlite:` path is refused without being opened: a FIFO
    /// blocked, and a device was written a database onto (`sqlite:/dev/null` ran a COMMIT on it).
    @Test func somethingOtherThanARegularFileIsRefusedWithoutOpeningIt() throws {
        let directory = temporaryDirectory()
        #expect(mkfifo(directory + "/fifo.sqlite", 0o600) == 0)
        for (path, kind) in [(directory + "/fifo.sqlite", "FIFO"), ("/dev/null", "character device")] {
            let url = StoreURL(scheme: "sqlite", location: path)
            for readOnly in [false, true] {
                let error = #expect(throws: StrataError.self) { try openStore(url, options: StoreOptions(isReadOnly: readOnly)) }
                #expect(error?.code == .storeCorrupt, "\(path)")
                #expect(error?.location["fileType"] == kind, "\(path)")
            }
            let metadata = #expect(throws: StrataError.self) { try SQLiteBackend().metadata(at: url) }
            #expect(metadata?.code == .storeCorrupt)
            #expect(access(path + ".strata-lock", F_OK) != 0, "no lock file is made beside \(path)")
        }
    }
}
