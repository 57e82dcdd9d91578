import StrataCore
import Synchronization

/// A store that keeps its objects in memory. See ``InMemoryBackend`` for the URL forms.
///
/// Thread-safe: every operation takes the storage's lock briefly; fetches evaluate over a
/// consistent copy of the data outside the lock, so readers never see part of a save and never
/// hold up writers for long. It evaluates every request natively with the reference evaluator.
public final class InMemoryStore: PersistentStore, BatchOperating, SnapshotServing {
    /// Where the store lives.
    public let url: StoreURL
    /// The model it was opened with.
    public let model: Model
    /// The store's identifier.
    public let identifier: String
    let storage: InMemoryStorage
    private let readOnly: Bool
    private let closed = Atomic<Bool>(false)
    /// The table name of each scope of this store's IDs, one per entity: a lookup by ID checks
    /// the store and finds the entity's table with two small lookups and no string hashing.
    private let tableNamesByScope: [ObjectID.Scope: TableName]

    init(url: StoreURL, model: Model, storage: InMemoryStorage, readOnly: Bool) {
        self.url = url
        self.model = model
        self.storage = storage
        self.readOnly = readOnly
        let identifier = storage.metadata().storeIdentifier
        self.identifier = identifier
        tableNamesByScope = Dictionary(
            uniqueKeysWithValues: model.entities.map {
                (ObjectID.Scope(entityName: $0.name, storeIdentifier: identifier), TableName($0.name))
            })
    }

    private func checkOpen() throws {
        if closed.load(ordering: .acquiring) {
            throw StrataError(.storeClosed, "the store \(url) is closed", location: ["url": url.description])
        }
    }

    func checkWritable() throws {
        try checkOpen()
        if readOnly {
            throw StrataError(.readOnly, "the store \(url) was opened read-only", location: ["url": url.description])
        }
    }

    /// The store's metadata.
    public func metadata() throws -> StoreMetadata {
        try checkOpen()
        return storage.metadata()
    }

    /// The stored snapshot of `id`, under the lock, without copying the state.
    public func snapshot(for id: ObjectID) throws -> Snapshot? {
        try checkOpen()
        guard let tableName = tableNamesByScope[id.scope] else { return nil }
        let pk = id.permanentKey
        return storage.state.withLock { $0.tables[tableName]?[pk] }
    }

    /// The stored snapshots of `entityName` (all, or those among `ids`), in key order.
    public func snapshots(of entityName: String, among ids: [ObjectID]?) throws -> [Snapshot] {
        try checkOpen()
        let entity = try model.requireEntity(entityName)
        return candidates(of: entity, among: ids, in: storage.state.withLock { $0 })
    }

    /// Answers a fetch natively, over a consistent copy of the data: the reference evaluator with
    /// relationships resolved in the same copy, so the whole fetch sees one state.
    public func fetch(_ request: FetchRequest) throws -> FetchResult {
        try checkOpen()
        let entity = try model.requireEntity(request.entityName)
        try request.checkUnlessValidated(for: model, entityIsKnown: true)
        let state = storage.state.withLock { $0 }
        let candidates = candidates(of: entity, among: request.objectIDs, in: state)
        let isPlain = request.predicate == nil && request.sorts.isEmpty && request.limit == nil && request.offset == 0
        if isPlain && request.resultType == .snapshots { return .snapshots(candidates) }
        let tables = state.tables
        let evaluator = PredicateEvaluator(model: model) { id in
            guard let pk = id.primaryKey, id.storeIdentifier == self.identifier else { return nil }
            return tables[id.entityName]?[pk]
        }
        var unrestricted = request
        unrestricted.objectIDs = nil
        return try QueryEvaluation.run(unrestricted, over: candidates, evaluator: evaluator)
    }

    /// The snapshots of `entity` in `state`: all, or those among `ids`, each once, in key order.
    private func candidates(of entity: Entity, among ids: [ObjectID]?, in state: InMemoryState) -> [Snapshot] {
        guard let ids else { return state.tables[entity.name]?.orderedSnapshots() ?? [] }
        let table = state.tables[entity.name]
        let found = ids.compactMap { id -> Snapshot? in
            guard id.entityName == entity.name, id.storeIdentifier == identifier, let pk = id.primaryKey else {
                return nil
            }
            return table?[pk]
        }
        var seen: Set<ObjectID> = []
        return found.filter { seen.insert($0.objectID).inserted }.sorted { $0.objectID < $1.objectID }
    }

    /// Applies a save atomically: every check (versions, keys, unique constraints) runs against
    /// the current state and the request before anything changes; then the state is changed in
    /// place, under the lock. Readers work on their own copy of the state (``fetch(_:)``), so
    /// they see it before or after the save, and a save costs what it touches, not the store's
    /// size (copying the state per save made many small saves quadratic).
    @discardableResult
    public func save(_ request: SaveRequest) throws -> SaveResult {
        try checkWritable()
        try request.checkShape(against: model, storeIdentifier: identifier)
        return try storage.state.withLock { state in
            var conflicts: [SaveConflict] = []
            // Updates and deletes come in runs of one entity: each run reads its table once.
            var readScope: ObjectID.Scope?
            var readTable: InMemoryTable?
            func storedSnapshot(_ id: ObjectID) -> Snapshot? {
                if id.scope != readScope {
                    readScope = id.scope
                    readTable = state.tables[id.entityName]
                }
                return readTable?[id.permanentKey]
            }
            for index in request.updates.indices {
                let id = request.updates[index].snapshot.objectID
                let expected = request.updates[index].expectedVersion
                let stored = storedSnapshot(id)
                if stored?.version != expected {
                    conflicts.append(SaveConflict(objectID: id, expectedVersion: expected, storedSnapshot: stored))
                }
            }
            for delete in request.deletes {
                let stored = storedSnapshot(delete.objectID)
                if stored?.version != delete.expectedVersion {
                    conflicts.append(
                        SaveConflict(
                            objectID: delete.objectID, expectedVersion: delete.expectedVersion, storedSnapshot: stored))
                }
            }
            if !conflicts.isEmpty {
                throw StrataError(
                    .conflict,
                    "\(conflicts.count) object(s) changed in the store since they were read; nothing was saved",
                    conflicts: conflicts)
            }
            let deleted = Set(request.deletes.map(\.objectID))
            // Inserts arrive grouped by entity: look each table up once per run of one entity.
            var runScope: ObjectID.Scope?
            var runTable: InMemoryTable? = nil
            var runNextKey: Int64 = 1
            for index in request.inserts.indices {
                let id = request.inserts[index].objectID
                let pk = id.permanentKey
                if id.scope != runScope {
                    runScope = id.scope
                    let runEntity = id.entityName
                    runTable = state.tables[runEntity]
                    runNextKey = state.nextKeys[runEntity] ?? 1
                }
                // checkShape already refused an ID listed twice in the request.
                if runTable?[pk] != nil && !deleted.contains(id) {
                    throw StrataError(
                        .invalidObjectID, "\(id) already exists; an insert needs a new ID",
                        location: ["object": id.uriRepresentation])
                }
                guard pk < runNextKey else {
                    throw StrataError(
                        .invalidObjectID, "\(id) was not handed out by this store",
                        location: ["object": id.uriRepresentation])
                }
            }
            runTable = nil
            try checkUniqueConstraints(in: state, after: request, deleted: deleted)

            var versions: [ObjectID: Int64] = [:]
            versions.reserveCapacity(request.inserts.count + request.updates.count)
            readTable = nil // the table is changed below: no second reference to its storage
            withTableRuns(of: request.deletes.indices, scope: { request.deletes[$0].objectID.scope }, in: &state) {
                table, index in
                table.remove(key: request.deletes[index].objectID.permanentKey)
            }
            // Inserts arrive in runs of one entity (one scope): each run's table is taken out of
            // the state once, filled, and put back, instead of being looked up by name per insert.
            var start = request.inserts.startIndex
            while start < request.inserts.endIndex {
                let scope = request.inserts[start].objectID.scope
                let entityName = request.inserts[start].objectID.entityName
                var end = start
                while end < request.inserts.endIndex && request.inserts[end].objectID.scope == scope { end += 1 }
                var table = state.tables.removeValue(forKey: entityName) ?? InMemoryTable()
                table.reserveCapacity(end - start)
                for index in start..<end {
                    var stored = request.inserts[index]
                    stored.version = 1
                    versions[stored.objectID] = 1
                    let key = stored.objectID.permanentKey
                    table.insert(stored, key: key)
                }
                state.tables[entityName] = table
                start = end
            }
            withTableRuns(
                of: request.updates.indices, scope: { request.updates[$0].snapshot.objectID.scope }, in: &state
            ) { table, index in
                var stored = request.updates[index].snapshot
                stored.version = request.updates[index].expectedVersion + 1
                versions[stored.objectID] = stored.version
                table.update(stored, key: stored.objectID.permanentKey)
            }
            for (key, value) in request.metadataChanges { state.metadata.userInfo[key] = value }
            return SaveResult(versions: versions)
        }
    }

    /// Calls `body` for each of `indices` with the table of its object's entity, taking each
    /// run of one scope's table out of `state` once and putting it back after the run (changed
    /// in place, not looked up by name per object). Tables that do not exist are skipped, as an
    /// update or delete of an object no table holds changes nothing.
    private func withTableRuns(
        of indices: Range<Int>, scope: (Int) -> ObjectID.Scope, in state: inout InMemoryState,
        _ body: (inout InMemoryTable, Int) -> Void
    ) {
        var start = indices.lowerBound
        while start < indices.upperBound {
            let runScope = scope(start)
            var end = start + 1
            while end < indices.upperBound && scope(end) == runScope { end += 1 }
            let entityName = runScope.entityName
            if var table = state.tables.removeValue(forKey: entityName) {
                for index in start..<end { body(&table, index) }
                state.tables[entityName] = table
            }
            start = end
        }
    }

    /// Throws ``StrataError/Code/uniqueConstraint`` when the state `request` would leave has two
    /// objects with equal values for a unique constraint, one of them touched by the request.
    private func checkUniqueConstraints(in state: InMemoryState, after request: SaveRequest, deleted: Set<ObjectID>)
        throws
    {
        var names: Set<String> = []
        var last = ""
        for index in request.inserts.indices where request.inserts[index].objectID.entityName != last {
            last = request.inserts[index].objectID.entityName
            names.insert(last)
        }
        for index in request.updates.indices where request.updates[index].snapshot.objectID.entityName != last {
            last = request.updates[index].snapshot.objectID.entityName
            names.insert(last)
        }
        guard names.contains(where: { model.entity(named: $0)?.uniqueConstraints.isEmpty == false }) else { return }
        var touched: [String: [ObjectID: Snapshot]] = [:]
        for snapshot in request.inserts {
            touched[snapshot.objectID.entityName, default: [:]][snapshot.objectID] = snapshot
        }
        for update in request.updates {
            touched[update.snapshot.objectID.entityName, default: [:]][update.snapshot.objectID] = update.snapshot
        }
        for (entityName, changed) in touched {
            let entity = try model.requireEntity(entityName)
            guard !entity.uniqueConstraints.isEmpty else { continue }
            let untouched = state.tables[entityName]?.orderedSnapshots() ?? []
            let after =
                untouched.lazy.filter { changed[$0.objectID] == nil && !deleted.contains($0.objectID) }
                + changed.values.sorted { $0.objectID < $1.objectID }
            for constraint in entity.uniqueConstraints {
                let indexes = constraint.map { entity.attributeIndex(named: $0)! }
                var owners: [[Value]: ObjectID] = [:]
                for snapshot in after {
                    let key = indexes.map { snapshot.attributes[$0] }
                    if key.contains(where: \.isNull) { continue }
                    if let other = owners[key], changed[snapshot.objectID] != nil || changed[other] != nil {
                        throw StrataError(
                            .uniqueConstraint,
                            "\(snapshot.objectID) and \(other) both have \(constraint.joined(separator: ", ")) = \(key.map(\.description).joined(separator: ", ")); '\(entity.name)' requires it to be unique",
                            location: [
                                "entity": entity.name, "key": constraint.joined(separator: ","),
                                "object": snapshot.objectID.uriRepresentation,
                            ])
                    }
                    owners[key] = snapshot.objectID
                }
            }
        }
    }

    /// Hands out new keys; keys only grow, so none is ever reused.
    public func obtainPermanentIDs(for entityName: String, count: Int) throws -> [ObjectID] {
        try checkWritable()
        _ = try model.requireEntity(entityName)
        guard count >= 0 else {
            throw StrataError(.invalidRequest, "cannot obtain \(count) IDs", location: ["entity": entityName])
        }
        let first = storage.state.withLock { state -> Int64 in
            let first = state.nextKeys[entityName] ?? 1
            state.nextKeys[entityName] = first + Int64(count)
            return first
        }
        let scope = ObjectID.Scope(entityName: entityName, storeIdentifier: identifier)
        return (0..<Int64(count)).map { scope.id(primaryKey: first + $0) }
    }

    /// Deletes every matching object, removes references to them from other objects (bumping
    /// those objects' versions), and returns the deleted IDs.
    public func batchDelete(entityName: String, predicate: ObjectPredicate?) throws -> BatchResult {
        try checkWritable()
        let doomed = try fetch(FetchRequest(entityName: entityName, predicate: predicate, resultType: .objectIDs))
            .objectIDs()
        guard !doomed.isEmpty else { return BatchResult(objectIDs: []) }
        let gone = Set(doomed)
        storage.state.withLock { state in
            for id in doomed { state.tables[entityName]?.remove(key: id.primaryKey!) }
            for entity in model.entities where entity.relationships.contains(where: { $0.destination == entityName }) {
                guard let table = state.tables[entity.name] else { continue }
                for snapshot in table.orderedSnapshots() {
                    var changed = snapshot
                    for (i, relationship) in entity.relationships.enumerated()
                    where relationship.destination == entityName {
                        switch snapshot.relationships[i] {
                        case .toOne(let target?) where gone.contains(target): changed.relationships[i] = .toOne(nil)
                        case .toMany(let targets) where targets.contains(where: gone.contains):
                            changed.relationships[i] = .toMany(targets.filter { !gone.contains($0) })
                        default: break
                        }
                    }
                    if changed != snapshot {
                        changed.version += 1
                        state.tables[entity.name]?.update(changed, key: changed.objectID.primaryKey!)
                    }
                }
            }
        }
        return BatchResult(objectIDs: doomed)
    }

    /// Sets `values` on every matching object, bumping versions, and returns the updated IDs.
    public func batchUpdate(entityName: String, predicate: ObjectPredicate?, values: [String: Value]) throws
        -> BatchResult
    {
        try checkWritable()
        let entity = try model.requireEntity(entityName)
        var assignments: [(Int, Value)] = []
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            guard let index = entity.attributeIndex(named: name) else {
                throw StrataError(
                    .unknownKey, "'\(entityName)' has no attribute '\(name)'",
                    location: ["entity": entityName, "key": name])
            }
            let attribute = entity.attributes[index]
            if value.isNull && !attribute.isOptional {
                throw StrataError(
                    .missingValue, "'\(entityName).\(name)' is required and cannot be set to nil",
                    location: ["entity": entityName, "key": name])
            }
            guard value.fits(attribute.type) else {
                throw StrataError(
                    .typeMismatch, "'\(entityName).\(name)' is a \(attribute.type.rawValue) and cannot hold \(value)",
                    location: ["entity": entityName, "key": name])
            }
            assignments.append((index, value))
        }
        let targets = try fetch(FetchRequest(entityName: entityName, predicate: predicate, resultType: .objectIDs))
            .objectIDs()
        storage.state.withLock { state in
            for id in targets {
                guard var snapshot = state.tables[entityName]?[id.primaryKey!] else { continue }
                for (index, value) in assignments { snapshot.attributes[index] = value }
                snapshot.version += 1
                state.tables[entityName]?.update(snapshot, key: id.primaryKey!)
            }
        }
        return BatchResult(objectIDs: targets)
    }

    /// Marks this handle closed; the named storage stays for the next open.
    public func close() throws {
        closed.store(true, ordering: .releasing)
    }
}
