import Foundation

/// The order of the groups of a ``GroupedAggregateDescriptor``: by a group key or by an
/// aggregate, as a `SortDescriptor` orders models.
///
/// ```swift
/// var busiest = GroupedAggregateDescriptor<Trip>(
///     [.count], groupBy: [\.destination], sortBy: [AggregateSortDescriptor(.count, order: .reverse)])
/// busiest.fetchLimit = 3
/// ```
///
/// Values order as fetches sort them (strings by Unicode scalars, `nil` first); ties keep the
/// groups' key order.
public struct AggregateSortDescriptor<Model: PersistentModel> {
    let column: AggregateColumn
    /// Ascending (`.forward`) or descending (`.reverse`).
    public var order: SortOrder

    /// Orders groups by the group key `keyPath` (one of the descriptor's `groupBy`).
    public init<Key>(_ keyPath: KeyPath<Model, Key>, order: SortOrder = .forward) {
        column = .groupKey(keyPath)
        self.order = order
    }

    /// Orders groups by `aggregate` (one of the descriptor's aggregates or not).
    public init<Value>(_ aggregate: Aggregate<Model, Value>, order: SortOrder = .forward) {
        column = aggregate.column
        self.order = order
    }
}
