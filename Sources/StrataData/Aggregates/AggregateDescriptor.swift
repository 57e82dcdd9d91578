import Foundation

/// One aggregate of the models a predicate matches, typed by its result: what
/// `ModelContext.aggregate(_:)` computes, next to a
/// `FetchDescriptor`.
///
/// ```swift
/// let booked = TripStatus.booked
/// let total = try context.aggregate(
///     AggregateDescriptor(.sum(\Trip.budget), predicate: #Predicate { $0.status == booked }))   // Int
/// let longest = try context.aggregate(AggregateDescriptor(.max(\Trip.nights)))                // Int?
/// ```
public struct AggregateDescriptor<Model: PersistentModel, Value> {
    /// What to compute.
    public var aggregate: Aggregate<Model, Value>
    /// Which models; `nil` for all of them.
    public var predicate: Predicate<Model>?
    /// Whether the answer includes the context's unsaved changes (true by default).
    public var includePendingChanges: Bool

    /// A descriptor of `aggregate` over the models matching `predicate`.
    public init(_ aggregate: Aggregate<Model, Value>, predicate: Predicate<Model>? = nil) {
        self.aggregate = aggregate
        self.predicate = predicate
        self.includePendingChanges = true
    }
}

/// Aggregates of the models a predicate matches, per group of equal key values: SQL's
/// `GROUP BY` with `HAVING`, what `ModelContext.aggregate(_:)`
/// computes.
///
/// ```swift
/// let perDestination = try context.aggregate(
///     GroupedAggregateDescriptor<Trip>(
///         [.count, .average(\.nights)], groupBy: [\.destination], having: .count > 1))
/// for group in perDestination {
///     print(group[\.destination], group[.count], group[.average(\.nights)] ?? 0)
/// }
/// ```
///
/// - One ``AggregateGroup`` per distinct combination of the group keys' values (`nil` is a
///   value of its own), in ascending key order (`nil` first); no model, no group.
/// - Without group keys, one group of all the matching models, also when none matches.
/// - `having` keeps the groups it matches; `sortBy` orders them (ties keep the key order);
///   `fetchOffset` and `fetchLimit` page them.
public struct GroupedAggregateDescriptor<Model: PersistentModel> {
    /// What to compute for each group.
    public var aggregates: [AnyAggregate<Model>]
    /// The stored properties whose values form the groups.
    public var groupBy: [PartialKeyPath<Model>]
    /// Which groups to keep; `nil` keeps all.
    public var having: AggregateCondition<Model>?
    /// Which models; `nil` for all of them.
    public var predicate: Predicate<Model>?
    /// The order of the groups, before the ascending order of their keys.
    public var sortBy: [AggregateSortDescriptor<Model>]
    /// At most this many groups.
    public var fetchLimit: Int?
    /// Skips this many groups first.
    public var fetchOffset: Int?
    /// Whether the answer includes the context's unsaved changes (true by default).
    public var includePendingChanges: Bool

    /// A descriptor of `aggregates` per group of `groupBy`'s values over the models matching
    /// `predicate`, keeping the groups `having` matches, in the order of `sortBy`.
    public init(
        _ aggregates: [AnyAggregate<Model>], groupBy: [PartialKeyPath<Model>] = [],
        having: AggregateCondition<Model>? = nil, predicate: Predicate<Model>? = nil,
        sortBy: [AggregateSortDescriptor<Model>] = []
    ) {
        self.aggregates = aggregates
        self.groupBy = groupBy
        self.having = having
        self.predicate = predicate
        self.sortBy = sortBy
        self.fetchLimit = nil
        self.fetchOffset = nil
        self.includePendingChanges = true
    }
}
