import Foundation
import StrataCore
import StrataEngine

extension ModelContext {
    /// The aggregate `descriptor` describes, typed: `Int` for a count or the sum of an `Int`
    /// property, `Double?` for an average, the property's type (optional) for a minimum or
    /// maximum. Computed by the store where it can (one SQL statement on SQLite), in memory
    /// otherwise, with the context's unsaved changes unless the descriptor says otherwise.
    ///
    /// ```swift
    /// let total = try context.aggregate(AggregateDescriptor(.sum(\Trip.budget)))
    /// ```
    ///
    /// - Throws: ``StrataError`` of code `arithmeticOverflow` for a sum of integers beyond its
    ///   type's range; `invalidRequest` for a key path that is not a stored property (transient,
    ///   computed, through a relationship) or an aggregate the engine refuses (a count through a
    ///   to-many relationship); `invalidPredicate` for a predicate with no Strata counterpart;
    ///   `typeMismatch` for a result the type cannot hold (a sum beyond `Int` of a narrower
    ///   property on a 32-bit platform); and the store's errors.
    public func aggregate<T: PersistentModel, Value>(_ descriptor: AggregateDescriptor<T, Value>) throws -> Value {
        let plan = try AggregatePlan<T>(
            aggregates: [descriptor.aggregate.column], groupBy: [], predicate: descriptor.predicate,
            includePendingChanges: descriptor.includePendingChanges, keyPaths: container.keyPaths)
        let rows = try objectContext.fetchAggregates(plan.request, options: plan.options)
        let stored = rows.first?[plan.request.propertiesToFetch[0].name] ?? .null
        guard let value = descriptor.aggregate.decode(stored) else {
            throw StrataError(
                .typeMismatch,
                "\(descriptor.aggregate.column) of \(T.self) is \(stored), which \(Value.self) cannot hold",
                location: ["entity": plan.request.entityName, "value": "\(stored)", "type": "\(Value.self)"])
        }
        return value
    }

    /// The groups `descriptor` describes, each with its key values and aggregates: computed by
    /// the store where it can (one `GROUP BY` statement on SQLite), in memory otherwise, with the
    /// context's unsaved changes unless the descriptor says otherwise.
    ///
    /// ```swift
    /// let perDestination = try context.aggregate(
    ///     GroupedAggregateDescriptor<Trip>([.count, .sum(\.budget)], groupBy: [\.destination]))
    /// let oslo = perDestination.first { $0[\.destination] == "Oslo" }?[.sum(\.budget)]
    /// ```
    ///
    /// - Throws: as the single-aggregate `aggregate(_:)`; also `invalidRequest` for a group key that
    ///   is not an attribute, and for a descriptor with neither an aggregate nor a group key.
    public func aggregate<T: PersistentModel>(_ descriptor: GroupedAggregateDescriptor<T>) throws
        -> [AggregateGroup<T>]
    {
        guard !descriptor.aggregates.isEmpty || !descriptor.groupBy.isEmpty else {
            throw StrataError(
                .invalidRequest, "a GroupedAggregateDescriptor of \(T.self) has neither an aggregate nor a group key",
                location: ["entity": entityName(of: T.self)])
        }
        let plan = try AggregatePlan<T>(
            aggregates: descriptor.aggregates.map(\.column), groupBy: descriptor.groupBy, having: descriptor.having,
            sortBy: descriptor.sortBy, predicate: descriptor.predicate,
            includePendingChanges: descriptor.includePendingChanges, keyPaths: container.keyPaths)
        var request = plan.request
        request.limit = descriptor.fetchLimit
        request.offset = descriptor.fetchOffset ?? 0
        return plan.groups(try objectContext.fetchAggregates(request, options: plan.options))
    }

    /// The distinct values of `keyPath` among the models `predicate` matches, ascending (`nil`
    /// first), each once: SQL's `SELECT DISTINCT`, computed by the store where it can.
    ///
    /// ```swift
    /// let destinations = try context.fetchDistinct(\Trip.destination)   // ["Bergen", "Oslo"]
    /// ```
    ///
    /// - Throws: ``StrataError`` of code `invalidRequest` for a key path that is not a stored
    ///   attribute, `invalidPredicate` for a predicate with no Strata counterpart, and the
    ///   store's errors.
    public func fetchDistinct<T: PersistentModel, Value: PersistentAttributeValue>(
        _ keyPath: KeyPath<T, Value>, predicate: Predicate<T>? = nil, includePendingChanges: Bool = true
    ) throws -> [Value] {
        try distinctValues(keyPath, predicate, includePendingChanges) { Value(storedValue: $0) }
    }

    /// The distinct values of `keyPath` (an enum stored as its raw value), as
    /// `fetchDistinct(_:predicate:includePendingChanges:)` of a plain attribute.
    public func fetchDistinct<T: PersistentModel, Value: RawRepresentable>(
        _ keyPath: KeyPath<T, Value>, predicate: Predicate<T>? = nil, includePendingChanges: Bool = true
    ) throws -> [Value] where Value.RawValue: PersistentAttributeValue {
        try distinctValues(keyPath, predicate, includePendingChanges) { decodeRawValue($0, as: Value.self) }
    }

    /// The distinct values of `keyPath` (an optional enum stored as its raw value), `nil` first.
    public func fetchDistinct<T: PersistentModel, Value: RawRepresentable>(
        _ keyPath: KeyPath<T, Value?>, predicate: Predicate<T>? = nil, includePendingChanges: Bool = true
    ) throws -> [Value?] where Value.RawValue: PersistentAttributeValue {
        try distinctValues(keyPath, predicate, includePendingChanges) { decodeOptionalRawValue($0, as: Value.self) }
    }

    /// The distinct values of `keyPath` as groups of it: the engine's grouped fetch, which SQLite
    /// answers with one `GROUP BY` statement.
    private func distinctValues<T: PersistentModel, Value>(
        _ keyPath: KeyPath<T, Value>, _ predicate: Predicate<T>?, _ includePendingChanges: Bool,
        decode: (StrataCore.Value) -> Value?
    ) throws -> [Value] {
        let plan = try AggregatePlan<T>(
            aggregates: [], groupBy: [keyPath], predicate: predicate,
            includePendingChanges: includePendingChanges, keyPaths: container.keyPaths)
        return try objectContext.fetchAggregates(plan.request, options: plan.options).map { row in
            let stored = row["k0"] ?? .null
            guard let value = decode(stored) else {
                throw StrataError(
                    .typeMismatch, "a value of \(keyPath) is \(stored), which \(Value.self) cannot hold",
                    location: ["entity": plan.request.entityName, "value": "\(stored)", "type": "\(Value.self)"])
            }
            return value
        }
    }
}
