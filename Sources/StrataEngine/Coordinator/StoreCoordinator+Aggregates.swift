import StrataCore

extension StoreCoordinator {
    /// Runs an aggregate fetch on the store of its entity: natively when the store computes
    /// aggregates (``AggregateFetching``), else in memory over the store's objects
    /// (``PersistentStore/fetchAggregates(_:)``).
    ///
    /// - Throws: the errors of ``AggregateRequest/validate(for:)``,
    ///   ``StrataError/Code/arithmeticOverflow`` for a sum of integers beyond `Int64`, and the
    ///   store's errors.
    public func fetchAggregates(_ request: AggregateRequest) throws -> [[String: Value]] {
        try request.validate(for: model)
        return try store(for: request.entityName).fetchAggregates(request)
    }
}
