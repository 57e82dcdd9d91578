import Foundation
import StrataCore

/// One aggregate over the models of a type, typed by its result: the number of models, or the
/// sum, average, minimum or maximum of one stored property.
///
/// ```swift
/// let total = try context.aggregate(AggregateDescriptor(.sum(\Trip.budget)))        // Int
/// let nights = try context.aggregate(AggregateDescriptor(.average(\Trip.nights)))   // Double?
/// ```
///
/// Every function skips nil values. ``count`` and sums of no values are zero; averages, minimums
/// and maximums of no values are `nil`.
public struct Aggregate<Model: PersistentModel, Value> {
    /// What the aggregate computes, and of which property: its identity in a result.
    let column: AggregateColumn
    /// Reads the engine's answer as `Value`, or gives nil when it is of another type.
    let decode: (StrataCore.Value) -> Value?

    init(_ function: AggregateFunction, _ keyPath: AnyKeyPath?, decode: @escaping (StrataCore.Value) -> Value?) {
        column = AggregateColumn(function: function, keyPath: keyPath)
        self.decode = decode
    }
}

extension Aggregate where Value == Int {
    /// The number of models.
    public static var count: Aggregate { Aggregate(.count, nil) { Int(storedValue: $0) } }

    /// The number of models whose `keyPath` is not `nil`.
    public static func count<Property>(_ keyPath: KeyPath<Model, Property>) -> Aggregate {
        Aggregate(.count, keyPath) { Int(storedValue: $0) }
    }
}

extension Aggregate {
    /// The sum of `keyPath`'s values: exact for integers (an `Int`, or `Int64` for an `Int64`
    /// property; beyond its range a ``StrataError`` of code `arithmeticOverflow`), a `Double`
    /// for floating-point properties, a `Decimal` for decimals. Zero when there are no values.
    public static func sum<Property: AggregateSummable>(_ keyPath: KeyPath<Model, Property>)
        -> Aggregate<Model, Property.Sum>
    {
        Aggregate<Model, Property.Sum>(.sum, keyPath) { Property.Sum(storedValue: $0) }
    }

    /// The mean of `keyPath`'s values, as a `Double`; `nil` when there are no values.
    public static func average<Property: AggregateSummable>(_ keyPath: KeyPath<Model, Property>)
        -> Aggregate<Model, Double?>
    {
        Aggregate<Model, Double?>(.average, keyPath) { Double?(storedValue: $0) }
    }

    /// The smallest of `keyPath`'s values (see ``AggregateComparable`` for the order); `nil`
    /// when there are no values.
    public static func min<Property: AggregateComparable>(_ keyPath: KeyPath<Model, Property>)
        -> Aggregate<Model, Property.AggregateBase?>
    {
        Aggregate<Model, Property.AggregateBase?>(.minimum, keyPath) { Property.AggregateBase?(storedValue: $0) }
    }

    /// The largest of `keyPath`'s values (see ``AggregateComparable`` for the order); `nil`
    /// when there are no values.
    public static func max<Property: AggregateComparable>(_ keyPath: KeyPath<Model, Property>)
        -> Aggregate<Model, Property.AggregateBase?>
    {
        Aggregate<Model, Property.AggregateBase?>(.maximum, keyPath) { Property.AggregateBase?(storedValue: $0) }
    }
}

/// An aggregate with its result type erased, for a list of aggregates of different types in a
/// ``GroupedAggregateDescriptor``: `[.count, .sum(\.budget), .max(\.startDate)]`. Read each
/// result back typed with the ``Aggregate`` itself: `group[.sum(\.budget)]`.
public struct AnyAggregate<Model: PersistentModel> {
    let column: AggregateColumn

    /// `aggregate`, its result type erased.
    public init<Value>(_ aggregate: Aggregate<Model, Value>) { column = aggregate.column }

    /// The number of models.
    public static var count: AnyAggregate { AnyAggregate(Aggregate<Model, Int>.count) }

    /// The number of models whose `keyPath` is not `nil`.
    public static func count<Property>(_ keyPath: KeyPath<Model, Property>) -> AnyAggregate {
        AnyAggregate(Aggregate<Model, Int>.count(keyPath))
    }

    /// The sum of `keyPath`'s values (``Aggregate/sum(_:)``).
    public static func sum<Property: AggregateSummable>(_ keyPath: KeyPath<Model, Property>) -> AnyAggregate {
        AnyAggregate(Aggregate<Model, Property.Sum>.sum(keyPath))
    }

    /// The mean of `keyPath`'s values (``Aggregate/average(_:)``).
    public static func average<Property: AggregateSummable>(_ keyPath: KeyPath<Model, Property>) -> AnyAggregate {
        AnyAggregate(Aggregate<Model, Double?>.average(keyPath))
    }

    /// The smallest of `keyPath`'s values (``Aggregate/min(_:)``).
    public static func min<Property: AggregateComparable>(_ keyPath: KeyPath<Model, Property>) -> AnyAggregate {
        AnyAggregate(Aggregate<Model, Property.AggregateBase?>.min(keyPath))
    }

    /// The largest of `keyPath`'s values (``Aggregate/max(_:)``).
    public static func max<Property: AggregateComparable>(_ keyPath: KeyPath<Model, Property>) -> AnyAggregate {
        AnyAggregate(Aggregate<Model, Property.AggregateBase?>.max(keyPath))
    }
}

/// What an aggregate computes and of which key path (`nil` for a count of models), or, with
/// the function `value`, a group key: the identity of a column of an aggregate result.
struct AggregateColumn: Hashable, @unchecked Sendable {
    // Key paths are immutable values; sharing them between threads is safe.
    var function: AggregateFunction
    var keyPath: AnyKeyPath?
}
