import StrataCore

/// The rows of one attribute's values: for each stored value (by storage equality, ``Value``'s
/// `==`), the keys of the rows that hold it.
struct InMemoryValueIndex: Sendable {
    /// The keys of the rows holding each value.
    var keysByValue: [Value: Set<Int64>] = [:]

    /// Adds the row of `key`, holding `value`.
    mutating func add(_ value: Value, key: Int64) {
        keysByValue[value, default: []].insert(key)
    }

    /// Removes the row of `key`, which held `value`.
    mutating func remove(_ value: Value, key: Int64) {
        guard var keys = keysByValue.removeValue(forKey: value) else { return }
        keys.remove(key)
        if !keys.isEmpty { keysByValue[value] = keys }
    }
}

extension InMemoryTable {
    /// Whether the table keeps an index of the attribute at `attribute`.
    func hasValueIndex(of attribute: Int) -> Bool { valueIndexes[attribute] != nil }

    /// Builds the index of the attribute at `attribute` from the rows (once; later changes keep
    /// it in step). O(n).
    mutating func buildValueIndex(of attribute: Int) {
        guard valueIndexes[attribute] == nil else { return }
        var index = InMemoryValueIndex()
        for row in orderedSnapshots() { index.add(row.attributes[attribute], key: row.objectID.permanentKey) }
        valueIndexes[attribute] = index
    }

    /// The rows whose attribute at `attribute` equals one of `values` by storage equality, in key
    /// order, or `nil` when that attribute has no index. O(matches log matches).
    func rows(whereAttribute attribute: Int, isOneOf values: [Value]) -> [Snapshot]? {
        guard let index = valueIndexes[attribute] else { return nil }
        var keys: Set<Int64> = []
        for value in values { keys.formUnion(index.keysByValue[value] ?? []) }
        return keys.sorted().compactMap { self[$0] }
    }

    /// Keeps the indexes in step with the row of `key` changing from `old` to `new` (either may
    /// be absent).
    mutating func reindex(key: Int64, from old: Snapshot?, to new: Snapshot?) {
        for attribute in valueIndexes.keys {
            let before = old?.attributes[attribute]
            let after = new?.attributes[attribute]
            if before == after && old != nil && new != nil { continue }
            if let before { valueIndexes[attribute]?.remove(before, key: key) }
            if let after { valueIndexes[attribute]?.add(after, key: key) }
        }
    }
}
