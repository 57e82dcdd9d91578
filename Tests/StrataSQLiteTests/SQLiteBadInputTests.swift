import CStrataSQLite
import Foundation
import StrataCore
import Testing
@testable import StrataSQLite
import StrataTestSupport

/// Each kind of bad input gives a typed error naming the path, never a crash, never half a save,
/// and never a change to the file.
@Suite struct SQLiteBadInputTests {
    private func expectError(_ code: StrataError.Code, path: String, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("expected \(code), nothing was thrown")
        } catch let error as StrataError {
            #expect(error.code == code, "\(error)")
            #expect(error.location["path"] == path || error.message.contains(path), "the error names the path: \(error)")
        } catch {
            Issue.record("not a StrataError: \(error)")
        }
    }

    /// A store with `count` Departments, closed.
    private func populatedStore(count: Int = 2000) throws -> StoreURL {
        let url = temporaryStoreURL()
        let model = try testModel()
        let store = try openStore(url, model: model)
        let ids = try store.obtainPermanentIDs(for: "Department", count: count)
        try store.save(SaveRequest(inserts: ids.map { makeSnapshot($0, in: model, ["name": .string(String(repeating: "d", count: 200))]) }))
        try store.close()
        return url
    }

    @Test func aFileThatIsNotSQLiteIsStoreCorruptAndUntouched() throws {
        let url = temporaryStoreURL()
        let text = Data("name,height\nlxz,1.7\n".utf8)
        try text.write(to: URL(fileURLWithPath: url.location))
        expectError(.storeCorrupt, path: url.location) { _ = try openStore(url) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: url.location)) == text)
        expectError(.storeCorrupt, path: url.location) { _ = try SQLiteBackend().metadata(at: url) }
    }

    @Test func aTruncatedFileIsStoreCorrupt() throws {
        let url = try populatedStore()
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: url.location))
        let size = try handle.seekToEnd()
        try handle.truncate(atOffset: size / 2)
        try handle.close()
        expectError(.storeCorrupt, path: url.location) { _ = try openStore(url) }
        let cut = temporaryStoreURL()
        try Data(try Data(contentsOf: URL(fileURLWithPath: url.location)).prefix(40)).write(to: URL(fileURLWithPath: cut.location))
        expectError(.storeCorrupt, path: cut.location) { _ = try openStore(cut) }
    }

    @Test func aCorruptFileIsStoreCorruptOnOpenOrFetch() throws {
        let url = try populatedStore()
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: url.location))
        let size = try handle.seekToEnd()
        // Keep the 100-byte header, scramble every page after the first.
        try handle.seek(toOffset: 4096)
        var generator = SystemRandomNumberGenerator()
        try handle.write(contentsOf: Data((0..<Int(size) - 4096).map { _ in UInt8.random(in: 0...255, using: &generator) }))
        try handle.close()
        expectError(.storeCorrupt, path: url.location) {
            let store = try openStore(url)
            _ = try store.fetch(FetchRequest(entityName: "Department"))
        }
    }

    @Test func aSQLiteDatabaseOfAnotherApplicationIsRefusedAndUntouched() throws {
        let url = temporaryStoreURL()
        var db: OpaquePointer?
        sqlite3_open(url.location, &db)
        sqlite3_exec(db, "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me')", nil, nil, nil)
        sqlite3_close(db)
        let before = try Data(contentsOf: URL(fileURLWithPath: url.location))
        expectError(.storeCorrupt, path: url.location) { _ = try openStore(url) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: url.location)) == before)
    }

    @Test func aDirectoryIsNotAStore() throws {
        let url = StoreURL(scheme: "sqlite", location: temporaryDirectory())
        expectError(.storeCorrupt, path: url.location) { _ = try openStore(url) }
    }

    @Test func anotherModelIsAModelMismatchNamingBothHashesAndTheFileIsUntouched() throws {
        let url = try populatedStore(count: 3)
        let before = try Data(contentsOf: URL(fileURLWithPath: url.location))
        let other = try testModel(version: "v2", extraAttribute: true)
        do {
            _ = try openStore(url, model: other)
            Issue.record("opened with another model")
        } catch let error as StrataError {
            #expect(error.code == .modelMismatch)
            #expect(error.message.contains(other.versionHash))
            #expect(error.message.contains(try testModel().versionHash))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: url.location)) == before)
        #expect(try openStore(url).fetch(FetchRequest(entityName: "Department")).snapshots().count == 3)
    }

    @Test func aReadOnlyFileOrDirectoryIsReadOnlyAndStillReadable() throws {
        // The probe drops root privileges, so this holds when the tests run as root too.
        let (url, store) = try makeProbeStore()
        try store.close()
        let directory = SQLiteFileInspection.directory(of: url.location)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.location)
        // Directory and file read-only on a writable filesystem: neither a write open nor (WAL
        // needs a -shm file; reading the file as immutable is safe only on read-only media, where
        // no owner can be writing it) a read.
        #expect(try runProbe(["open", url.location, "readwrite"]).output.hasPrefix("error readOnly \(url.location)"))
        #expect(try runProbe(["open", url.location, "readonly"]).output.hasPrefix("error readOnly \(url.location)"))
        // A writable file in a read-only directory: no -wal/-shm can be created.
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: url.location)
        #expect(try runProbe(["open", url.location, "readwrite"]).output.hasPrefix("error readOnly \(url.location)"))
        // A read-only file in a writable directory: refused for writing, readable read-only.
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.location)
        #expect(try runProbe(["open", url.location, "readwrite"]).output.hasPrefix("error readOnly \(url.location)"))
        #expect(try runProbe(["open", url.location, "readonly"]).output.hasPrefix("opened 0"))
        #expect(try runProbe(["open", url.location + ".missing", "readonly"]).output.hasPrefix("error storeNotFound"))
    }

    @Test func aFullDiskFailsTheSaveWithAnIOErrorAndLeavesNoHalfSave() throws {
        let (url, store) = try makeProbeStore()
        let id = try store.obtainPermanentIDs(for: "Entry", count: 1)[0]
        try store.save(SaveRequest(inserts: [makeSnapshot(id, in: store.model, ["tag": "before", "serial": 1])]))
        try store.close()
        // The probe limits its file size (RLIMIT_FSIZE) so that the WAL cannot grow: the
        // kernel refuses the write as a full disk would.
        let result = try runProbe(["fill", url.location, "262144"])
        #expect(result.output.hasPrefix("error io \(url.location)"), "\(result.output)")
        let reopened = try openStore(url, model: try ProbeModels.sqlite())
        let entries = try reopened.fetch(FetchRequest(entityName: "Entry")).snapshots()
        #expect(entries.map(\.objectID) == [id])
        let next = try reopened.obtainPermanentIDs(for: "Entry", count: 1)[0]
        try reopened.save(SaveRequest(inserts: [makeSnapshot(next, in: reopened.model, ["tag": "after", "serial": 2])]))
        #expect(try reopened.fetch(FetchRequest(entityName: "Entry")).snapshots().count == 2)
    }

    @Test func badURLsAreInvalidStoreURL() throws {
        do {
            _ = try SQLiteBackend().open(StoreURL(scheme: "sqlite", location: ""), model: try testModel(), options: StoreOptions())
            Issue.record("opened an empty path")
        } catch let error as StrataError {
            #expect(error.code == .invalidStoreURL)
        }
    }

    @Test func aWriterHoldingTheLockPastTheBusyTimeoutGivesStoreBusyAndWritesNothing() throws {
        let url = temporaryStoreURL()
        let store = try openStore(url, options: StoreOptions(options: ["busyTimeout": "50"]))
        let id = try store.obtainPermanentIDs(for: "Department", count: 1)[0]
        var other: OpaquePointer?
        sqlite3_open(url.location, &other)
        defer { sqlite3_close(other) }
        #expect(sqlite3_exec(other, "BEGIN IMMEDIATE", nil, nil, nil) == SQLITE_OK)
        expectError(.storeBusy, path: url.location) {
            try store.save(SaveRequest(inserts: [makeSnapshot(id, in: store.model, ["name": "d"])]))
        }
        sqlite3_exec(other, "ROLLBACK", nil, nil, nil)
        #expect(try store.fetch(FetchRequest(entityName: "Department")).snapshots().isEmpty)
        try store.save(SaveRequest(inserts: [makeSnapshot(id, in: store.model, ["name": "d"])]))
        #expect(try store.fetch(FetchRequest(entityName: "Department")).snapshots().count == 1)
    }
}
