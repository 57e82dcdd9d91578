import StrataCore
import Synchronization

/// A store that keeps its objects in memory. See ``InMemoryBackend`` for the URL forms.
///
/// Thread-safe: every operation takes the storage's lock briefly; fetches evaluate over a
/// consistent copy of the data outside the lock, so readers never see part of a save and never
/// hold up writers for long. It evaluates every request natively with the reference evaluator.
/// A fetch by `==` or `IN` on an attribute the model indexes or constrains as unique reads only
/// the matching objects, through a hash index built on first use and kept in step by saves.
public final class InMemoryStore: PersistentStore, BatchOperating, SnapshotServing {
    /// Where the store lives.
    public let url: StoreURL
    /// The model it was opened with.
    public let model: Model
    /// The store's identifier.
    public let identifier: String
    let storage: InMemoryStorage
    /// How saves record history (the store's `history` options).
    let historyOptions: HistoryOptions
    private let readOnly: Bool
    private let closed = Atomic<Bool>(false)
    /// The table name of each scope of this store's IDs, one per entity: a lookup by ID checks
    /// the store and finds the entity's table with two small lookups and no string hashing.
    private let tableNamesByScope: [ObjectID.Scope: TableName]
    /// The positions of each entity's indexed attributes (see ``indexedAttributes(of:)``).
    private let indexedAttributesByEntity: [String: Set<Int>]
    /// How many stored snapshots fetches have examined (evaluated or returned), in total: lets
    /// tests check that an indexed lookup reads a few rows, not the table.
    package let examinedSnapshotCount = Atomic<Int>(0)
    /// How many stored rows saves have visited, in total: rows the unique checks read, and
    /// index entries copied while keeping value indexes in step. Lets tests check that a save
    /// costs what it changes, not the size of the tables it changes.
    package let visitedRowCount = Atomic<Int>(0)

    init(url: StoreURL, model: Model, storage: InMemoryStorage, readOnly: Bool, historyOptions: HistoryOptions) {
        self.url = url
        self.model = model
        self.storage = storage
        self.historyOptions = historyOptions
        self.readOnly = readOnly
        let identifier = storage.metadata().storeIdentifier
        self.identifier = identifier
        tableNamesByScope = Dictionary(
            uniqueKeysWithValues: model.entities.map {
                (ObjectID.Scope(entityName: $0.name, storeIdentifier: identifier), TableName($0.name))
            })
        indexedAttributesByEntity = Dictionary(
            uniqueKeysWithValues: model.entities.map { ($0.name, Self.indexedAttributes(of: $0)) })
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
        let lookup =
            request.objectIDs == nil
            ? indexLookup(for: request.predicate, in: entity, indexed: indexedAttributesByEntity[entity.name] ?? [])
            : nil
        let state = storage.state.withLock { state in
            // An index is built on its first use, under the lock; saves keep it in step.
            if let lookup, state.tables[entity.name]?.hasValueIndex(of: lookup.attribute) == false {
                state.tables[entity.name]?.buildValueIndex(of: lookup.attribute)
            }
            return state
        }
        let candidates =
            lookup.flatMap { state.tables[entity.name]?.rows(whereAttribute: $0.attribute, isOneOf: $0.values) }
            ?? candidates(of: entity, among: request.objectIDs, in: state)
        examinedSnapshotCount.add(candidates.count, ordering: .relaxed)
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
            readTable = nil // the tables change below: no second reference to their storage
            try checkUniqueConstraints(in: &state, after: request, deleted: deleted)
            let historyChanges = try historyChanges(of: request, in: state)

            var versions: [ObjectID: Int64] = [:]
            versions.reserveCapacity(request.inserts.count + request.updates.count)
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
                let copiedBefore = table.copiedIndexEntries
                table.reserveCapacity(end - start)
                for index in start..<end {
                    var stored = request.inserts[index]
                    stored.version = 1
                    versions[stored.objectID] = 1
                    let key = stored.objectID.permanentKey
                    table.insert(stored, key: key)
                }
                visitedRowCount.add(table.copiedIndexEntries - copiedBefore, ordering: .relaxed)
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
            guard let historyChanges else { return SaveResult(versions: versions) }
            state.history.append(historyChanges, of: request, storeIdentifier: identifier, options: historyOptions)
            return SaveResult(
                versions: versions,
                historyToken: HistoryToken(storeIdentifier: identifier, sequence: state.history.lastSequence))
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
                let copiedBefore = table.copiedIndexEntries
                for index in start..<end { body(&table, index) }
                visitedRowCount.add(table.copiedIndexEntries - copiedBefore, ordering: .relaxed)
                state.tables[entityName] = table
            }
            start = end
        }
    }

    /// Throws ``StrataError/Code/uniqueConstraint`` when the state `request` would leave has two
    /// objects with equal values for a unique constraint, one of them touched by the request.
    ///
    /// Reads only the rows that share a touched object's value of the constraint's first
    /// attribute, through that attribute's value index (built here the first time, kept in step
    /// by every save after): O(touched objects + their matches), not O(objects of the entity).
    /// When several objects clash, the one reported is the first touched object in ID order, with
    /// a touched object before it or else the last untouched one in key order.
    private func checkUniqueConstraints(
        in state: inout InMemoryState, after request: SaveRequest, deleted: Set<ObjectID>
    ) throws {
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
        var visited = 0
        defer { visitedRowCount.add(visited, ordering: .relaxed) }
        for (entityName, changed) in touched {
            let entity = try model.requireEntity(entityName)
            guard !entity.uniqueConstraints.isEmpty else { continue }
            let constraints = entity.uniqueConstraints.map { constraint in
                (names: constraint, positions: constraint.map { entity.attributeIndex(named: $0)! })
            }
            // The indexes live with the table, so a table the save creates starts with them.
            var table = state.tables.removeValue(forKey: entityName) ?? InMemoryTable()
            for constraint in constraints where !table.hasValueIndex(of: constraint.positions[0]) {
                visited += table.count
                table.buildValueIndex(of: constraint.positions[0])
            }
            state.tables[entityName] = table
            let sorted = changed.values.sorted { $0.objectID < $1.objectID }
            for constraint in constraints {
                let positions = constraint.positions
                var owners: [[Value]: ObjectID] = [:]
                for snapshot in sorted {
                    let key = positions.map { snapshot.attributes[$0] }
                    if key.contains(where: \.isNull) { continue }
                    var other = owners[key]
                    if other == nil, let keys = table.valueIndexes[positions[0]]?.keys(holding: key[0]) {
                        for candidate in keys.sorted(by: >) {
                            visited += 1
                            guard let row = table[candidate], changed[row.objectID] == nil,
                                !deleted.contains(row.objectID), positions.map({ row.attributes[$0] }) == key
                            else { continue }
                            other = row.objectID
                            break
                        }
                    }
                    if let other {
                        throw StrataError(
                            .uniqueConstraint,
                            "\(snapshot.objectID) and \(other) both have \(constraint.names.joined(separator: ", ")) = \(key.map(\.description).joined(separator: ", ")); '\(entity.name)' requires it to be unique",
                            location: [
                                "entity": entity.name, "key": constraint.names.joined(separator: ","),
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
            var before: [Snapshot] = []
            var after: [ObjectID: Snapshot] = [:]
            defer { recordBatch(before: before, after: after, in: &state) }
            for id in doomed {
                if let old = state.tables[entityName]?[id.primaryKey!] { before.append(old) }
                state.tables[entityName]?.remove(key: id.primaryKey!)
            }
            for entity in model.entities where entity.relationships.contains(where: { $0.destination == entityName }) {
                guard let table = state.tables[entity.name] else { continue }
                for snapshot in table.orderedSnapshots() {
                    var changed = snapshot.droppingTargets(gone, of: entityName, in: entity)
                    if changed != snapshot {
                        changed.version += 1
                        state.tables[entity.name]?.update(changed, key: changed.objectID.primaryKey!)
                        before.append(snapshot)
                        after[changed.objectID] = changed
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
        let assignments = try entity.batchAssignments(values)
        let targets = try fetch(FetchRequest(entityName: entityName, predicate: predicate, resultType: .objectIDs))
            .objectIDs()
        storage.state.withLock { state in
            var before: [Snapshot] = []
            var after: [ObjectID: Snapshot] = [:]
            for id in targets {
                guard var snapshot = state.tables[entityName]?[id.primaryKey!] else { continue }
                before.append(snapshot)
                for (index, value) in assignments { snapshot.attributes[index] = value }
                snapshot.version += 1
                state.tables[entityName]?.update(snapshot, key: id.primaryKey!)
                after[id] = snapshot
            }
            recordBatch(before: before, after: after, in: &state)
        }
        return BatchResult(objectIDs: targets)
    }

    /// Marks this handle closed; the named storage stays for the next open.
    public func close() throws {
        closed.store(true, ordering: .releasing)
    }
}
