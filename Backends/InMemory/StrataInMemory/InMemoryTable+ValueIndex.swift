import StrataCore

/// The rows of one attribute's values: for each stored value (by storage equality, ``Value``'s
/// `==`), the keys of the rows that hold it.
///
/// Copy-on-write by hand: the dictionary sits in a class of its own, copied only when a change
/// finds it shared, and each copy is counted (``copiedEntries``), so tests can check that keeping
/// the index in step costs what a save changes, not the index's size.
struct InMemoryValueIndex: Sendable {
    /// The dictionary, shared between copies of the index until one of them changes.
    private final class Storage: @unchecked Sendable {
        // Mutated only through `makeUnique()`, when no other index holds this storage.
        var keysByValue: [Value: Set<Int64>]

        init(_ keysByValue: [Value: Set<Int64>]) { self.keysByValue = keysByValue }
    }

    private var storage = Storage([:])
    /// How many entries changes have copied because the storage was shared, in total.
    private(set) var copiedEntries = 0

    /// The keys of the rows holding each value.
    var keysByValue: [Value: Set<Int64>] { storage.keysByValue }

    /// The keys of the rows holding `value`. O(1).
    func keys(holding value: Value) -> Set<Int64>? { storage.keysByValue[value] }

    /// Gives this index storage of its own before a change, copying (and counting) a shared one.
    private mutating func makeUnique() {
        guard !isKnownUniquelyReferenced(&storage) else { return }
        copiedEntries += storage.keysByValue.count
        storage = Storage(storage.keysByValue)
    }

    /// Adds the row of `key`, holding `value`. O(1) when the storage is not shared.
    mutating func add(_ value: Value, key: Int64) {
        makeUnique()
        storage.keysByValue[value, default: []].insert(key)
    }

    /// Removes the row of `key`, which held `value`. O(1) when the storage is not shared.
    mutating func remove(_ value: Value, key: Int64) {
        makeUnique()
        guard var keys = storage.keysByValue.removeValue(forKey: value) else { return }
        keys.remove(key)
        if !keys.isEmpty { storage.keysByValue[value] = keys }
    }
}

extension InMemoryTable {
    /// Whether the table keeps an index of the attribute at `attribute`.
    func hasValueIndex(of attribute: Int) -> Bool { valueIndexes[attribute] != nil }

    /// How many index entries changes to this table have copied because an index's storage was
    /// shared, in total: zero while every change finds its indexes held by this table alone.
    var copiedIndexEntries: Int { valueIndexes.values.reduce(0) { $0 + $1.copiedEntries } }

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
        for value in values { keys.formUnion(index.keys(holding: value) ?? []) }
        return keys.sorted().compactMap { self[$0] }
    }

    /// Keeps the indexes in step with the row of `key` changing from `old` to `new` (either may
    /// be absent). O(number of indexes).
    ///
    /// Walks the indexes by position and changes each in place: iterating the dictionary (or its
    /// keys) while changing it would keep a second reference to its storage, so each change would
    /// copy the dictionary and then the whole index it changes (every row, at every change).
    mutating func reindex(key: Int64, from old: Snapshot?, to new: Snapshot?) {
        var position = valueIndexes.startIndex
        while position != valueIndexes.endIndex {
            let attribute = valueIndexes.keys[position]
            let before = old?.attributes[attribute]
            let after = new?.attributes[attribute]
            if before != after || old == nil || new == nil {
                if let before { valueIndexes.values[position].remove(before, key: key) }
                if let after { valueIndexes.values[position].add(after, key: key) }
            }
            valueIndexes.formIndex(after: &position)
        }
    }
}
