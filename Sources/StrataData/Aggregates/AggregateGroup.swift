import StrataCore

/// One group of an aggregate result: the values of its group keys and of its aggregates, read
/// back typed by the key path or the aggregate that asked for them.
///
/// ```swift
/// for group in try context.aggregate(
///     GroupedAggregateDescriptor<Trip>([.count, .sum(\.budget)], groupBy: [\.destination]))
/// {
///     print(group[\.destination], group[.count], group[.sum(\.budget)])
/// }
/// ```
///
/// Asking for a key path that is not a group key, or an aggregate the descriptor did not list,
/// is a programmer's mistake and stops the program with a message naming it.
public struct AggregateGroup<Model: PersistentModel> {
    let values: [AggregateColumn: StrataCore.Value]

    /// The result of `aggregate` for this group.
    public subscript<Value>(_ aggregate: Aggregate<Model, Value>) -> Value {
        let stored = value(of: aggregate.column, "the aggregate \(aggregate.column)")
        guard let value = aggregate.decode(stored) else { mismatch(stored, "the aggregate \(aggregate.column)") }
        return value
    }

    /// The value of the group key `keyPath` in this group.
    public subscript<Key: PersistentAttributeValue>(_ keyPath: KeyPath<Model, Key>) -> Key {
        let stored = value(of: .groupKey(keyPath), "the group key \(keyPath)")
        guard let key = Key(storedValue: stored) else { mismatch(stored, "the group key \(keyPath)") }
        return key
    }

    /// The value of the group key `keyPath` (an enum stored as its raw value) in this group.
    public subscript<Key: RawRepresentable>(_ keyPath: KeyPath<Model, Key>) -> Key
    where Key.RawValue: PersistentAttributeValue {
        let stored = value(of: .groupKey(keyPath), "the group key \(keyPath)")
        guard let key = decodeRawValue(stored, as: Key.self) else { mismatch(stored, "the group key \(keyPath)") }
        return key
    }

    /// The value of the group key `keyPath` (an optional enum stored as its raw value) in this
    /// group.
    public subscript<Key: RawRepresentable>(_ keyPath: KeyPath<Model, Key?>) -> Key?
    where Key.RawValue: PersistentAttributeValue {
        let stored = value(of: .groupKey(keyPath), "the group key \(keyPath)")
        guard let key = decodeOptionalRawValue(stored, as: Key.self) else {
            mismatch(stored, "the group key \(keyPath)")
        }
        return key
    }

    private func value(of column: AggregateColumn, _ what: @autoclosure () -> String) -> StrataCore.Value {
        guard let stored = values[column] else {
            preconditionFailure("an AggregateGroup of \(Model.self) has no value for \(what()): it was not asked for")
        }
        return stored
    }

    private func mismatch(_ stored: StrataCore.Value, _ what: String) -> Never {
        preconditionFailure("\(what) of \(Model.self) is \(stored), which its type cannot hold")
    }
}

extension AggregateColumn: CustomStringConvertible {
    /// A group key.
    static func groupKey(_ keyPath: AnyKeyPath) -> AggregateColumn {
        AggregateColumn(function: .value, keyPath: keyPath)
    }

    /// `sum(\Trip.budget)`, `count`.
    var description: String { keyPath.map { "\(function)(\($0))" } ?? "\(function)" }
}

/// An enum's value from its stored raw value, or nil when the value is no raw value of it.
func decodeRawValue<Key: RawRepresentable>(_ stored: StrataCore.Value, as _: Key.Type) -> Key?
where Key.RawValue: PersistentAttributeValue {
    Key.RawValue(storedValue: stored).flatMap(Key.init(rawValue:))
}

/// An optional enum's value from its stored raw value (`nil` for null), or nil when the value
/// is no raw value of it.
func decodeOptionalRawValue<Key: RawRepresentable>(_ stored: StrataCore.Value, as _: Key.Type) -> Key??
where Key.RawValue: PersistentAttributeValue {
    if stored.isNull { return .some(nil) }
    return decodeRawValue(stored, as: Key.self).map { .some($0) }
}
