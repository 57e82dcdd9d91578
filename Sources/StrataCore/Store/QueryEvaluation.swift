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
    public static func run(_ request: FetchRequest, over candidates: [Snapshot], evaluator: PredicateEvaluator) throws
        -> FetchResult
    {
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
            return .dictionaries(
                try page.map { snapshot in
                    var row: [String: Value] = [:]
                    for path in request.propertiesToFetch {
                        row[path.description] = try evaluator.value(at: path, of: snapshot)
                    }
                    return row
                })
        }
    }
}

extension PersistentStore {
    /// Answers `request` with ``fetchInMemory(_:)``: the implementation of a store that has no
    /// native querying.
    public func fetch(_ request: FetchRequest) throws -> FetchResult {
        try fetchInMemory(request)
    }

    /// Answers `request` with the in-memory evaluator (``QueryEvaluation``) over
    /// ``snapshots(of:among:)``, whatever the store can do natively: the reference answer, and
    /// the fallback of a native ``fetch(_:)`` for what it cannot express. The conformance kit
    /// compares it with ``fetch(_:)``.
    ///
    /// Relationships in predicates, sorts and properties are read one destination entity at a
    /// time, each with one call of ``snapshots(of:among:)`` at its first use.
    ///
    /// - Throws: the errors of ``FetchRequest/validated(for:)`` (checked once, not again when
    ///   the request carries the mark) and of ``snapshots(of:among:)``.
    public func fetchInMemory(_ request: FetchRequest) throws -> FetchResult {
        try request.checkUnlessValidated(for: model)
        let candidates = try snapshots(of: request.entityName, among: request.objectIDs)
        let isPlain = request.predicate == nil && request.sorts.isEmpty && request.limit == nil && request.offset == 0
        if isPlain && request.resultType == .snapshots { return .snapshots(candidates) }
        var unrestricted = request
        unrestricted.objectIDs = nil
        let resolver = SnapshotCache(store: self)
        let evaluator = PredicateEvaluator(model: model, resolve: resolver.snapshot(for:))
        return try QueryEvaluation.run(unrestricted, over: candidates, evaluator: evaluator)
    }
}

/// Loads related objects for in-memory evaluation: the whole destination entity at its first
/// use, so a predicate over relationships costs one fetch per entity, not one per object.
package final class SnapshotCache {
    private let store: any PersistentStore
    private var byEntity: [String: [ObjectID: Snapshot]] = [:]

    package init(store: any PersistentStore) { self.store = store }

    package func snapshot(for id: ObjectID) throws -> Snapshot? {
        if let loaded = byEntity[id.entityName] { return loaded[id] }
        let all = try store.snapshots(of: id.entityName, among: nil)
        var table: [ObjectID: Snapshot] = [:]
        table.reserveCapacity(all.count)
        for snapshot in all { table[snapshot.objectID] = snapshot }
        byEntity[id.entityName] = table
        return table[id]
    }
}
