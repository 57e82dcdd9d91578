import CStrataLMDB
import CStrataSQLite
import Foundation
import StrataCore
import StrataTortureKit
import Testing

@testable import StrataXML

/// One test per defect the reliability tests found (docs/Reliability.md, "Defects found").
@Suite struct DefectRegressionTests {
    /// Defect 1: the XML store renamed the new version over the file and then failed the save
    /// when syncing the directory failed, leaving the "failed" save on disk (visible after
    /// reopening) while the open store kept the old state and refused its next save as
    /// `storeBusy`. The replaced version is now kept under a second name until the directory
    /// is synced, and put back on failure.
    @Test func aFailedDirectorySyncAfterTheXMLRenamePutsThePreviousVersionBack() throws {
        let url = temporaryStoreURL("xml")
        let directory = (url.location as NSString).deletingLastPathComponent
        let store = try TortureStores.open(url)
        defer { try? store.close() }
        let driver = try TortureDriver.create(in: store, seed: 21)
        try driver.saveNext()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: url.location))
        XMLFileFaults.arm(.init(operation: .syncDirectory, countdown: 0, errorNumber: EIO), directory: directory)
        #expect(throws: StrataError.self) { try driver.saveNext() }
        #expect(XMLFileFaults.disarm(directory: directory) == 1)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: url.location)) == bytes, "the previous version is back in place")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains(".tmp-") }.isEmpty)
        let reloaded = try TortureDriver.load(from: store, seed: 21)
        #expect(reloaded.state.lastSave == 1)
        try reloaded.saveNext()
        #expect(reloaded.state.lastSave == 2, "the same store saves again (no storeBusy)")
    }

    /// Defect 2: a SQLite store whose metadata matched the model but whose schema did not (a
    /// damaged `sqlite_master`: one flipped byte renamed a column) opened fine and then failed
    /// every fetch with `internalInconsistency` ("no such column"). Opening now compiles every
    /// statement the store runs and reports `storeCorrupt`, naming the table.
    @Test func aSQLiteStoreWhoseSchemaDoesNotMatchItsModelIsStoreCorruptAtOpen() throws {
        let url = temporaryStoreURL("sqlite")
        let store = try TortureStores.open(url)
        try TortureDriver.create(in: store, seed: 22).saveNext()
        try store.close()
        var db: OpaquePointer?
        #expect(sqlite3_open_v2(url.location, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK)
        #expect(
            sqlite3_exec(db, "ALTER TABLE \"Group\" RENAME COLUMN \"revision\" TO \"revisiom\"", nil, nil, nil)
                == SQLITE_OK)
        sqlite3_close_v2(db)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: url.location))
        #expect {
            try TortureStores.open(url)
        } throws: { error in
            guard let error = error as? StrataError else { return false }
            return error.code == .storeCorrupt && error.location["table"] == "Group"
                && error.message.contains("revision")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: url.location)) == bytes, "the file is not touched")
    }

    /// Defect 4: every XML writer killed during a save left its temporary file (and, since the
    /// fix of defect 1, the `.previous` link) beside the store for ever: 149 files after 200
    /// kills. Opening a store for writing now removes those of processes that no longer exist,
    /// and leaves those of live processes alone.
    @Test func openingAnXMLStoreRemovesTheTemporaryFilesOfDeadWriters() throws {
        let url = temporaryStoreURL("xml")
        let directory = (url.location as NSString).deletingLastPathComponent
        let store = try TortureStores.open(url)
        try TortureDriver.create(in: store, seed: 23).saveNext()
        try store.close()
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let dead = gone.processIdentifier
        let stray = [".store.xml.tmp-\(dead)-1", ".store.xml.tmp-\(dead)-2.previous"]
        let live = [".store.xml.tmp-\(getpid())-3", ".store.xml.tmp-1-4"]
        for name in stray + live {
            _ = FileManager.default.createFile(atPath: directory + "/" + name, contents: Data("x".utf8))
        }
        let reopened = try TortureStores.open(url)
        defer { try? reopened.close() }
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains(".tmp-") })
        #expect(left == Set(live), "the files of dead writers are removed, those of live processes kept")
    }

    /// Defect 5: an LMDB store whose creation was killed between its two transactions (the
    /// empty named databases committed, `_meta` not yet written) was refused as `storeCorrupt`
    /// ("has no store identifier") at every later open: a store nobody could open or recreate
    /// without deleting it by hand. Opening now finishes the creation; a read-only open (or
    /// `createsIfMissing: false`) reports `storeNotFound`.
    @Test func anLMDBStoreWhoseCreationWasInterruptedIsCreatedAtTheNextOpen() throws {
        let url = temporaryStoreURL("lmdb")
        try FileManager.default.createDirectory(atPath: url.location, withIntermediateDirectories: true)
        var env: OpaquePointer?
        try #require(mdb_env_create(&env) == 0)
        mdb_env_set_maxdbs(env, 64)
        try #require(mdb_env_open(env, url.location, 0, 0o600) == 0)
        var txn: OpaquePointer?
        try #require(mdb_txn_begin(env, nil, 0, &txn) == 0)
        for name in ["_meta", "_seq", "e:Group", "e:Item"] {
            var dbi: MDB_dbi = 0
            try #require(mdb_dbi_open(txn, name, UInt32(MDB_CREATE), &dbi) == 0)
        }
        try #require(mdb_txn_commit(txn) == 0)
        mdb_env_close(env)

        #expect {
            try TortureStores.open(url, options: StoreOptions(createsIfMissing: false))
        } throws: { error in
            (error as? StrataError)?.code == .storeNotFound
                && (error as? StrataError)?.message.contains("interrupted") == true
        }
        let store = try TortureStores.open(url)
        defer { try? store.close() }
        let driver = try TortureDriver.create(in: store, seed: 24)
        try driver.saveNext()
        #expect(try TortureDriver.load(from: store, seed: 24).state == driver.state)
    }

    /// Defect 6: libxml2 was never initialised explicitly, so the first calls of two threads at
    /// once could crash inside its lazy global initialisation (ThreadSanitizer's CI run faulted in
    /// `xmlTextWriterStartDocument` while the XML conformance tests created stores in parallel).
    /// Each child process makes its first libxml2 calls from eight threads at the same moment.
    @Test func eightThreadsMakingAProcesssFirstXMLCallsAtOnceDoNotCrash() throws {
        for run in 0..<30 {
            let directory = temporaryDirectory()
            let child = try tortureChild(["xml-first-use", directory])
            child.finish()
            #expect(
                child.process.terminationReason == .exit && child.lines == ["ok"],
                "run \(run): \(child.process.terminationReason.rawValue) \(child.lines)")
        }
    }
}
