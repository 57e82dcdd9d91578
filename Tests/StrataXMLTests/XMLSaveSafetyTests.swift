import Foundation
import StrataCore
import Testing
@testable import StrataXML
import StrataTestSupport

/// The error a test hook throws to stop a save at the worst moment.
struct SimulatedCrash: Error {}

/// Collects what a hook observed (hooks run inside the store's save, on the caller's thread).
final class Observations: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String: String] = [:]
    subscript(key: String) -> String? {
        get { lock.withLock { values[key] } }
        set { lock.withLock { values[key] = newValue } }
    }
}

@Suite struct XMLSaveSafetyTests {
    func insertItems(_ store: XMLStore, _ names: [String]) throws {
        let ids = try store.obtainPermanentIDs(for: "Item", count: names.count)
        try store.save(SaveRequest(inserts: zip(ids, names).map { itemSnapshot($0, name: $1) }))
    }

    func names(_ store: XMLStore) throws -> [Value] {
        try store.fetch(FetchRequest(entityName: "Item")).snapshots().map { $0.attributes[0] }
    }

    @Test func aSaveInterruptedBetweenWritingAndRenamingLeavesTheOldFileIntact() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("store.xml")
        let store = try openStore(dir.url())
        try insertItems(store, ["old"])
        let old = contents(path)
        let seen = Observations()
        store.setBeforeRenameHook {
            // The new version is complete and synced in a temporary file; the store file is the old one.
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path).withoutStoreLocks) ?? []
            seen["temporary"] = names.first { $0.hasPrefix(".store.xml.tmp-") }
            if let temporary = seen["temporary"] {
                seen["temporaryHasNew"] = String(String(decoding: contents(dir.file(temporary)), as: UTF8.self).contains("name=\"new\""))
            }
            seen["oldIntact"] = String(contents(path) == old)
            let reader = try? XMLBackend().openStore(dir.url(), model: TestModels.allTypes, options: StoreOptions(isReadOnly: true))
            seen["oldLoadable"] = String((try? reader?.fetch(FetchRequest(entityName: "Item")).snapshots().count) == 1)
            throw SimulatedCrash()
        }
        #expect(throws: SimulatedCrash.self) { try insertItems(store, ["new"]) }
        #expect(seen["temporary"] != nil)
        #expect(seen["temporaryHasNew"] == "true")
        #expect(seen["oldIntact"] == "true")
        #expect(seen["oldLoadable"] == "true")
        #expect(contents(path) == old)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).withoutStoreLocks.sorted() == ["store.xml", "store.xml.keys", "store.xml.lock"])
        #expect(try names(store) == ["old"], "memory changes only once the file is in place")

        store.setBeforeRenameHook(nil)
        try insertItems(store, ["new"])
        #expect(try names(openStore(dir.url(), options: StoreOptions(isReadOnly: true))) == ["old", "new"])
    }

    @Test func aTemporaryFileLeftByACrashIsIgnored() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try openStore(dir.url())
        try insertItems(store, ["kept"])
        try store.close()
        // What a process killed before its rename leaves: a partial next version beside the store.
        write("<?xml version=\"1.0\"?>\n<strata-store format=\"1\"", to: dir.file(".store.xml.tmp-99999-1"))
        let reopened = try openStore(dir.url())
        #expect(try names(reopened) == ["kept"])
        try insertItems(reopened, ["more"])
        #expect(try names(openStore(dir.url())) == ["kept", "more"])
        try reopened.close()
        try XMLBackend().destroyStore(at: dir.url())
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).withoutStoreLocks.isEmpty)
    }

    @Test func aSecondWriterGetsStoreBusyWhileTheLockIsHeld() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try openStore(dir.url())
        let before = contents(dir.file("store.xml"))
        let other = try XMLFileLock(storePath: dir.file("store.xml"))
        try other.lock(timeoutMilliseconds: 0, storePath: dir.file("store.xml"))
        let error = strataError { try insertItems(store, ["blocked"]) }
        #expect(error?.code == .storeBusy)
        #expect(error?.message.contains("lockTimeout") == true)
        #expect(contents(dir.file("store.xml")) == before)
        #expect(try names(store).isEmpty)
        other.unlock()
        try insertItems(store, ["after"])
        #expect(try names(store) == ["after"])
    }

    @Test func aWriterWithALockTimeoutWaitsForTheOtherSave() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try openStore(dir.url(), options: StoreOptions(options: ["lockTimeout": "5000"]))
        let other = try XMLFileLock(storePath: dir.file("store.xml"))
        try other.lock(timeoutMilliseconds: 0, storePath: dir.file("store.xml"))
        let release = Thread { usleep(150_000); other.unlock() }
        release.start()
        let start = Date()
        try insertItems(store, ["waited"])
        #expect(Date().timeIntervalSince(start) >= 0.1)
        #expect(try names(store) == ["waited"])
    }

    @Test func aBadLockTimeoutIsAnInvalidOption() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let error = strataError { _ = try openStore(dir.url(), options: StoreOptions(options: ["lockTimeout": "soon"])) }
        #expect(error?.code == .invalidOption)
    }

    @Test func aStoreWhoseFileWasSavedByAnotherWriterRefusesToOverwriteIt() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let first = try openStore(dir.url())
        let second = try openStore(dir.url())
        try insertItems(first, ["first"])
        let saved = contents(dir.file("store.xml"))
        let error = strataError { try insertItems(second, ["second"]) }
        #expect(error?.code == .storeBusy)
        #expect(error?.message.contains("changed on disk") == true)
        #expect(contents(dir.file("store.xml")) == saved, "the other writer's save is not lost")
        #expect(try names(openStore(dir.url())) == ["first"])
    }

    @Test func newFilesAreReadableByTheOwnerOnly() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try openStore(dir.url())
        try insertItems(store, ["x"])
        for name in ["store.xml", "store.xml.lock"] {
            let mode = try FileManager.default.attributesOfItem(atPath: dir.file(name))[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(name)")
        }
    }

    @Test func aConflictWritesNothing() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try openStore(dir.url())
        try insertItems(store, ["a", "b"])
        let before = contents(dir.file("store.xml"))
        let snapshots = try store.fetch(FetchRequest(entityName: "Item")).snapshots()
        let error = strataError {
            try store.save(SaveRequest(
                inserts: [itemSnapshot(try store.obtainPermanentIDs(for: "Item", count: 1)[0], name: "c")],
                updates: snapshots.map { SaveRequest.Update($0, expectedVersion: 7) }))
        }
        #expect(error?.code == .conflict)
        #expect(error?.conflicts.map(\.objectID) == snapshots.map(\.objectID))
        #expect(contents(dir.file("store.xml")) == before)
    }

    @Test func aReferenceToAnObjectThatDoesNotExistIsRefusedBeforeWriting() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try openStore(dir.url())
        let before = contents(dir.file("store.xml"))
        let employee = TestModels.allTypes.entity(named: "Employee")!
        var snapshot = Snapshot(objectID: try store.obtainPermanentIDs(for: "Employee", count: 1)[0], entity: employee)
        snapshot.attributes[0] = "orphan"
        snapshot.relationships[0] = .toOne(ObjectID(entityName: "Department", storeIdentifier: store.identifier, primaryKey: 77))
        let error = strataError { try store.save(SaveRequest(inserts: [snapshot])) }
        #expect(error?.code == .invalidObjectID)
        #expect(contents(dir.file("store.xml")) == before)
    }

    @Test func aValueTooLongForLibxml2IsRefusedBeforeWriting() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try openStore(dir.url())
        let id = try store.obtainPermanentIDs(for: "Item", count: 1)[0]
        let error = strataError { try store.save(SaveRequest(inserts: [itemSnapshot(id, name: "big", ["blob": .binary(Data(count: 8_000_000))])])) }
        #expect(error?.code == .unsupported)
        #expect(error?.location["key"] == "blob")
    }
}

@Suite struct XMLReadOnlyTests {
    @Test func aReadOnlyStoreHandsOutNoKeysAndWritesNothing() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        try openStore(dir.url()).close()
        let before = contents(dir.file("store.xml"))
        let store = try openStore(dir.url(), options: StoreOptions(isReadOnly: true))
        #expect(strataError { _ = try store.obtainPermanentIDs(for: "Item", count: 1) }?.code == .readOnly)
        #expect(strataError { try store.save(SaveRequest(metadataChanges: ["k": "v"])) }?.code == .readOnly)
        #expect(contents(dir.file("store.xml")) == before)
        #expect(strataError { _ = try openStore(dir.url("missing.xml"), options: StoreOptions(isReadOnly: true)) }?.code == .storeNotFound)
    }
}

@Suite struct XMLCrossProcessLockTests {
    @Test func anotherProcessHoldingTheLockMakesASaveStoreBusy() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try openStore(dir.url())
        let before = contents(dir.file("store.xml"))
        // util-linux flock(1): another process takes the same advisory lock and holds it.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        holder.arguments = ["--exclusive", dir.file("store.xml.lock"), "sleep", "2"]
        try holder.run()
        defer { holder.terminate(); holder.waitUntilExit() }
        // Wait until the other process holds it.
        let probe = try XMLFileLock(storePath: dir.file("store.xml"))
        var held = false
        for _ in 0..<200 {
            if (try? probe.lock(timeoutMilliseconds: 0, storePath: dir.file("store.xml"))) != nil { probe.unlock(); usleep(5_000) } else { held = true; break }
        }
        #expect(held)
        let id = try store.obtainPermanentIDs(for: "Item", count: 1)[0]
        let error = strataError { try store.save(SaveRequest(inserts: [itemSnapshot(id, name: "x")])) }
        #expect(error?.code == .storeBusy)
        #expect(contents(dir.file("store.xml")) == before)
    }
}
