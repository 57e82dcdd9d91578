/// Runs a whole fetch request over snapshots in memory: filter, sort, offset, limit, and shape the
/// result. The reference for every store's native querying, and the engine's fallback.
public enum QueryEvaluation {
    /// Answers `request` from `candidates` (snapshots of the request's entity), following
    /// relationships through `evaluator`.
    ///
    /// Complexity: O(n) predicate evaluations plus O(n log n) comparisons when sorted.
    ///
    /// - Throws: ``StrataError/Code/invalidPredicate`` for a predicate nested deeper than
    ///   ``ObjectPredicate/maximumDepth`` (checked once, before any evaluation).
    public static func run(_ request: FetchRequest, over candidates: [Snapshot], evaluator: PredicateEvaluator) throws -> FetchResult {
        try request.predicate?.checkDepth()
        var matching: [Snapshot]
        if let ids = request.objectIDs {
            let wanted = Set(ids)
            matching = candidates.filter { wanted.contains($0.objectID) }
        } else {
            matching = candidates
        }
        if let predicate = request.predicate {
            matching = try matching.filter { try evaluator.evaluate(predicate, on: $0) }
        }
        matching = try evaluator.sorted(matching, by: request.sorts)
        let start = min(request.offset, matching.count)
        let end = request.limit.map { min(start + $0, matching.count) } ?? matching.count
        let page = matching[start..<end]
        switch request.resultType {
        case .snapshots: return .snapshots(Array(page))
        case .objectIDs: return .objectIDs(page.map(\.objectID))
        case .count: return .count(page.count)
        case .dictionaries:
            return .dictionaries(try page.map { snapshot in
                var row: [String: Value] = [:]
                for path in request.propertiesToFetch { row[path.description] = try evaluator.value(at: path, of: snapshot) }
                return row
            })
        }
    }
}

extension PersistentStore {
    /// Runs `request` against this store the way the engine does: checks it against the model,
    /// lets the store evaluate it natively when it says it can (its ``NativeQueryEvaluating``
    /// capability, found with ``capability(_:)``), and
    /// otherwise fetches plain snapshots and finishes the work with ``QueryEvaluation``.
    ///
    /// Call this, not ``execute(_:)``, from application code and tools.
    ///
    /// - Throws: ``StrataError/Code/unknownEntity``, ``StrataError/Code/unknownKey``,
    ///   ``StrataError/Code/invalidPredicate`` or ``StrataError/Code/invalidRequest`` for a request
    ///   that does not fit the model; the store's errors otherwise.
    public func fetch(_ request: FetchRequest) throws -> FetchResult {
        try PredicateValidator.validate(request, in: model)
        if let native = capability((any NativeQueryEvaluating).self), native.canEvaluateNatively(request) {
            return try execute(request)
        }
        return try fetchInMemory(request)
    }

    /// Runs `request` with the in-memory evaluator over plain snapshots from this store, whatever
    /// the store can do natively. The conformance kit compares this with ``fetch(_:)``.
    public func fetchInMemory(_ request: FetchRequest) throws -> FetchResult {
        try PredicateValidator.validate(request, in: model)
        let plain = FetchRequest(entityName: request.entityName, objectIDs: request.objectIDs)
        let candidates = try execute(plain).snapshots()
        let resolver = SnapshotCache(store: self)
        return try QueryEvaluation.run(request, over: candidates, evaluator: PredicateEvaluator(model: model, resolve: resolver.snapshot(for:)))
    }
}

/// Loads related objects for in-memory evaluation: the whole destination entity at its first
/// use, so a predicate over relationships costs one fetch per entity, not one per object.
final class SnapshotCache {
    private let store: any PersistentStore
    private var byEntity: [String: [ObjectID: Snapshot]] = [:]

    init(store: any PersistentStore) { self.store = store }

    func snapshot(for id: ObjectID) throws -> Snapshot? {
        if let loaded = byEntity[id.entityName] { return loaded[id] }
        let all = try store.execute(FetchRequest(entityName: id.entityName)).snapshots()
        var table: [ObjectID: Snapshot] = [:]
        table.reserveCapacity(all.count)
        for snapshot in all { table[snapshot.objectID] = snapshot }
        byEntity[id.entityName] = table
        return table[id]
    }
}
