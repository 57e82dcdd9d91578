/// What one column of an aggregate fetch computes: a plain value, or a function over the values
/// of a group (``AggregateRequest``).
///
/// A struct rather than an enum, so functions can be added without breaking callers' switches.
///
/// The semantics, the same on every store (``AggregateEvaluation`` is the reference):
/// - Nulls are skipped by every function; ``count`` without a key path counts objects.
/// - ``sum`` of integers is exact: a sum beyond `Int64` is a ``StrataError/Code/arithmeticOverflow``
///   error, never a wrapped or rounded number. A sum of doubles or floats is a double, of decimals a
///   decimal. The sum of no values is zero.
/// - ``average`` is a double; of no values, null.
/// - ``minimum`` and ``maximum`` follow the sort order of ``ValueComparison/sortOrder(_:_:options:)``
///   (NaN is the smallest number); of no values, null.
public struct AggregateFunction: Sendable, Hashable, CustomStringConvertible {
    package enum Kind: String, Sendable, Hashable {
        case value, count, sum, average, minimum, maximum
    }

    package let kind: Kind

    package init(_ kind: Kind) { self.kind = kind }

    /// The value of the key path itself: a group key, or a column of a plain or distinct fetch.
    public static let value = AggregateFunction(.value)
    /// How many non-null values (how many objects, without a key path), as an integer.
    public static let count = AggregateFunction(.count)
    /// The sum of the non-null numbers.
    public static let sum = AggregateFunction(.sum)
    /// The mean of the non-null numbers, as a double.
    public static let average = AggregateFunction(.average)
    /// The smallest non-null value in sort order.
    public static let minimum = AggregateFunction(.minimum)
    /// The largest non-null value in sort order.
    public static let maximum = AggregateFunction(.maximum)

    /// The function's name: `value`, `count`, `sum`, `average`, `minimum` or `maximum`.
    public var description: String { kind.rawValue }

    /// Whether this combines the values of a group (every function but ``value``).
    public var isAggregate: Bool { kind != .value }
}

/// One column of an aggregate fetch's result: its name in each result dictionary, the function,
/// and the key path it reads (through to-one relationships to an attribute).
///
/// ```swift
/// let columns: [AggregateProperty] = [
///     .value("department.name", as: "department"),
///     .count(as: "people"),
///     .average("salary", as: "meanSalary"),
/// ]
/// ```
public struct AggregateProperty: Sendable, Hashable {
    /// The key of this column in every result dictionary; also the name ``AggregateRequest/havingPredicate``
    /// and ``AggregateRequest/sorts`` use for it.
    public var name: String
    /// What the column computes.
    public var function: AggregateFunction
    /// The attribute read; `nil` only for ``AggregateFunction/count`` of objects.
    public var keyPath: PropertyPath?

    /// Creates a column.
    public init(name: String, function: AggregateFunction, keyPath: PropertyPath?) {
        self.name = name
        self.function = function
        self.keyPath = keyPath
    }

    /// The value of `keyPath`, named `name` (the path's dotted text by default).
    public static func value(_ keyPath: PropertyPath, as name: String? = nil) -> AggregateProperty {
        AggregateProperty(name: name ?? keyPath.description, function: .value, keyPath: keyPath)
    }

    /// The number of objects (no key path) or of non-null values of `keyPath`.
    public static func count(_ keyPath: PropertyPath? = nil, as name: String) -> AggregateProperty {
        AggregateProperty(name: name, function: .count, keyPath: keyPath)
    }

    /// The sum of `keyPath`'s non-null values.
    public static func sum(_ keyPath: PropertyPath, as name: String) -> AggregateProperty {
        AggregateProperty(name: name, function: .sum, keyPath: keyPath)
    }

    /// The mean of `keyPath`'s non-null values, as a double.
    public static func average(_ keyPath: PropertyPath, as name: String) -> AggregateProperty {
        AggregateProperty(name: name, function: .average, keyPath: keyPath)
    }

    /// The smallest of `keyPath`'s non-null values.
    public static func minimum(_ keyPath: PropertyPath, as name: String) -> AggregateProperty {
        AggregateProperty(name: name, function: .minimum, keyPath: keyPath)
    }

    /// The largest of `keyPath`'s non-null values.
    public static func maximum(_ keyPath: PropertyPath, as name: String) -> AggregateProperty {
        AggregateProperty(name: name, function: .maximum, keyPath: keyPath)
    }
}

extension StrataError.Code {
    /// An exact computation left its type's range: the sum of integers beyond `Int64`.
    public static let arithmeticOverflow = StrataError.Code(rawValue: "arithmeticOverflow")
}
