import BenchmarkSupport
import Foundation
import Strata

/// A stand-in migrator until `StrataMigrations.StoreMigrator` lands: migrates the benchmark's
/// SQLite store from ``BigStore/v1`` to ``BigStore/v2`` by copying every record, 50,000 per page,
/// through the store API into a new file, then moving it over the old one. Benchmark code only:
/// it assumes keys 1...N and replaces the file, which the real migrator does not.
final class CopyMigrator: StoreMigrating {
    let currentModel: Model = BigStore.v2

    func needsMigration(storeAt url: StoreURL) throws -> Bool {
        try BuiltInBackends.registry.backend(for: url.scheme).metadata(at: url)?.modelVersionHash == BigStore.v1.versionHash
    }

    func migrateStore(at url: StoreURL, options: StoreOptions, progress: @escaping @Sendable (MigrationProgress) -> Void, isCancelled: @escaping @Sendable () -> Bool) throws {
        let backend = try BuiltInBackends.registry.backend(for: url.scheme)
        let target = StoreURL(scheme: url.scheme, location: url.location + ".migrating")
        try? backend.destroyStore(at: target)
        let old = try backend.open(url, model: BigStore.v1, options: StoreOptions(readOnly: true, createIfMissing: false))
        let new = try backend.open(target, model: currentModel, options: StoreOptions(values: ["synchronous": "off"]))
        let count = try old.fetch(FetchRequest(entityName: "Record", resultType: .count)).count()
        let entity = currentModel.entity(named: "Record")!
        var done = 0
        do {
            while done < count {
                if isCancelled() { throw StrataError(.cancelled, "migration cancelled after \(done) records") }
                let page = min(50_000, count - done)
                let ids = (done + 1...done + page).map { ObjectID(entityName: "Record", storeIdentifier: old.identifier, primaryKey: Int64($0)) }
                let snapshots = try old.fetch(FetchRequest(entityName: "Record", objectIDs: ids)).snapshots()
                let newIDs = try new.obtainPermanentIDs(for: "Record", count: snapshots.count)
                try new.save(SaveRequest(inserts: zip(newIDs, snapshots).map { id, snapshot in
                    var copy = Snapshot(objectID: id, entity: entity)
                    copy.attributes = snapshot.attributes + [.null]
                    return copy
                }))
                done += page
                progress(MigrationProgress(phase: "copying Record", completed: done, total: count))
            }
            try old.close()
            try new.close()
        } catch {
            try? old.close()
            try? new.close()
            try? backend.destroyStore(at: target)
            throw error
        }
        try backend.destroyStore(at: url)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: target.location + suffix) {
            try FileManager.default.moveItem(atPath: target.location + suffix, toPath: url.location + suffix)
        }
    }
}
