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
        let isReplacing = backend is any StoreReplacing
        // A store reached through a symbolic link is migrated where it really is: the rename
        // then replaces the file the link points at, and the link stays a link.
        let url = isReplacing ? url : Self.realLocation(of: url)
        let staging = try stagingURL(for: url, backend: backend)
        // One migration at a time owns the store and its staging copy (a backend that adopts
        // StoreReplacing names and guards its own staging stores).
        let lock = isReplacing ? nil : try MigrationLock(for: url)
        defer { lock?.release() }
        let source = url.scheme == "memory" || isReplacing ? nil : FileIdentity(path: url.location)
        try removeStaging(staging, backend: backend)
        let staged: FileIdentity?
        do {
            try copy(
                step, from: url, to: staging, backend: backend, options: options, metadataChanges: metadataChanges,
                progress: progress, isCancelled: isCancelled)
            if isCancelled() {
                throw StrataError(
                    .cancelled, "the migration \(step.name) of \(url) was cancelled; the store is unchanged",
                    location: ["url": url.description])
            }
            staged = source == nil ? nil : FileIdentity(path: staging.location)
        } catch {
            try? removeStaging(staging, backend: backend)
            throw error
        }
        // From here on the staged store is the only complete copy of the migrated data until the
        // replacement finishes: it is never removed on failure.
        try replace(
            url, with: staging, backend: backend, destination: step.destination, options: options,
            expected: (source, staged), progress: progress)
    }

    /// What identifies one version of a file: a save or a rebuild replaces it (a new inode) or
    /// changes its size or modification time.
    struct FileIdentity: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: timespec

        /// The identity of the file at `path` (not following a final symbolic link), or `nil`.
        init?(path: String) {
            var info = stat()
            guard lstat(path, &info) == 0 else { return nil }
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int64(info.st_size)
            modified = info.modificationTime
        }

        static func == (a: FileIdentity, b: FileIdentity) -> Bool {
            a.device == b.device && a.inode == b.inode && a.size == b.size && a.modified.tv_sec == b.modified.tv_sec
                && a.modified.tv_nsec == b.modified.tv_nsec
        }
    }

    /// `url` with its location resolved to the real file (symbolic links, `.` and `..`
    /// followed), or `url` itself for a `memory:` store or a location that does not exist.
    static func realLocation(of url: StoreURL) -> StoreURL {
        guard url.scheme != "memory", let real = realpath(url.location, nil) else { return url }
        defer { free(real) }
        return StoreURL(scheme: url.scheme, location: String(cString: real))
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

    func stagingURL(for url: StoreURL, backend: any StoreBackend) throws -> StoreURL {
        if let replacing = backend as? any StoreReplacing { return try replacing.stagingURL(for: url) }
        if url.scheme == "memory" {
            guard !url.location.isEmpty else {
                throw StrataError(
                    .unsupported,
                    "a private memory: store has no name, so it cannot be reopened to migrate; name it (memory:NAME)",
                    location: ["url": url.description])
            }
            return StoreURL(scheme: url.scheme, location: url.location + ".strata-migrating")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.location, isDirectory: &isDirectory), !isDirectory.boolValue
        else {
            throw StrataError(
                .unsupported,
                "the store at \(url) is not one regular file, and its backend does not adopt StoreReplacing, so it cannot be replaced atomically; nothing was changed",
                location: ["url": url.description])
        }
        let file = URL(fileURLWithPath: url.location)
        let staging = file.deletingLastPathComponent().appendingPathComponent(
            ".\(file.lastPathComponent).strata-migrating"
        ).path
        return StoreURL(scheme: url.scheme, location: staging)
    }

    func removeStaging(_ staging: StoreURL, backend: any StoreBackend) throws {
        try backend.destroyStore(at: staging)
        // Lock files beside a staged file. A store without files (in memory, on a server) has
        // none, and its location is no path: a server's `/DATABASE` would name the root directory.
        if try !backend.files(of: staging).isEmpty { removeSidecars(of: staging.location) }
    }

    /// Removes files beside `path` whose name starts with its name (lock files a backend made).
    private func removeSidecars(of path: String) {
        let file = URL(fileURLWithPath: path)
        let directory = file.deletingLastPathComponent()
        let prefix = file.lastPathComponent
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        where name.hasPrefix(prefix) {
            unlink(directory.appendingPathComponent(name).path)
        }
    }

    /// Puts the store at `staging` in place of the one at `url`. For a store replaced by
    /// `rename`, `expected` holds the identities of the store file as the migration found it and
    /// of the staged file as it built it: if either changed since, nothing is replaced.
    private func replace(
        _ url: StoreURL, with staging: StoreURL, backend: any StoreBackend, destination: Model, options: StoreOptions,
        expected: (source: FileIdentity?, staged: FileIdentity?), progress: (StoreProgress) -> Void
    ) throws {
        progress(StoreProgress(phase: "replacing the store", completed: 0, total: 1))
        if let replacing = backend as? any StoreReplacing {
            try replacing.replaceStore(at: url, withStoreAt: staging)
        } else if url.scheme == "memory" {
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
            for journal in [url.location + "-wal", url.location + "-journal"] {
                if let size = (try? FileManager.default.attributesOfItem(atPath: journal))?[.size] as? Int, size > 0 {
                    throw StrataError(
                        .unsupported,
                        "\(journal) holds a journal of the store at \(url), which would not match a replaced file; the migrated copy is at \(staging) and the store is unchanged",
                        location: ["url": url.description, "staging": staging.description])
                }
            }
            if let staged = expected.staged, FileIdentity(path: staging.location) != staged {
                throw StrataError(
                    .storeBusy,
                    "the migrated copy \(staging.location) of \(url) was replaced by another process before it was put in place; the store is unchanged: run the migration again",
                    location: ["url": url.description, "staging": staging.description])
            }
            if let source = expected.source, FileIdentity(path: url.location) != source {
                try? removeStaging(staging, backend: backend)
                throw StrataError(
                    .storeBusy,
                    "the store at \(url) was changed by another process while it was being migrated; it is unchanged by the migration, so that change is not lost: run the migration again",
                    location: ["url": url.description])
            }
            guard rename(staging.location, url.location) == 0 else {
                let code = errno
                throw StrataError(
                    .io, "cannot rename \(staging.location) to \(url.location): \(String(cString: strerror(code)))",
                    location: ["path": url.location])
            }
            let directory = URL(fileURLWithPath: url.location).deletingLastPathComponent().path
            let fd = open(directory, O_RDONLY)
            if fd >= 0 {
                _ = fsync(fd)
                close(fd)
            }
            removeSidecars(of: staging.location)
        }
        progress(StoreProgress(phase: "replacing the store", completed: 1, total: 1))
    }
}
