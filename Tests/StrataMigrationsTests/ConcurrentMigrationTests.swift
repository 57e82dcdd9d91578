import Foundation
import StrataCore
import StrataMigrations
import StrataTestSupport
import Testing

/// Two streaming migrations of one store at once, a save during a migration, and a store reached
/// through a symbolic link.
@Suite struct ConcurrentMigrationTests {
    /// A migration that stops in its copy phase until released, on its own thread.
    final class PausedMigration: @unchecked Sendable {
        let paused = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var outcome: Result<Void, any Error>?

        init(_ migrator: StoreMigrator, url: StoreURL) {
            Thread { [self] in
                var pausedOnce = false
                let result = Result {
                    try migrator.migrate(
                        storeAt: url,
                        progress: { progress in
                            guard !pausedOnce, progress.phase.hasPrefix("migrating"), progress.completed > 0 else {
                                return
                            }
                            pausedOnce = true
                            self.paused.signal()
                            self.release.wait()
                        })
                    return ()
                }
                lock.withLock { outcome = result.map { _ in () } }
                finished.signal()
            }.start()
        }

        /// Lets the migration go on and waits for it; returns its error, if any.
        func finish() -> (any Error)? {
            release.signal()
            finished.wait()
            return lock.withLock {
                if case .failure(let error) = outcome { return error }
                return nil
            }
        }
    }

    func seededStore(_ kind: BackendKind, in directory: URL, registry: StoreRegistry, employees: Int = 60) throws
        -> StoreURL
    {
        let url = kind.url(in: directory)
        let store = try registry.open(url, model: Repository.companyVersions().version(named: "v1")!)
        try CompanySeed.seed(store, employees: employees)
        try store.close()
        return url
    }

    /// A second migration used to delete the staging copy the first was writing and build its
    /// own under the same name, so each could swap in a copy the other had built (or half built).
    @Test(arguments: [BackendKind.xml, .memory])
    func aSecondMigrationOfTheSameStoreIsBusyAndTheFirstCompletes(kind: BackendKind) throws {
        try withTemporaryDirectory { directory in
            let registry = builtInRegistry()
            let url = try seededStore(kind, in: directory, registry: registry)
            let migrator = try StoreMigrator(
                versions: Repository.companyVersions(), target: "v2", registry: registry, batchSize: 10)
            let first = PausedMigration(migrator, url: url)
            #expect(first.paused.wait(timeout: .now() + 60) == .success)
            let error: StrataError? = {
                do { try migrator.migrate(storeAt: url) } catch let error as StrataError { return error } catch {
                    return StrataError(.internalInconsistency, "\(error)")
                }
                return nil
            }()
            #expect(error?.code == .storeBusy, "\(String(describing: error))")
            #expect(error?.message.contains("migrat") == true, "\(String(describing: error))")
            #expect(first.finish() == nil)
            let store = try registry.open(url, model: Repository.companyVersions().version(named: "v2")!)
            defer { try? store.close() }
            #expect(try companyProblems(store, version: "v2", employees: 60) == [])
            // Once the first is done, migrating again finds nothing to do.
            #expect(try !migrator.needsMigration(storeAt: url))
            if kind == .xml {
                #expect(
                    try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
                        $0.contains("strata-migrat")
                    } == [], "no lock or staging file is left")
            }
            if kind.outlivesDirectory { try registry.backend(for: url.scheme).destroyStore(at: url) }
        }
    }

    /// A save by another writer during a migration used to be lost when the migrated copy,
    /// built from the state before it, was renamed over the store.
    @Test func aSaveDuringAMigrationIsKeptAndTheMigrationIsBusy() throws {
        try withTemporaryDirectory { directory in
            let registry = builtInRegistry()
            let url = try seededStore(.xml, in: directory, registry: registry)
            let versions = try Repository.companyVersions()
            let migrator = try StoreMigrator(versions: versions, target: "v2", registry: registry, batchSize: 10)
            let first = PausedMigration(migrator, url: url)
            #expect(first.paused.wait(timeout: .now() + 60) == .success)
            // The store-wide lock refuses the open (or the save) while the store is being
            // migrated; either way nothing is lost.
            var saved = true
            do {
                let store = try registry.open(
                    url, model: versions.version(named: "v1")!, options: StoreOptions(options: ["lockTimeout": "0"]))
                defer { try? store.close() }
                let company = try store.obtainPermanentIDs(for: "Company", count: 1)[0]
                var snapshot = Snapshot(
                    objectID: company, entity: versions.version(named: "v1")!.entity(named: "Company")!)
                snapshot.attributes[0] = .string("Saved during the migration")
                try store.save(SaveRequest(inserts: [snapshot]))
            } catch let error as StrataError where error.code == .storeBusy {
                saved = false
            }

            let error = first.finish() as? StrataError
            if saved {
                #expect(error?.code == .storeBusy, "\(String(describing: error))")
                let reopened = try registry.open(url, model: versions.version(named: "v1")!)
                defer { try? reopened.close() }
                #expect(try all(reopened, "Company").count == 3, "the save made during the migration is still there")
                #expect(
                    try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
                        $0.contains("strata-migrat")
                    } == [])
                // Run again, the migration finds the store as it is now and migrates it.
                try migrator.migrate(storeAt: url)
            } else {
                #expect(error == nil)
            }
            let migrated = try registry.open(url, model: versions.version(named: "v2")!)
            defer { try? migrated.close() }
            #expect(try all(migrated, "Company").count == (saved ? 3 : 2))
        }
    }

    /// A migration through a symbolic link used to rename the migrated copy over the link.
    @Test func aStoreReachedThroughASymbolicLinkIsMigratedWhereItIs() throws {
        try withTemporaryDirectory { directory in
            let registry = builtInRegistry()
            let url = try seededStore(.xml, in: directory, registry: registry)
            let link = directory.appendingPathComponent("link.xml").path
            #expect(symlink(url.location, link) == 0)
            let linkURL = StoreURL(scheme: "xml", location: link)
            let migrator = try StoreMigrator(versions: Repository.companyVersions(), target: "v2", registry: registry)
            try migrator.migrate(storeAt: linkURL)
            var info = stat()
            #expect(lstat(link, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK, "the link is still a link")
            let store = try registry.open(url, model: Repository.companyVersions().version(named: "v2")!)
            defer { try? store.close() }
            #expect(try companyProblems(store, version: "v2", employees: 60) == [])
        }
    }
}
