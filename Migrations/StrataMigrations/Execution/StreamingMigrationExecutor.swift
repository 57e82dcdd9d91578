import Foundation
import StrataCore

/// Executes a migration step for any store through the store protocol alone: it opens the old
/// store read-only with the source model, streams its objects in batches through a
/// ``SnapshotTransformer`` into a new store of the same kind at a staging location, then puts
/// the new store in place atomically (``StoreReplacing``, a file `rename`, or a copy for
/// `memory:`).
///
/// The `rename` fallback is for stores that are exactly one file with no journal beside it
/// (XML); SQLite, whose `-wal` file belongs to the database it was written for, always migrates
/// natively.
///
/// Every object is checked against the destination model's rules (``PropertyRules``, what a
/// context's save checks) before it is written; one that breaks them stops the migration with
/// ``StrataError/Code/validationFailed`` and the store unchanged.
///
/// Crash safety: until the swap the old store is untouched and complete, and a leftover staging
/// store is deleted at the next run; the swap itself is atomic. Memory: one batch of snapshots
/// plus the list of one entity's object IDs at a time (16 bytes and the ID per object).
///
/// Keys are preserved: through ``KeyPreservingStore/reserveKeys(through:for:)`` when the new
/// store adopts it, otherwise by taking IDs from the fresh store until the highest key is
/// reached (a fresh store hands out 1, 2, 3, ...; any other answer is an error and nothing is
/// replaced). Objects are written in two passes (without links, then the links), so every
/// object is at version 2 in the new store. The new store keeps the store identifier and user
/// metadata. Its history holds none of the copies: it goes on after the old store's last
/// transaction, and the old transactions read as pruned (``HistoryRecording/continueHistory(after:)``).
public struct StreamingMigrationExecutor: Sendable {
    /// Objects read, transformed and written per save.
    public var batchSize: Int

    /// Creates an executor.
    public init(batchSize: Int = 1_000) {
        self.batchSize = max(1, batchSize)
    }

    /// Runs `step` on the store at `url` of `backend`.
    public func execute(
        _ step: MigrationStep,
        at url: StoreURL,
        backend: any StoreBackend,
        options: StoreOptions,
        metadataChanges: [String: String?],
        progress: (StoreProgress) -> Void,
        isCancelled: () -> Bool
    ) throws {
        // A store in files is migrated where it really is (StoreStaging follows symbolic links).
        if !(backend is any StoreReplacing) && url.scheme != "memory" {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.location, isDirectory: &isDirectory),
                !isDirectory.boolValue
            else {
                throw StrataError(
                    .unsupported,
                    "the store at \(url) is not one regular file, and its backend does not adopt StoreReplacing, so it cannot be replaced atomically; nothing was changed",
                    location: ["url": url.description])
            }
        }
        let stage = try StoreStaging(for: url, backend: backend, suffix: ".strata-migrating")
        let url = stage.url
        let staging = stage.staging
        // One migration at a time owns the store and its staging copy (a backend that adopts
        // StoreReplacing names and guards its own staging stores).
        let lock = stage.isReplacedByBackend ? nil : try MigrationLock(for: url)
        defer { lock?.release() }
        let source =
            url.scheme == "memory" || stage.isReplacedByBackend ? nil : StoreStaging.FileIdentity(path: url.location)
        try stage.removeStaging()
        let staged: StoreStaging.FileIdentity?
        do {
            try copy(
                step, from: url, to: staging, backend: backend, options: options, metadataChanges: metadataChanges,
                progress: progress, isCancelled: isCancelled)
            if isCancelled() {
                throw StrataError(
                    .cancelled, "the migration \(step.name) of \(url) was cancelled; the store is unchanged",
                    location: ["url": url.description])
            }
            staged = source == nil ? nil : StoreStaging.FileIdentity(path: staging.location)
        } catch {
            try? stage.removeStaging()
            throw error
        }
        // From here on the staged store is the only complete copy of the migrated data until the
        // replacement finishes: it is never removed on failure.
        try replace(
            stage, destination: step.destination, options: options, expected: (source, staged), progress: progress)
    }

    /// Streams every object of the store at `from` (at `step.source`) into a new store at `to`
    /// (at `step.destination`).
    func copy(
        _ step: MigrationStep,
        from: StoreURL,
        to: StoreURL,
        backend: any StoreBackend,
        options: StoreOptions,
        metadataChanges: [String: String?],
        progress: (StoreProgress) -> Void,
        isCancelled: () -> Bool
    ) throws {
        var readOptions = options
        readOptions.isReadOnly = true
        readOptions.createsIfMissing = false
        let source = try backend.open(from, model: step.source, options: readOptions)
        defer { try? source.close() }
        var writeOptions = options
        writeOptions.isReadOnly = false
        writeOptions.createsIfMissing = true
        // The rebuilt store is the same store: it keeps its identifier, so IDs and URIs stay valid.
        writeOptions.identifierForNewStore = source.identifier
        // Its copies are not saves of the user's: they are not recorded (see continueHistory below).
        if to.query[HistoryOptions.enabledOption] == nil { writeOptions[HistoryOptions.enabledOption] = "off" }
        let destination = try backend.open(to, model: step.destination, options: writeOptions)
        defer { try? destination.close() }
        let transformer = SnapshotTransformer(step: step, storeIdentifier: destination.identifier)
        let reader = MigrationContext(store: source, batchSize: batchSize)
        let phase = "migrating \(step.name)"
        var idsByEntity: [(EntityMapping, [ObjectID])] = []
        var total = 0
        for mapping in step.entityMappings {
            guard let sourceEntity = mapping.sourceEntity else { continue }
            let ids = try reader.objectIDs(sourceEntity)
            total += ids.count
            idsByEntity.append((mapping, ids))
        }
        // Two passes, because a store may refuse a link to an object it does not hold yet: the
        // objects without their links, then the links (as updates of version 1).
        var done = 0
        progress(StoreProgress(phase: phase, completed: 0, total: 2 * total))
        for pass in 0..<2 {
            for (mapping, ids) in idsByEntity {
                guard let maxKey = ids.compactMap(\.primaryKey).max() else { continue }
                let entity = step.destination.entity(named: mapping.destinationEntity)!
                if pass == 0 {
                    try reserve(through: maxKey, for: mapping.destinationEntity, in: destination)
                } else if entity.relationships.isEmpty {
                    done += ids.count
                    continue
                }
                var start = 0
                while start < ids.count {
                    if isCancelled() {
                        throw StrataError(
                            .cancelled, "the migration \(step.name) of \(from) was cancelled; the store is unchanged",
                            location: ["url": from.description])
                    }
                    let batch = Array(ids[start..<min(ids.count, start + batchSize)])
                    start += batch.count
                    let snapshots = try source.snapshots(of: mapping.sourceEntity!, among: batch)
                    var transformed = try snapshots.map(transformer.transform)
                    if pass == 0 {
                        try checkRules(transformed, of: entity, step: step, url: from)
                        if !entity.relationships.isEmpty {
                            for i in transformed.indices {
                                transformed[i].relationships = entity.relationships.map {
                                    $0.isToMany ? .toMany([]) : .toOne(nil)
                                }
                            }
                        }
                        try destination.save(SaveRequest(inserts: transformed))
                    } else {
                        try destination.save(
                            SaveRequest(updates: transformed.map { SaveRequest.Update($0, expectedVersion: 1) }))
                    }
                    done += batch.count
                    progress(StoreProgress(phase: phase, completed: done, total: 2 * total))
                }
            }
        }
        var userInfo: [String: String?] = [:]
        for (key, value) in try source.metadata().userInfo { userInfo[key] = value }
        for (key, value) in metadataChanges { userInfo[key] = value }
        if !userInfo.isEmpty { try destination.save(SaveRequest(metadataChanges: userInfo)) }
        try continueHistory(of: source, in: destination)
    }

    /// Makes the history of the rebuilt store go on after the last transaction of the store it
    /// replaces, which reads as pruned: a reader holding a token from before the migration gets
    /// `historyExpired` (and refetches) instead of transactions under sequences it has seen. A
    /// store that cannot (the protocol's default) starts its history again.
    private func continueHistory(of source: any PersistentStore, in destination: any PersistentStore) throws {
        guard let last = try source.capability((any HistoryRecording).self)?.lastHistoryToken(),
            let history = destination.capability((any HistoryRecording).self)
        else { return }
        do {
            try history.continueHistory(after: last.sequence)
        } catch let error as StrataError where error.code == .unsupported {}
    }

    /// Refuses objects that break the destination model's rules (the rules a context's save
    /// applies), so a migration never writes what the new model forbids.
    private func checkRules(_ snapshots: [Snapshot], of entity: Entity, step: MigrationStep, url: StoreURL) throws {
        var failures: [ValidationFailure] = []
        for snapshot in snapshots { failures += try PropertyRules.failures(of: snapshot, entity: entity) }
        guard let first = failures.first else { return }
        throw StrataError(
            .validationFailed,
            "migrating \(step.name): \(failures.count) value\(failures.count == 1 ? "" : "s") of \(entity.name) objects break the rules of model version \(step.destination.versionIdentifier), first \(first); fix them and migrate again; the store is unchanged",
            location: ["url": url.description, "entity": entity.name, "object": first.objectID.uriRepresentation],
            validationFailures: failures)
    }

    /// Makes keys up to `maxKey` of `entity` insertable in the fresh store.
    private func reserve(through maxKey: Int64, for entity: String, in store: any PersistentStore) throws {
        if let preserving = store.capability((any KeyPreservingStore).self) {
            try preserving.reserveKeys(through: maxKey, for: entity)
            return
        }
        var next: Int64 = 1
        while next <= maxKey {
            let count = Int(min(maxKey - next + 1, 10_000))
            let ids = try store.obtainPermanentIDs(for: entity, count: count)
            for id in ids {
                guard id.primaryKey == next else {
                    throw StrataError(
                        .unsupported,
                        "the new \(store.url.scheme) store handed out \(id) where key \(next) was expected, so keys cannot be preserved; the backend should adopt KeyPreservingStore. Nothing was replaced",
                        location: ["url": store.url.description, "entity": entity])
                }
                next += 1
            }
        }
    }

    /// Puts the store staged by `stage` in place of the old one. For a store in files,
    /// `expected` holds the identities of the store file as the migration found it and of the
    /// staged file as it built it: if either changed since, nothing is replaced.
    private func replace(
        _ stage: StoreStaging, destination: Model, options: StoreOptions,
        expected: (source: StoreStaging.FileIdentity?, staged: StoreStaging.FileIdentity?),
        progress: (StoreProgress) -> Void
    ) throws {
        progress(StoreProgress(phase: "replacing the store", completed: 0, total: 1))
        let (url, staging, backend) = (stage.url, stage.staging, stage.backend)
        if url.scheme == "memory" && !stage.isReplacedByBackend {
            // In-memory stores do not outlive the process, and the backend cannot swap two names:
            // the staged store is copied back under the name. Should the copy fail, the migrated
            // data stays in the staged store, whose name the error gives.
            try backend.destroyStore(at: url)
            do {
                let identity = try MigrationStep.infer(from: destination, to: destination)
                try copy(
                    identity, from: staging, to: url, backend: backend, options: options, metadataChanges: [:],
                    progress: { _ in }, isCancelled: { false })
            } catch let error as StrataError {
                var error = error
                error.message =
                    "copying the migrated store \(staging) back to \(url) failed (the migrated data is in \(staging)): \(error.message)"
                error.location["staging"] = staging.description
                throw error
            }
            try backend.destroyStore(at: staging)
        } else {
            try stage.putInPlace(expected: (expected.source, expected.staged))
        }
        progress(StoreProgress(phase: "replacing the store", completed: 1, total: 1))
    }
}
