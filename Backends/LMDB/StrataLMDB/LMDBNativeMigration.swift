import CStrataLMDB
import Foundation
import StrataCore

/// LMDB runs every migration step in place, in ONE write transaction: records of changed
/// entities are decoded with the source layout, transformed (``SnapshotTransformer``) and
/// written back with the destination layout; their secondary databases (indexes, unique
/// constraints, to-one lookups) are rebuilt; databases the new model does not use are dropped;
/// `_seq` and `_meta` follow. A crash before the commit leaves the old version (LMDB's
/// copy-on-write pages are never half visible); the commit publishes the new one.
///
/// Limit: one transaction holds every changed page until it commits, in memory (LMDB keeps
/// dirty pages in RAM, at most about 512 MiB of them per transaction with 4 KiB pages), so a
/// step that rewrites more than a few hundred MiB of records fails with `io` (`MDB_TXN_FULL`)
/// and leaves the store unchanged. Entities whose records do not change (same name, same
/// properties in the same order, same secondaries) are not touched.
extension LMDBBackend: NativeMigrating {
    /// `true` unless an entity takes the name of another entity that is renamed in the same
    /// step (its records database would be overwritten while still being read).
    public func canMigrateNatively(_ step: MigrationStep) -> Bool {
        let renamedSources = Set(
            step.entityMappings.compactMap { m in m.sourceEntity.flatMap { $0 != m.destinationEntity ? $0 : nil } })
        return !step.entityMappings.contains {
            $0.sourceEntity != $0.destinationEntity && renamedSources.contains($0.destinationEntity)
        }
    }

    /// Runs `step` on the environment at `url` in one write transaction.
    public func migrateNatively(
        _ step: MigrationStep,
        at url: StoreURL,
        options: StoreOptions,
        metadataChanges: [String: String?],
        progress: (StoreProgress) -> Void,
        isCancelled: () -> Bool
    ) throws {
        var writable = options
        writable.isReadOnly = false
        writable.createsIfMissing = false
        let lmdbOptions = try LMDBOptions(writable, url: url)
        let path = try LMDBDirectory.path(of: url)
        guard case .environment = try LMDBDirectory.state(path) else {
            throw StrataError(.storeNotFound, "there is no LMDB store at \(path) to migrate", location: ["path": path])
        }
        let environment = try LMDBEnvironment.acquire(path: path, options: lmdbOptions)
        defer { environment.release() }
        do {
            try withoutActuallyEscaping(progress) { progress in
                try withoutActuallyEscaping(isCancelled) { isCancelled in
                    try environment.write { txn in
                        try LMDBMigrationTransaction(
                            step: step, txn: txn, path: path, metadataChanges: metadataChanges, progress: progress,
                            isCancelled: isCancelled
                        ).run()
                    }
                }
            }
        } catch {
            throw environment.translate(error, doing: "migrating \(step.name)")
        }
    }
}

/// The body of the migration's write transaction (run again from the start if the map grows).
private struct LMDBMigrationTransaction {
    let step: MigrationStep
    let txn: LMDBTransaction
    let path: String
    let metadataChanges: [String: String?]
    let progress: (StoreProgress) -> Void
    let isCancelled: () -> Bool
    static let chunk = 1_000

    func open(_ name: String, flags: UInt32, create: Bool) throws -> MDB_dbi {
        var dbi: MDB_dbi = 0
        try check(
            mdb_dbi_open(txn.handle, name, flags | (create ? UInt32(MDB_CREATE) : 0), &dbi), "mdb_dbi_open(\(name))")
        return dbi
    }

    func run() throws {
        // A unique constraint keeps the database (and key order) the store has for it, whatever
        // order either model declares its attributes in.
        let exists: (String) throws -> Bool = { name in
            try Array(name.utf8).withUnsafeBytes { try txn.get(LMDBTransaction.mainDatabase, key: $0) != nil }
        }
        let oldUniqueOrder = try UniqueConstraintOrder.resolve(for: step.source, exists: exists)
        let newUniqueOrder = try UniqueConstraintOrder.resolve(for: step.destination, exists: exists)
        let oldNames = LMDBLayout.databases(for: step.source, uniqueOrder: oldUniqueOrder)
        let newNames = LMDBLayout.databases(for: step.destination, uniqueOrder: newUniqueOrder)
        var oldDBs: [String: MDB_dbi] = [:]
        for (name, flags) in oldNames { oldDBs[name] = try open(name, flags: flags, create: false) }
        let meta = oldDBs[LMDBLayout.metadataDatabase]!
        guard let metadata = try LMDBStore.readMetadata(txn, meta, path: path) else {
            throw StrataError(.storeCorrupt, "the LMDB store at \(path) has no metadata", location: ["path": path])
        }
        if step.destination.matchesVersionHash(metadata.modelVersionHash) && !step.isStructurallyEmpty { return }
        guard step.source.matchesVersionHash(metadata.modelVersionHash) else {
            throw StrataError(
                .modelMismatch,
                "the store at \(path) is at model version '\(metadata.modelVersionIdentifier)' (hash \(metadata.modelVersionHash)), not at '\(step.source.versionIdentifier)' where the step \(step.name) starts; nothing was changed",
                location: ["path": path, "storeHash": metadata.modelVersionHash])
        }
        var newDBs: [String: MDB_dbi] = [:]
        for (name, flags) in newNames { newDBs[name] = try open(name, flags: flags, create: true) }
        let identifier = metadata.storeIdentifier
        let oldOrders = try RecordOrder.read(txn, meta, model: step.source, path: path)
        let transformer = SnapshotTransformer(step: step, storeIdentifier: identifier)
        let phase = "migrating \(step.name)"
        var total = 0
        for mapping in step.entityMappings {
            if let source = mapping.sourceEntity { total += try txn.count(oldDBs[LMDBLayout.records(source)]!) }
        }
        var done = 0
        progress(StoreProgress(phase: phase, completed: 0, total: total))

        for mapping in step.entityMappings {
            let newEntity = step.destination.entity(named: mapping.destinationEntity)!
            guard let source = mapping.sourceEntity else {
                try RecordOrder.write(txn, meta, entity: newEntity)
                continue
            }
            let oldEntity = step.source.entity(named: source)!
            let oldLayout = EntityLayout(
                entity: oldEntity, databases: oldDBs, storeIdentifier: identifier, recordOrder: oldOrders[source],
                uniqueOrder: oldUniqueOrder)
            let newLayout = EntityLayout(
                entity: newEntity, databases: newDBs, storeIdentifier: identifier, uniqueOrder: newUniqueOrder)
            let oldSecondaryNames = Set(secondaryNames(oldEntity, oldUniqueOrder))
            let newSecondaryNames = Set(secondaryNames(newEntity, newUniqueOrder))
            if step.keepsRecordsUnchanged(mapping) && oldSecondaryNames == newSecondaryNames { continue }
            // The records are rewritten in the new entity's declaration order.
            try RecordOrder.write(txn, meta, entity: newEntity)
            // The new secondaries start empty (those that keep their name held the old entries).
            for secondary in newLayout.secondaries { try check(mdb_drop(txn.handle, secondary.dbi, 0), "mdb_drop") }
            var after: Int64?
            var writer = ByteWriter(capacity: 256)
            var keyWriter = ByteWriter(capacity: 64)
            while true {
                if isCancelled() {
                    throw StrataError(
                        .cancelled, "the migration \(step.name) of \(path) was cancelled; the store is unchanged",
                        location: ["path": path])
                }
                var batch: [Snapshot] = []
                let cursor = try txn.cursor(oldLayout.records)
                var entry: LMDBCursor.Entry?
                if let after {
                    entry = try PrimaryKey.withKey(after) { try cursor.seek(atLeast: $0) }
                    if let e = entry, PrimaryKey.decode(e.key) == after { entry = try cursor.move(MDB_NEXT) }
                } else {
                    entry = try cursor.move(MDB_FIRST)
                }
                while let e = entry, batch.count < Self.chunk {
                    guard let pk = PrimaryKey.decode(e.key) else {
                        cursor.close()
                        throw RecordCorruption(reason: "a key of \(source) is not 8 bytes")
                    }
                    do { batch.append(try RecordCodec.decode(e.value, pk: pk, layout: oldLayout)) } catch let corruption
                        as RecordCorruption
                    {
                        cursor.close()
                        throw RecordCorruption(reason: "the record \(source) p\(pk): \(corruption.reason)")
                    }
                    entry = try cursor.move(MDB_NEXT)
                }
                cursor.close()
                guard let last = batch.last else { break }
                after = last.objectID.primaryKey
                for old in batch {
                    let snapshot = try transformer.transform(old)
                    let pk = snapshot.objectID.primaryKey!
                    writer.reset()
                    RecordCodec.encode(snapshot, version: snapshot.version, layout: newLayout, into: &writer)
                    try PrimaryKey.withKey(pk) { key in
                        try writer.bytes.withUnsafeBytes { value in
                            _ = try txn.put(newLayout.records, key: key, value: value)
                        }
                        try writeSecondaries(snapshot, layout: newLayout, pkBytes: key, keyWriter: &keyWriter)
                    }
                }
                done += batch.count
                progress(StoreProgress(phase: phase, completed: done, total: total))
                if batch.count < Self.chunk { break }
            }
        }

        // The record orders of entities the new model does not have.
        for entity in step.source.entities where step.destination.entity(named: entity.name) == nil {
            try Array(RecordOrder.metadataKey(entity.name).utf8).withUnsafeBytes { _ = try txn.delete(meta, key: $0) }
        }

        // Databases the new model does not use: removed and renamed entities, dropped secondaries.
        let kept = Set(newNames.map(\.name))
        for (name, _) in oldNames where !kept.contains(name) {
            try check(mdb_drop(txn.handle, oldDBs[name]!, 1), "mdb_drop(\(name))")
        }

        // Key sequences follow their entities.
        let sequence = oldDBs[LMDBLayout.sequenceDatabase]!
        var moves: [(String, [UInt8]?)] = []
        for mapping in step.entityMappings {
            guard let source = mapping.sourceEntity, source != mapping.destinationEntity else { continue }
            let value = try Array(source.utf8).withUnsafeBytes { try txn.get(sequence, key: $0).map { Array($0) } }
            moves.append((mapping.destinationEntity, value))
            try Array(source.utf8).withUnsafeBytes { _ = try txn.delete(sequence, key: $0) }
        }
        for name in step.removedEntities {
            try Array(name.utf8).withUnsafeBytes { _ = try txn.delete(sequence, key: $0) }
        }
        for (name, value) in moves {
            guard let value else { continue }
            try Array(name.utf8).withUnsafeBytes { key in
                try value.withUnsafeBytes { _ = try txn.put(sequence, key: key, value: $0) }
            }
        }

        try LMDBStore.putText(txn, meta, "modelVersionHash", step.destination.versionHash)
        try LMDBStore.putText(txn, meta, "modelVersionIdentifier", step.destination.versionIdentifier)
        for (key, value) in metadataChanges {
            let name = LMDBLayout.userInfoPrefix + key
            if let value {
                try LMDBStore.putText(txn, meta, name, value)
            } else {
                try Array(name.utf8).withUnsafeBytes { _ = try txn.delete(meta, key: $0) }
            }
        }
        if isCancelled() {
            throw StrataError(
                .cancelled, "the migration \(step.name) of \(path) was cancelled; the store is unchanged",
                location: ["path": path])
        }
    }

    private func secondaryNames(_ entity: Entity, _ uniqueOrder: UniqueConstraintOrder) -> [String] {
        entity.indexes.map { LMDBLayout.index(entity.name, $0.name) }
            + entity.uniqueConstraints.map {
                LMDBLayout.unique(entity.name, uniqueOrder.attributes(of: $0, in: entity.name))
            }
            + entity.relationships.filter { !$0.isToMany }.map { LMDBLayout.toOne(entity.name, $0.name) }
    }

    private func writeSecondaries(
        _ snapshot: Snapshot, layout: EntityLayout, pkBytes: UnsafeRawBufferPointer, keyWriter: inout ByteWriter
    ) throws {
        for secondary in layout.secondaries {
            if case .toOne(let position) = secondary.kind {
                guard case .toOne(let target?) = snapshot.relationships[position], let targetKey = target.primaryKey
                else { continue }
                try PrimaryKey.withKey(targetKey) { key in
                    _ = try txn.put(secondary.dbi, key: key, value: pkBytes, flags: UInt32(MDB_NODUPDATA))
                }
                continue
            }
            IndexKey.encode(snapshot.attributes, positions: secondary.attributes, into: &keyWriter)
            if secondary.kind == .unique, !secondary.attributes.contains(where: { snapshot.attributes[$0].isNull }) {
                try keyWriter.bytes.withUnsafeBytes { key in
                    guard let other = try txn.get(secondary.dbi, key: key), let otherKey = PrimaryKey.decode(other)
                    else { return }
                    let stored = try PrimaryKey.withKey(otherKey) { try txn.get(layout.records, key: $0) }
                    guard let stored else { return }
                    let otherSnapshot = try RecordCodec.decode(stored, pk: otherKey, layout: layout)
                    if secondary.attributes.allSatisfy({ otherSnapshot.attributes[$0] == snapshot.attributes[$0] }) {
                        let names = secondary.attributes.map { layout.entity.attributes[$0].name }
                        throw StrataError(
                            .uniqueConstraint,
                            "migrating \(step.name): \(snapshot.objectID) and \(otherSnapshot.objectID) both have \(names.joined(separator: ", ")) = \(secondary.attributes.map { snapshot.attributes[$0].description }.joined(separator: ", ")), which the new model requires to be unique; nothing was changed",
                            location: ["path": path, "entity": layout.entity.name, "key": names.joined(separator: ",")])
                    }
                }
            }
            try keyWriter.bytes.withUnsafeBytes { key in
                _ = try txn.put(secondary.dbi, key: key, value: pkBytes, flags: UInt32(MDB_NODUPDATA))
            }
        }
    }
}
