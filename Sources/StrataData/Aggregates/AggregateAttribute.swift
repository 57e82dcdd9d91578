import Foundation
import StrataCore

/// An attribute type whose values have an order, so ``Aggregate/min(_:)`` and ``Aggregate/max(_:)``
/// can reduce them: numbers, strings, dates and booleans, and their optionals.
///
/// Strings order by Unicode scalars, dates chronologically, `false` before `true`, NaN before
/// every other number. Binary data, UUIDs and URLs have no order to aggregate by. Do not
/// declare new conformances.
public protocol AggregateComparable: PersistentAttributeValue {
    /// The type of one value without its optionality (`Int` for `Int?`), what a minimum or
    /// maximum returns (wrapped in an optional: `nil` when there are no values).
    associatedtype AggregateBase: PersistentAttributeValue
}

/// An attribute type whose values ``Aggregate/sum(_:)`` and ``Aggregate/average(_:)`` can add:
/// integers, floating-point numbers and decimals, and their optionals. Do not declare new
/// conformances.
public protocol AggregateSummable: AggregateComparable {
    /// What a sum of these values is: `Int` for integers (`Int64` for `Int64`), exact, with a
    /// ``StrataError`` of code `arithmeticOverflow` beyond its range; `Double` for `Double` and
    /// `Float`; `Decimal` for `Decimal`.
    associatedtype Sum: PersistentAttributeValue
}

extension String: AggregateComparable { public typealias AggregateBase = String }
extension Bool: AggregateComparable { public typealias AggregateBase = Bool }
extension Date: AggregateComparable { public typealias AggregateBase = Date }

extension Int: AggregateSummable {
    public typealias AggregateBase = Int
    public typealias Sum = Int
}
extension Int8: AggregateSummable {
    public typealias AggregateBase = Int8
    public typealias Sum = Int
}
extension Int16: AggregateSummable {
    public typealias AggregateBase = Int16
    public typealias Sum = Int
}
extension Int32: AggregateSummable {
    public typealias AggregateBase = Int32
    public typealias Sum = Int
}
extension Int64: AggregateSummable {
    public typealias AggregateBase = Int64
    public typealias Sum = Int64
}
extension UInt8: AggregateSummable {
    public typealias AggregateBase = UInt8
    public typealias Sum = Int
}
extension UInt16: AggregateSummable {
    public typealias AggregateBase = UInt16
    public typealias Sum = Int
}
extension UInt32: AggregateSummable {
    public typealias AggregateBase = UInt32
    public typealias Sum = Int
}
extension UInt: AggregateSummable {
    public typealias AggregateBase = UInt
    public typealias Sum = Int
}
extension UInt64: AggregateSummable {
    public typealias AggregateBase = UInt64
    public typealias Sum = Int
}
extension Double: AggregateSummable {
    public typealias AggregateBase = Double
    public typealias Sum = Double
}
extension Float: AggregateSummable {
    public typealias AggregateBase = Float
    public typealias Sum = Double
}
extension Decimal: AggregateSummable {
    public typealias AggregateBase = Decimal
    public typealias Sum = Decimal
}

extension Optional: AggregateComparable where Wrapped: AggregateComparable {
    /// The wrapped type's.
    public typealias AggregateBase = Wrapped.AggregateBase
}
extension Optional: AggregateSummable where Wrapped: AggregateSummable {
    /// The wrapped type's: nil values are skipped.
    public typealias Sum = Wrapped.Sum
}
