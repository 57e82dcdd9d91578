import StrataCore

extension ObjectContext {
    /// Answers an aggregate fetch (counts, sums, averages, minimums and maximums, grouped,
    /// filtered by a having predicate, distinct; see ``AggregateRequest``), pending changes
    /// included by default: the answer is the one the store would give after this context saved.
    ///
    /// With nothing pending that the request reads (no changed object of its entity, and no
    /// changed object of another entity when it reads through relationships), the request goes
    /// down to the store, which computes it natively when it can. Otherwise this context reads
    /// the matching objects with its changes merged in, and aggregates them in memory.
    ///
    /// - Throws: the errors of ``AggregateRequest/validate(for:)``,
    ///   ``StrataError/Code/arithmeticOverflow`` for a sum of integers beyond `Int64`, and the
    ///   store's errors.
    public func fetchAggregates(_ request: AggregateRequest, options: FetchOptions = FetchOptions()) throws
        -> [[String: Value]]
    {
        checkConfinement()
        catchUpWithPermanentIDs()
        try request.validate(for: model)
        var reads = request.sourceRequest
        reads.sorts = (request.propertiesToFetch.compactMap(\.keyPath) + request.propertiesToGroupBy).map { Sort($0) }
        if !options.includesPendingChanges || !hasPendingChanges(for: reads) {
            if let parent { return try parent.performAndWait { try parent.fetchAggregates(request) } }
            return try coordinator.fetchAggregates(request)
        }
        let snapshots = try resolve(request.sourceRequest, options: options)
        var rest = request
        rest.predicate = nil
        rest.objectIDs = nil
        return try AggregateEvaluation.run(rest, over: snapshots, evaluator: contextEvaluator())
    }
}
