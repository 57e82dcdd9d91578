import CStrataLMDB
import StrataCore

extension LMDBStore {
    /// The stored snapshots of `entityName` (all, or those among `ids`), in key order, read in
    /// one read-only snapshot transaction. One ID (a fault fired through the engine) is one
    /// record read, with no fetch request.
    public func snapshots(of entityName: String, among ids: [ObjectID]?) throws -> [Snapshot] {
        try ensureOpen()
        let layout = try layout(entityName)
        return try operationLog.timed {
            if let ids, ids.count == 1 { return try lookUp(ids[0], layout) }
            return try read(FetchRequest(entityName: entityName, objectIDs: ids), layout).snapshots()
        } _: { snapshots in
            (
                "read \(entityName)",
                [
                    "entity": entityName, "access": ids == nil ? "scan" : "keys",
                    "rows": String(snapshots.count),
                ]
            )
        }
    }

    /// Answers a fetch natively, in one read-only snapshot transaction. It finds candidates
    /// through an ``AccessPath`` (primary keys, a to-one database, an index range) or a
    /// primary-key-order scan, and checks, sorts and shapes them with the reference
    /// ``PredicateEvaluator``, following relationships inside the same snapshot. Without sorts,
    /// the scan stops as soon as `offset + limit` objects matched; with a limit and a first sort
    /// by an attribute leading an index (and no access path), it walks that index in the sort's
    /// order and stops soon after `offset + limit` matches (``orderedWalk(_:_:_:_:recordsRead:)``).
    public func fetch(_ request: FetchRequest) throws -> FetchResult {
        try ensureOpen()
        let layout = try layout(request.entityName)
        try request.checkUnlessValidated(for: model, entityIsKnown: true)
        guard operationLog.isEnabled else { return try read(request, layout) }
        var recordsRead = 0
        return try operationLog.timed {
            try read(request, layout, recordsRead: &recordsRead)
        } _: { result in
            (
                "fetched \(request.entityName)",
                [
                    "entity": request.entityName, "access": accessDescription(of: request, layout),
                    "rows": String(result.rowCount), "recordsRead": String(recordsRead),
                ]
            )
        }
    }

    /// The stored snapshot of `id` (none when it is not stored, or not an ID of this store and
    /// entity), read in one read-only snapshot transaction.
    private func lookUp(_ id: ObjectID, _ layout: EntityLayout) throws -> [Snapshot] {
        guard id.entityName == layout.entity.name, id.storeIdentifier == identifier, let pk = id.primaryKey else {
            return []
        }
        do {
            return try environment.read { txn in
                guard let bytes = try PrimaryKey.withKey(pk, { try txn.get(layout.records, key: $0) }) else {
                    return []
                }
                return [try decode(bytes, pk, layout)]
            }
        } catch {
            throw environment.translate(error, doing: "fetching \(layout.entity.name)")
        }
    }

    /// Runs `request` as ``fetch(_:)`` does and also returns how many object records it read
    /// (for tests pinning a fetch's shape).
    package func fetchCountingRecordsRead(_ request: FetchRequest) throws -> (result: FetchResult, recordsRead: Int) {
        try ensureOpen()
        let layout = try layout(request.entityName)
        try request.checkUnlessValidated(for: model, entityIsKnown: true)
        var recordsRead = 0
        let result = try read(request, layout, recordsRead: &recordsRead)
        return (result, recordsRead)
    }

    /// Runs a checked (or plain) `request` on the entity of `layout` in one read-only snapshot
    /// transaction. The caller checked that the store is open.
    private func read(_ request: FetchRequest, _ layout: EntityLayout) throws -> FetchResult {
        var recordsRead = 0
        return try read(request, layout, recordsRead: &recordsRead)
    }

    private func read(_ request: FetchRequest, _ layout: EntityLayout, recordsRead: inout Int) throws -> FetchResult {
        do {
            return try environment.read { txn in try run(request, layout, txn, recordsRead: &recordsRead) }
        } catch {
            throw environment.translate(error, doing: "fetching \(request.entityName)")
        }
    }

    private func run(
        _ request: FetchRequest, _ layout: EntityLayout, _ txn: LMDBTransaction, recordsRead: inout Int
    ) throws -> FetchResult {
        let offset = request.offset
        let limit = request.limit ?? Int.max
        let sorted = !request.sorts.isEmpty
        let predicate = request.predicate

        // The count of a whole entity is in the database's statistics.
        if request.objectIDs == nil, predicate == nil, request.resultType == .count {
            let total = try txn.count(layout.records)
            return .count(max(0, min(limit, total - offset)))
        }

        let evaluator = (predicate != nil || sorted || request.resultType == .dictionaries) ? makeEvaluator(txn) : nil
        let keysOnly = predicate == nil && !sorted && (request.resultType == .objectIDs || request.resultType == .count)
        var snapshots: [Snapshot] = []
        var keys: [Int64] = []
        var skipped = 0
        var taken = 0

        // Returns false to stop the scan.
        func visit(_ pk: Int64, _ bytes: UnsafeRawBufferPointer) throws -> Bool {
            recordsRead += 1
            if keysOnly {
                if skipped < offset {
                    skipped += 1
                    return true
                }
                keys.append(pk)
                taken += 1
                return taken < limit
            }
            let snapshot = try decode(bytes, pk, layout)
            if let predicate, let evaluator, try !evaluator.evaluate(predicate, on: snapshot) { return true }
            if sorted {
                snapshots.append(snapshot)
                return true
            }
            if skipped < offset {
                skipped += 1
                return true
            }
            snapshots.append(snapshot)
            taken += 1
            return taken < limit
        }

        if sorted, let evaluator,
            let walked = try orderedWalk(request, layout, txn, evaluator, recordsRead: &recordsRead)
        {
            snapshots = walked
        } else if limit > 0 || sorted {
            if let candidates = try candidates(request, layout, txn) {
                for pk in candidates {
                    guard let bytes = try PrimaryKey.withKey(pk, { try txn.get(layout.records, key: $0) }) else {
                        continue
                    }
                    guard try visit(pk, bytes) else { break }
                }
            } else {
                if predicate == nil && !keysOnly {
                    snapshots.reserveCapacity(min(limit, try txn.count(layout.records)))
                }
                let cursor = try txn.cursor(layout.records)
                defer { cursor.close() }
                var entry = try cursor.move(MDB_FIRST)
                while let (key, value) = entry {
                    guard let pk = PrimaryKey.decode(key) else {
                        throw RecordCorruption(
                            reason:
                                "a key of \(LMDBLayout.records(layout.entity.name)) is \(key.count) bytes long, not 8")
                    }
                    guard try visit(pk, value) else { break }
                    entry = try cursor.move(MDB_NEXT)
                }
            }
        }

        if sorted, let evaluator {
            let ordered = try evaluator.sorted(snapshots, by: request.sorts)
            let start = min(offset, ordered.count)
            let end = limit >= ordered.count - start ? ordered.count : start + limit
            snapshots = Array(ordered[start..<end])
        }
        switch request.resultType {
        case .snapshots:
            return .snapshots(snapshots)
        case .objectIDs:
            return .objectIDs(keysOnly ? keys.map(layout.objectID) : snapshots.map(\.objectID))
        case .count:
            return .count(keysOnly ? keys.count : snapshots.count)
        case .dictionaries:
            guard let evaluator else { return .dictionaries([]) }
            return .dictionaries(
                try snapshots.map { snapshot in
                    var row: [String: Value] = [:]
                    for path in request.propertiesToFetch {
                        row[path.description] = try evaluator.value(at: path, of: snapshot)
                    }
                    return row
                })
        }
    }

    /// The reference evaluator, following relationships inside `txn` (with a per-fetch cache).
    private func makeEvaluator(_ txn: LMDBTransaction) -> PredicateEvaluator {
        let cache = RelatedSnapshots()
        return PredicateEvaluator(model: model) { [layouts, identifier] id in
            guard id.storeIdentifier == identifier, let pk = id.primaryKey, let layout = layouts[id.entityName] else {
                return nil
            }
            if let known = cache.snapshots[id] { return known }
            let snapshot = try self.storedSnapshot(pk, layout, txn)
            cache.snapshots[id] = snapshot
            return snapshot
        }
    }

    /// The candidate primary keys, ascending, or `nil` to scan the entity.
    private func candidates(_ request: FetchRequest, _ layout: EntityLayout, _ txn: LMDBTransaction) throws -> [Int64]?
    {
        if let ids = request.objectIDs {
            if ids.count == 1 {
                let id = ids[0]
                guard id.entityName == layout.entity.name, id.storeIdentifier == identifier, let pk = id.primaryKey
                else { return [] }
                return [pk]
            }
            var keys: [Int64] = []
            keys.reserveCapacity(ids.count)
            for id in ids where id.entityName == layout.entity.name && id.storeIdentifier == identifier {
                if let pk = id.primaryKey { keys.append(pk) }
            }
            return Self.sortedUnique(keys)
        }
        guard let predicate = request.predicate, let path = AccessPath.choose(for: predicate, layout) else {
            return nil
        }
        switch path {
        case .keys(let keys):
            return keys.sorted()
        case .toOne(let position, let target):
            guard let secondary = layout.toOneIndex(position) else { return nil }
            let prefix = withUnsafeBytes(of: PrimaryKey.encode(target)) { Array($0) }
            return try scan(secondary.dbi, ranges: [KeyRange(prefix: prefix)], txn)
        case .ranges(let secondary, let ranges):
            return try scan(secondary.dbi, ranges: ranges, txn)
        }
    }

    /// The primary keys stored under `ranges` of a sorted-duplicates database, ascending.
    private func scan(_ dbi: MDB_dbi, ranges: [KeyRange], _ txn: LMDBTransaction) throws -> [Int64] {
        var keys: [Int64] = []
        let cursor = try txn.cursor(dbi)
        defer { cursor.close() }
        for range in ranges {
            var entry = try range.lower.withUnsafeBytes { try cursor.seek(atLeast: $0) }
            while let (key, value) = entry, range.admits(key) {
                if let pk = PrimaryKey.decode(value) { keys.append(pk) }
                entry = try cursor.move(MDB_NEXT)
            }
        }
        return Self.sortedUnique(keys)
    }

    private static func sortedUnique(_ keys: [Int64]) -> [Int64] {
        var keys = keys
        keys.sort()
        var unique: [Int64] = []
        unique.reserveCapacity(keys.count)
        for key in keys where unique.last != key { unique.append(key) }
        return unique
    }

    // MARK: Records

    /// Decodes the record of `pk`, reporting damage as ``StrataError/Code/storeCorrupt`` naming
    /// the entity and key.
    @inline(__always)
    func decode(_ bytes: UnsafeRawBufferPointer, _ pk: Int64, _ layout: EntityLayout) throws -> Snapshot {
        do {
            return try RecordCodec.decode(bytes, pk: pk, layout: layout)
        } catch let corruption as RecordCorruption {
            throw corrupt(corruption, pk, layout)
        }
    }

    /// The object version stored in a record.
    @inline(__always)
    func decodeVersion(_ bytes: UnsafeRawBufferPointer, _ pk: Int64, _ layout: EntityLayout) throws -> Int64 {
        do {
            return try RecordCodec.version(of: bytes)
        } catch let corruption as RecordCorruption {
            throw corrupt(corruption, pk, layout)
        }
    }

    func corrupt(_ corruption: RecordCorruption, _ pk: Int64, _ layout: EntityLayout) -> StrataError {
        StrataError(
            .storeCorrupt,
            "the LMDB store at \(environment.path) holds an unreadable record for \(layout.entity.name) p\(pk) in database \(LMDBLayout.records(layout.entity.name)): \(corruption.reason)",
            location: ["path": environment.path, "entity": layout.entity.name, "key": String(pk)])
    }
}

/// Related objects already read during one fetch.
private final class RelatedSnapshots {
    var snapshots: [ObjectID: Snapshot?] = [:]
}
