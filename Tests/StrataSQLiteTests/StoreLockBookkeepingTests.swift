import CStrataSQLite
import Foundation
import StrataCore
import Testing

@testable import StrataSQLite

/// The store lock's bookkeeping within a process, and what it promises other users: nested
/// exclusive holds, threads that come and go, another user who may write the store, maintenance
/// under an open store, stores dropped without `close()`.
@Suite(.serialized) struct StoreLockBookkeepingTests {
    /// Two exclusive holds on one thread (a copier's lock, and destroyStore's inside it) released
    /// in the other order: the first release dropped the flock and the owner although the second
    /// hold is still alive, so another thread takes the "exclusive" lock too.
    @Test func releasingTheOuterExclusiveHoldFirstKeepsTheInnerOneExclusive() throws {
        let url = temporaryStoreURL()
        try openStore(url).close()
        let outer = try SQLiteBackend().lockForMigration(of: url, timeoutMilliseconds: 50)
        let inner = try SQLiteBackend().lockForMigration(of: url, timeoutMilliseconds: 50)
        outer?.release()
        let other = Locked<String>("")
        let thread = Thread {
            do {
                let lock = try SQLiteBackend().lockForMigration(of: url, timeoutMilliseconds: 100)
                other.withLock { $0 = "acquired" }
                lock?.release()
            } catch let error as StrataError { other.withLock { $0 = "\(error.code)" } } catch {}
        }
        thread.start()
        while !thread.isFinished { usleep(1_000) }
        #expect(other.withLock { $0 } == "storeBusy", "another thread took the lock while `inner` still holds it")
        inner?.release()
    }

    /// The exclusive owner is recognised by pthread_t, which the C library reuses: a thread that
    /// starts after the owner thread ended (a pooled dispatch worker, a new Thread) is taken for
    /// the owner and opens the store that is being migrated or replaced.
    @Test func aLaterThreadIsNotTakenForTheExclusiveOwner() throws {
        let url = temporaryStoreURL()
        try openStore(url).close()
        let held = Locked<StoreAccessLock?>(nil)
        let ownerID = Locked<pthread_t?>(nil)
        let first = Thread {
            held.withLock { $0 = try? SQLiteBackend().lockForMigration(of: url, timeoutMilliseconds: 50) }
            ownerID.withLock { $0 = pthread_self() }
        }
        first.start()
        while !first.isFinished { usleep(1_000) }
        #expect(held.withLock { $0 } != nil)
        let result = Locked<String>("")
        let second = Thread {
            let same = ownerID.withLock { owner in owner.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
            do {
                try openStore(url, options: StoreOptions(options: ["busyTimeout": "100"])).close()
                result.withLock { $0 = "opened (same pthread_t as the owner: \(same))" }
            } catch let error as StrataError { result.withLock { $0 = "\(error.code)" } } catch {}
        }
        second.start()
        while !second.isFinished { usleep(1_000) }
        #expect(result.withLock { $0 } == "storeBusy")
        held.withLock { $0?.release() }
    }

    /// A store another user may write (0666 in a shared directory) gets a lock file only its
    /// creator can open (0600): the other user's opens then run without the lock, so a
    /// migration by the first user does not wait for them.
    @Test func anotherUserWhoCanWriteTheStoreTakesItsLock() throws {
        guard getuid() == 0 else { return }
        let (url, store) = try makeProbeStore()
        try store.close()
        let directory = SQLiteFileInspection.directory(of: url.location)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory)
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: url.location)
        let lock = try SQLiteBackend().lockForMigration(of: url, timeoutMilliseconds: 50)
        defer { lock?.release() }
        // The probe drops to uid 65534 and opens the store read-write: it must wait for the
        // exclusive lock and give up.
        let output = try runProbe(["open", url.location, "readwrite"]).output
        #expect(output.hasPrefix("error storeBusy"), "\(output)")
    }

    /// A store dropped without close() releases its shared lock (its deinit), so a migration
    /// can run afterwards.
    @Test func aStoreDroppedWithoutCloseReleasesTheLock() throws {
        let url = temporaryStoreURL()
        do { _ = try openStore(url) }
        let lock = try SQLiteBackend().lockForMigration(of: url, timeoutMilliseconds: 100)
        #expect(lock != nil)
        lock?.release()
    }

    /// Deleting a store removes its lock file too (nothing is left), and a process that waited on
    /// the removed file locks the new one: the store it then creates is locked like any other.
    @Test func deletingAStoreRemovesItsLockFileAndWaitersLockTheNewOne() throws {
        let url = temporaryStoreURL()
        let lockFile = StoreAccessLock.lockFilePath(forStoreAt: StoreAccessLock.realPath(url.location))
        try openStore(url).close()
        #expect(FileManager.default.fileExists(atPath: lockFile))
        try SQLiteBackend().destroyStore(at: url)
        #expect(!FileManager.default.fileExists(atPath: lockFile), "the lock file goes with the store")

        try openStore(url).close()
        let deleting = try SQLiteBackend().lockForMigration(of: url, timeoutMilliseconds: 50)
        let opened = Locked<SQLiteStore?>(nil)
        let waiter = Thread {
            opened.withLock { $0 = try? openStore(url, options: StoreOptions(options: ["busyTimeout": "10000"])) }
        }
        waiter.start()
        usleep(100_000)
        try SQLiteBackend().destroyStore(at: url)
        deleting?.removeFileOfDeletedStore()
        deleting?.release()
        while !waiter.isFinished { usleep(1_000) }
        let store = try #require(opened.withLock { $0 }, "the waiter opened (and created) the store")
        #expect(FileManager.default.fileExists(atPath: lockFile), "the waiter locked a new lock file")
        let busy = #expect(throws: StrataError.self) { _ = try SQLiteBackend().lockForMigration(of: url, timeoutMilliseconds: 50) }
        #expect(busy?.code == .storeBusy, "the new store is locked by the open that created it")
        try store.close()
    }
}
