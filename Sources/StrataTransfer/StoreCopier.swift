import Foundation
import StrataCore

/// Copies every object of one store into a new store of any kind (SQLite to LMDB, LMDB to XML,
/// ...), keeping every object's primary key.
///
/// The destination must adopt ``KeyPreservingStore`` (every built-in store does): the copier
/// reserves each entity's keys up to the source's largest, then inserts each object under its
/// own key. Relationships therefore copy as they are, with no table mapping old IDs to new ones.
///
/// Objects are inserted entity by entity in model order, in batches of ``batchSize`` (one save
/// each). A relationship naming an object not copied yet (a later entity, or a later batch) is
/// left empty at insert, because some stores (XML) refuse references to objects they do not
/// hold. A second pass visits just those objects and updates the ones whose relationships the
/// destination does not already hold through the inverse side (stores with one row per link,
/// as SQLite's join tables, already do). Such a store may write a link only from one side, so
/// a third pass restores the order of ordered relationships whose inverse was set in the second
/// pass (Project.members when Employee.projects was deferred). Objects updated by these passes
/// end at version 2 or 3 instead of 1.
///
/// Every object is checked against the model's rules (``PropertyRules``, what a context's save
/// checks) before it is written: a source object that breaks them stops the copy with
/// ``StrataError/Code/validationFailed``.
///
/// Memory: the IDs of one entity, the IDs of the objects left for the second pass, and one
/// batch of snapshots.
///
/// The destination is refused when it already holds objects, unless the caller passes
/// `replacingExisting: true` (that is the only way this type deletes anything). A new store in
/// files, and a store being replaced, are built at a staging location beside the destination
/// (``StoreStaging``) and put in place only when whole: a copy that fails or is killed midway
/// leaves the store it was replacing as it was, and no half-copied store. An empty destination
/// that existed before is filled where it is and keeps the batches saved so far; a store in
/// memory, and a new store on a server, are built in place and removed when the copy fails.
public struct StoreCopier: Sendable {
    /// Objects per save.
    public var batchSize: Int
    /// Whether another process may save into the source while it is copied. When `true`, an
    /// object deleted meanwhile is left out (instead of stopping the copy with
    /// ``StrataError/Code/conflict``), and a relationship to an object the destination does not
    /// hold (one inserted meanwhile) is left empty, at the cost of one more read of the
    /// destination per batch. ``StoreFollower`` sets it: the source's history brings those
    /// saves afterwards.
    public var sourceMayChange = false
    /// User metadata keys to set in the destination in a save of their own, before the first
    /// object is written, so that a copy interrupted midway (a killed process) leaves a
    /// destination that says so (``StoreFollower`` marks its copies this way).
    public var destinationMetadata: [String: String?] = [:]

    /// Creates a copier that saves `batchSize` objects at a time.
    public init(batchSize: Int = 1_000) {
        self.batchSize = batchSize
    }

    /// What a copy did.
    public struct Report: Sendable, Hashable {
        /// Objects copied, by entity name.
        public var counts: [String: Int]
        /// All objects copied.
        public var total: Int { counts.values.reduce(0, +) }
    }

    /// Copies `source` into the store at `destination`, created with `source.model` by `backend`.
    ///
    /// - Parameters:
    ///   - sourceBackend: the source's backend; with it, a destination that is the source under
    ///     another spelling of its path (`d/./app.sqlite`, a symbolic link, `xml:` on the same
    ///     file), or whose files lie inside the source's or the other way round, is refused.
    ///     Without it only identical URLs are.
    ///   - replacingExisting: replace an existing destination, whatever it holds and at
    ///     whatever model version, once the copy is whole; without it a destination holding objects is refused
    ///     (``StrataError/Code/invalidRequest``) and left untouched, and an empty one is filled.
    ///   - progress: called after each batch with the entity being copied and the objects of it
    ///     copied so far.
    /// - Throws: ``StrataError/Code/invalidRequest`` for a non-empty destination or a batch size
    ///   below 1, ``StrataError/Code/validationFailed`` for a source object that breaks the
    ///   model's rules, ``StrataError/Code/unsupported`` when the destination cannot keep keys,
    ///   ``StrataError/Code/modelMismatch`` when the destination was written with another model,
    ///   and the stores' errors.
    @discardableResult
    public func copy(
        from source: any PersistentStore,
        to destination: StoreURL,
        backend: any StoreBackend,
        sourceBackend: (any StoreBackend)? = nil,
        options: StoreOptions = StoreOptions(),
        replacingExisting: Bool = false,
        progress: (StoreProgress) -> Void = { _ in }
    ) throws -> Report {
        guard batchSize >= 1 else {
            throw StrataError(
                .invalidRequest, "the copy batch size must be 1 or more, got \(batchSize)",
                location: ["url": destination.description])
        }
        let overlapping = try sourceBackend.map { try backend.overlaps(destination, with: source.url, of: $0) } ?? false
        if destination == source.url || overlapping {
            throw StrataError(
                .invalidRequest,
                "cannot copy the store \(source.url) onto \(destination): they are the same store, or share files; nothing was changed",
                location: ["url": destination.description, "from": source.url.description])
        }
        let model = source.model
        // Held for the whole copy: no other process opens the destination while it is replaced
        // and filled.
        // Something at the destination that is not a store is refused before a lock file is
        // created beside it.
        if replacingExisting { _ = try backend.metadata(at: destination) }
        let lock = replacingExisting ? try backend.lockForMigration(of: destination) : nil
        defer { lock?.release() }
        let existing = try backend.metadata(at: destination)
        if existing != nil, !replacingExisting {
            let store = try backend.open(destination, model: model, options: options)
            let held = try Self.objectCount(of: store)
            try store.close()
            guard held == 0 else {
                throw StrataError(
                    .invalidRequest,
                    "the destination \(destination) already holds \(held) object\(held == 1 ? "" : "s"); nothing was copied; to delete it and copy anyway, pass --replace (replacingExisting: true)",
                    location: ["url": destination.description])
            }
            // An empty store that exists is filled where it is.
            return try fill(at: destination, from: source, backend: backend, options: options, progress: progress)
        }
        // A destination this copy creates gets an identifier of its own.
        var options = options
        options.identifierForNewStore = options.identifierForNewStore ?? UUID().uuidString
        guard let stage = try Self.staging(for: destination, backend: backend, replacing: existing != nil) else {
            // In memory, or a new store on a server: built where it goes; a failed copy removes
            // it (when it is still the one this copy made).
            if existing != nil { try backend.destroyStore(at: destination) }
            do {
                return try fill(at: destination, from: source, backend: backend, options: options, progress: progress)
            } catch {
                if (try? backend.metadata(at: destination))??.storeIdentifier == options.identifierForNewStore {
                    try? backend.destroyStore(at: destination)
                }
                throw error
            }
        }
        // Built beside the destination and put in its place only when whole: until then a store
        // being replaced is untouched, and a copy that fails or is killed leaves no half store.
        if !stage.isReplacedByBackend {
            // Named here, before anything is made: the staging store would otherwise be the one
            // an error about a missing directory names.
            let directory = URL(fileURLWithPath: stage.staging.location).deletingLastPathComponent().path
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue
            else {
                throw StrataError(
                    .io, "cannot create \(destination): the directory \(directory) does not exist; nothing was copied",
                    location: ["url": destination.description, "directory": directory])
            }
            if existing != nil { try stage.checkNoJournal() }
        }
        let found = StoreStaging.FileIdentity(path: stage.url.location)
        try stage.removeStaging()
        let report: Report
        do {
            report = try fill(at: stage.staging, from: source, backend: backend, options: options, progress: progress)
        } catch {
            try? stage.removeStaging()
            throw error
        }
        try stage.putInPlace(
            expected: (found, stage.isReplacedByBackend ? nil : StoreStaging.FileIdentity(path: stage.staging.location))
        )
        return report
    }

    /// Where a copy into `destination` is built before it is put in place: beside a store in
    /// files (new or replaced), or where a backend that swaps its own stores says when one is
    /// replaced; `nil` for a store built in place (in memory, or a new store on a server).
    private static func staging(for destination: StoreURL, backend: any StoreBackend, replacing: Bool) throws
        -> StoreStaging?
    {
        if backend is any StoreReplacing {
            return replacing ? try StoreStaging(for: destination, backend: backend, suffix: ".strata-copying") : nil
        }
        guard try !backend.files(of: destination).isEmpty else { return nil }
        return try StoreStaging(for: destination, backend: backend, suffix: ".strata-copying")
    }

    /// Opens (creating) the store at `url`, writes the destination metadata and every object of
    /// `source`, and closes it.
    private func fill(
        at url: StoreURL, from source: any PersistentStore, backend: any StoreBackend, options: StoreOptions,
        progress: (StoreProgress) -> Void
    ) throws -> Report {
        let opened = try backend.open(url, model: source.model, options: options)
        do {
            if !destinationMetadata.isEmpty { try opened.save(SaveRequest(metadataChanges: destinationMetadata)) }
            let report = try fill(opened, from: source, progress: progress)
            try opened.close()
            return report
        } catch {
            try? opened.close()
            throw error
        }
    }

    /// Copies every object of `source` into `opened`.
    private func fill(
        _ opened: any PersistentStore, from source: any PersistentStore, progress: (StoreProgress) -> Void
    ) throws -> Report {
        let model = source.model
        let destination = opened.url
        guard let keys = opened.capability((any KeyPreservingStore).self) else {
            throw StrataError(
                .unsupported,
                "the \(destination.scheme) store at \(destination) cannot insert objects under given keys (KeyPreservingStore), so it cannot be copied into",
                location: ["url": destination.description])
        }
        var report = Report(counts: [:])
        // Objects whose relationships named objects not yet copied: some stores (XML) refuse a
        // reference to an object they do not hold, so those relationships are set in a second pass.
        var deferred: [(entity: Entity, ids: [ObjectID])] = []
        var trimmedRelationships: Set<String> = []
        for (position, entity) in model.entities.enumerated() {
            let ids = try source.fetch(FetchRequest(entityName: entity.name, resultType: .objectIDs)).objectIDs()
                .sorted { $0.primaryKey! < $1.primaryKey! }
            report.counts[entity.name] = ids.count
            let phase = "copying \(entity.name)"
            progress(StoreProgress(phase: phase, completed: 0, total: ids.count))
            guard let largest = ids.last?.primaryKey else { continue }
            try keys.reserveKeys(through: largest, for: entity.name)
            var later: [ObjectID] = []
            var done = 0
            while done < ids.count {
                let batch = Array(ids[done..<min(done + batchSize, ids.count)])
                let snapshots = try fetch(batch, of: entity, from: source)
                let copied = CopiedSoFar(model: model, position: position, lastKey: batch.last!.primaryKey!)
                var inserts: [Snapshot] = []
                inserts.reserveCapacity(snapshots.count)
                for snapshot in snapshots {
                    let failures = try PropertyRules.failures(of: snapshot, entity: entity)
                    if let first = failures.first {
                        throw StrataError(
                            .validationFailed,
                            "\(snapshot.objectID) of \(source.url) breaks the model's rules (\(failures.map { "\($0.property ?? ""): \($0.reason)" }.joined(separator: "; "))), so it cannot be copied; fix it (strata validate lists every violation) and copy again; nothing was copied",
                            location: [
                                "url": source.url.description, "object": first.objectID.uriRepresentation,
                                "key": first.property ?? "",
                            ], validationFailures: failures)
                    }
                    var insert = Self.rehome(snapshot, into: opened.identifier)
                    let trimmed = copied.trim(&insert.relationships, of: entity)
                    if !trimmed.isEmpty {
                        later.append(snapshot.objectID)
                        for r in trimmed {
                            trimmedRelationships.insert(
                                entity.relationships[r].destination + "." + entity.relationships[r].inverse)
                        }
                    }
                    inserts.append(insert)
                }
                if sourceMayChange { try Self.dropTargetsMissing(from: &inserts, in: opened, besides: inserts) }
                try opened.save(SaveRequest(inserts: inserts))
                done += batch.count
                progress(StoreProgress(phase: phase, completed: done, total: ids.count))
            }
            if !later.isEmpty { deferred.append((entity, later)) }
        }
        for (entity, ids) in deferred {
            try relink(ids, of: entity, from: source, into: opened, phase: "linking \(entity.name)", progress: progress)
        }
        // A store may keep a link once, written from one side (SQLite's join tables): the
        // ordered inverse of a relationship set in the second pass may have lost its order.
        for entity in model.entities
        where entity.relationships.contains(where: {
            $0.isOrdered && trimmedRelationships.contains(entity.name + "." + $0.name)
        }) {
            let ids = try source.fetch(FetchRequest(entityName: entity.name, resultType: .objectIDs)).objectIDs()
            try relink(
                ids, of: entity, from: source, into: opened, phase: "ordering \(entity.name)", progress: progress)
        }
        return report
    }

    /// Updates the objects `ids` of the destination whose relationships differ from the source's.
    private func relink(
        _ ids: [ObjectID], of entity: Entity, from source: any PersistentStore, into target: any PersistentStore,
        phase: String, progress: (StoreProgress) -> Void
    ) throws {
        var done = 0
        while done < ids.count {
            let batch = Array(ids[done..<min(done + batchSize, ids.count)])
            var wanted = try fetch(batch, of: entity, from: source).map { Self.rehome($0, into: target.identifier) }
            if sourceMayChange { try Self.dropTargetsMissing(from: &wanted, in: target, besides: []) }
            let present = Dictionary(
                uniqueKeysWithValues: try fetch(wanted.map(\.objectID), of: entity, from: target).map {
                    ($0.objectID, $0)
                })
            var updates: [SaveRequest.Update] = []
            for want in wanted {
                guard let have = present[want.objectID], !Self.sameRelationships(want, have, entity: entity) else {
                    continue
                }
                var next = want
                next.version = have.version
                updates.append(SaveRequest.Update(next, expectedVersion: have.version))
            }
            if !updates.isEmpty { try target.save(SaveRequest(updates: updates)) }
            done += batch.count
            progress(StoreProgress(phase: phase, completed: done, total: ids.count))
        }
    }

    /// The snapshots of `batch`, all of them, in key order.
    private func fetch(_ batch: [ObjectID], of entity: Entity, from source: any PersistentStore) throws -> [Snapshot] {
        let snapshots = try source.fetch(FetchRequest(entityName: entity.name, objectIDs: batch)).snapshots()
        guard snapshots.count == batch.count || sourceMayChange else {
            throw StrataError(
                .conflict,
                "\(batch.count - snapshots.count) \(entity.name) object(s) of \(source.url) were deleted while being copied; copy again",
                location: ["url": source.url.description, "entity": entity.name])
        }
        return snapshots
    }

    /// Empties the relationships of `snapshots` that name objects neither `store` nor `inserted` holds.
    private static func dropTargetsMissing(
        from snapshots: inout [Snapshot], in store: any PersistentStore, besides inserted: [Snapshot]
    ) throws {
        var present = Set(inserted.map(\.objectID))
        let named = Set(snapshots.flatMap { $0.relationships.flatMap(\.targets) }).subtracting(present)
        for (entity, ids) in Dictionary(grouping: named, by: \.entityName) {
            present.formUnion(
                try store.fetch(FetchRequest(entityName: entity, resultType: .objectIDs, objectIDs: ids)).objectIDs())
        }
        for index in snapshots.indices {
            for (r, value) in snapshots[index].relationships.enumerated()
            where !value.targets.allSatisfy(present.contains) {
                snapshots[index].relationships[r] =
                    switch value {
                    case .toOne: .toOne(nil)
                    case .toMany(let ids): .toMany(ids.filter(present.contains))
                    }
            }
        }
    }

    /// Whether `a` and `b` relate to the same objects (unordered to-many relationships in any order).
    static func sameRelationships(_ a: Snapshot, _ b: Snapshot, entity: Entity) -> Bool {
        for (relationship, (x, y)) in zip(entity.relationships, zip(a.relationships, b.relationships)) {
            if relationship.isToMany && !relationship.isOrdered {
                if x.targets.count != y.targets.count || Set(x.targets) != Set(y.targets) { return false }
            } else if x != y {
                return false
            }
        }
        return true
    }

    /// Which objects the destination holds once the current batch is saved: every object of the
    /// entities before `position` in the model, and the current entity's up to `lastKey`.
    private struct CopiedSoFar {
        let positions: [String: Int]
        let position: Int
        let lastKey: Int64

        init(model: Model, position: Int, lastKey: Int64) {
            var positions: [String: Int] = [:]
            for (i, entity) in model.entities.enumerated() { positions[entity.name] = i }
            self.positions = positions
            self.position = position
            self.lastKey = lastKey
        }

        func holds(_ id: ObjectID) -> Bool {
            let p = positions[id.entityName] ?? Int.max
            return p < position || (p == position && id.primaryKey! <= lastKey)
        }

        /// Empties the relationships that name objects not copied yet and returns their positions.
        func trim(_ relationships: inout [RelationshipValue], of entity: Entity) -> [Int] {
            var trimmed: [Int] = []
            for (r, value) in relationships.enumerated() where !value.targets.allSatisfy(holds) {
                relationships[r] = entity.relationships[r].isToMany ? .toMany([]) : .toOne(nil)
                trimmed.append(r)
            }
            return trimmed
        }
    }

    /// `snapshot` with its ID and its relationships' targets moved to the store `identifier`,
    /// keys unchanged.
    static func rehome(_ snapshot: Snapshot, into identifier: String) -> Snapshot {
        func move(_ id: ObjectID) -> ObjectID {
            ObjectID(entityName: id.entityName, storeIdentifier: identifier, primaryKey: id.primaryKey!)
        }
        return Snapshot(
            objectID: move(snapshot.objectID),
            version: 0,
            attributes: snapshot.attributes,
            relationships: snapshot.relationships.map { value in
                switch value {
                case .toOne(let id): return .toOne(id.map(move))
                case .toMany(let ids): return .toMany(ids.map(move))
                }
            })
    }

    /// How many objects `store` holds, all entities together.
    public static func objectCount(of store: any PersistentStore) throws -> Int {
        try store.model.entities.reduce(0) { sum, entity in
            sum + (try store.fetch(FetchRequest(entityName: entity.name, resultType: .count)).count())
        }
    }
}
