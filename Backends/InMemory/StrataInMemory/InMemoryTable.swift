import StrataCore

/// The objects of one entity, by primary key, in key order.
///
/// Keys a store hands out run 1, 2, 3, ... so most rows sit in an array indexed by key: a
/// lookup, insert or delete by key is an array access (no hashing), and a scan in key order
/// reads the array front to back. Keys far beyond the array's end (a key-preserving import of
/// scattered keys) or below 1 go to a dictionary instead, so a few huge keys never allocate a
/// huge array. Holes left by deletes cost one empty slot each; when fewer than a quarter of the
/// slots are used, the rows move to the dictionary and the array is freed.
struct InMemoryTable: Sendable {
    /// Rows whose key is in `1...dense.count`, at index `key - 1`; `nil` where there is none.
    private var dense: [Snapshot?] = []
    /// Rows whose key is outside `1...dense.count`, by key.
    private var sparse: [Int64: Snapshot] = [:]
    /// How many rows the table holds.
    private(set) var count = 0

    /// How far past the array's end a new key may land and still extend the array: keeps the
    /// array at least about half full while keys arrive in order.
    private var growthLimit: Int64 { Int64(max(1024, dense.count)) }

    /// The row of `key`, if any. O(1).
    subscript(key: Int64) -> Snapshot? {
        if key >= 1 && key <= Int64(dense.count) { return dense[Int(key - 1)] }
        return sparse.isEmpty ? nil : sparse[key]
    }

    /// Every row in ascending key order. O(n), plus O(k log k) for `k` rows outside the array.
    func orderedSnapshots() -> [Snapshot] {
        var result: [Snapshot] = []
        result.reserveCapacity(count)
        let outside = sparse.keys.sorted()
        var next = outside.startIndex
        while next < outside.endIndex && outside[next] < 1 {
            result.append(sparse[outside[next]]!)
            next += 1
        }
        for case let row? in dense { result.append(row) }
        while next < outside.endIndex {
            result.append(sparse[outside[next]]!)
            next += 1
        }
        return result
    }

    /// Makes room for `extra` more rows at once, so a large insert does not grow the table step by step.
    mutating func reserveCapacity(_ extra: Int) {
        dense.reserveCapacity(dense.count + extra)
    }

    /// Stores `snapshot` as the row of `key` (a new row, or a replacement).
    mutating func insert(_ snapshot: consuming Snapshot, key: Int64) {
        if key == Int64(dense.count) + 1 && (sparse.isEmpty || sparse[key] == nil) {
            // The next key in order (a store's usual insert): append.
            dense.append(snapshot)
            count += 1
            return
        }
        if key >= 1 && key <= Int64(dense.count) {
            let index = Int(key - 1)
            if isEmptySlot(index) { count += 1 }
            dense[index] = snapshot
            return
        }
        if key > Int64(dense.count) && key - Int64(dense.count) <= growthLimit {
            extendDense(through: key)
            let index = Int(key - 1)
            if isEmptySlot(index) { count += 1 }
            dense[index] = snapshot
            return
        }
        if sparse.updateValue(snapshot, forKey: key) == nil { count += 1 }
    }

    /// Replaces the row of `key` (stores it if there was none, like ``insert(_:key:)``).
    mutating func update(_ snapshot: consuming Snapshot, key: Int64) {
        insert(snapshot, key: key)
    }

    /// Removes the row of `key`, if any.
    mutating func remove(key: Int64) {
        if key >= 1 && key <= Int64(dense.count) {
            let index = Int(key - 1)
            guard !isEmptySlot(index) else { return }
            dense[index] = nil
            count -= 1
            while case .some(.none) = dense.last { dense.removeLast() }
            if dense.count > 1024 && count - sparse.count < dense.count / 4 { moveDenseRowsToSparse() }
        } else if sparse.removeValue(forKey: key) != nil {
            count -= 1
        }
    }

    /// Whether the array's slot `index` holds no row: a match on the optional's case, with no
    /// copy of the row (comparing with `nil` through `==` copies both sides).
    @inline(__always)
    private func isEmptySlot(_ index: Int) -> Bool {
        if case .none = dense[index] { return true }
        return false
    }

    /// Extends the array through `key`, taking in the rows the dictionary held for the new slots.
    private mutating func extendDense(through key: Int64) {
        let oldCount = Int64(dense.count)
        dense.append(contentsOf: repeatElement(nil, count: Int(key - oldCount)))
        guard !sparse.isEmpty else { return }
        for moved in (oldCount + 1)...key {
            if let row = sparse.removeValue(forKey: moved) { dense[Int(moved - 1)] = row }
        }
    }

    /// Moves every row of the array into the dictionary and frees the array (too few slots used).
    private mutating func moveDenseRowsToSparse() {
        for (index, row) in dense.enumerated() {
            if let row { sparse[Int64(index + 1)] = row }
        }
        dense = []
    }
}
