/// A store that computes aggregates itself (SQL `GROUP BY`, an index's counts), instead of
/// handing its objects to ``AggregateEvaluation``.
///
/// Optional: a store without it answers ``PersistentStore/fetchAggregates(_:)`` in memory, over
/// its own ``PersistentStore/fetch(_:)``, with the same results. Adopt it only with answers equal
/// to ``PersistentStore/fetchAggregatesInMemory(_:)``'s (the conformance kit compares the two
/// with randomized data; sums and averages of floating-point values may differ in their last
/// bits). Like ``PersistentStore/fetch(_:)``, a native implementation may answer what it cannot
/// express with ``PersistentStore/fetchAggregatesInMemory(_:)``.
public protocol AggregateFetching: PersistentStore {
    /// Answers `request` (see ``AggregateRequest`` for the semantics).
    ///
    /// - Throws: the errors of ``AggregateRequest/validate(for:)``,
    ///   ``StrataError/Code/arithmeticOverflow`` for a sum of integers beyond `Int64`, and the
    ///   store's errors.
    func fetchAggregatesNatively(_ request: AggregateRequest) throws -> [[String: Value]]
}

extension PersistentStore {
    /// Answers an aggregate fetch: natively when the store adopts ``AggregateFetching``
    /// (asked through ``capability(_:)``, so wrappers keep it), in memory otherwise.
    ///
    /// - Throws: see ``AggregateFetching/fetchAggregatesNatively(_:)``.
    public func fetchAggregates(_ request: AggregateRequest) throws -> [[String: Value]] {
        if let native = capability((any AggregateFetching).self) {
            return try native.fetchAggregatesNatively(request)
        }
        return try fetchAggregatesInMemory(request)
    }

    /// Answers an aggregate fetch with ``AggregateEvaluation`` over the objects this store's
    /// ``fetch(_:)`` returns for the request's entity, predicate and IDs: the reference answer,
    /// and the fallback of a native implementation.
    public func fetchAggregatesInMemory(_ request: AggregateRequest) throws -> [[String: Value]] {
        try request.validate(for: model)
        let candidates = try fetch(request.sourceRequest).snapshots()
        let resolver = SnapshotCache(store: self)
        let evaluator = PredicateEvaluator(model: model, resolve: resolver.snapshot(for:))
        var rest = request
        rest.predicate = nil
        rest.objectIDs = nil
        return try AggregateEvaluation.run(rest, over: candidates, evaluator: evaluator)
    }
}
