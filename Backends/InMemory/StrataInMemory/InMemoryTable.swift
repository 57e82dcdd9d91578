import StrataCore

/// The objects of one entity, by primary key, in key order.
///
/// Keys a store hands out only grow (1, 2, 3, ...), so most rows sit in an array indexed by key:
/// a lookup, insert or delete by key is an array access (no hashing), and a scan in key order
/// reads the array front to back. The array covers one run of keys, `base + 1 ... base + count`:
/// deleting the oldest rows moves its start forward, and once fewer than a quarter of its slots
/// are used its rows move out and the next keys start a new run. Rows outside the run (keys far
/// past its end, below its start, or left from an earlier run) sit in a dictionary beside it,
/// with their keys kept in order, so no scan ever sorts.
struct InMemoryTable: Sendable {
    /// Rows of keys `base + 1 ... base + dense.count`, at index `key - base - 1`; `nil` where
    /// there is none.
    private var dense: [Snapshot?] = []
    /// The key just before the array's first slot.
    private var base: Int64 = 0
    /// Rows whose key is outside the array's run, by key.
    private var sparse: [Int64: Snapshot] = [:]
    /// The dictionary's keys in ascending order; may also hold keys removed since (skipped by
    /// scans, dropped when they are half the list).
    private var sparseOrder: [Int64] = []
    /// How many keys in `sparseOrder` are no longer in `sparse`.
    private var staleSparseKeys = 0
    /// The array's slots before this index are all empty (the oldest rows, deleted).
    private var leadingEmpty = 0
    /// How many rows the table holds.
    private(set) var count = 0
    /// Indexes of attribute values, by attribute position, built on demand
    /// (``buildValueIndex(of:)``) and kept in step by every insert, update and removal.
    var valueIndexes: [Int: InMemoryValueIndex] = [:]

    /// How far past the array's end a new key may land and still extend it: keeps the array at
    /// least about half full while keys arrive in order.
    private var growthLimit: Int64 { Int64(max(1024, dense.count)) }

    /// The slot of `key` in the array, if the array's run covers it.
    @inline(__always)
    private func slot(of key: Int64) -> Int? {
        let offset = key &- base
        return offset >= 1 && offset <= Int64(dense.count) && key > base ? Int(offset - 1) : nil
    }

    /// How the rows are laid out, for tests and diagnostics: the array's slots, the key of its
    /// first slot, and the rows kept outside it.
    var layout: (arraySlots: Int, firstArrayKey: Int64, outsideRows: Int) { (dense.count, base + 1, sparse.count) }

    /// The row of `key`, if any. O(1).
    subscript(key: Int64) -> Snapshot? {
        if let slot = slot(of: key) { return dense[slot] }
        return sparse.isEmpty ? nil : sparse[key]
    }

    /// Every row in ascending key order. O(n).
    func orderedSnapshots() -> [Snapshot] {
        var result: [Snapshot] = []
        result.reserveCapacity(count)
        var next = sparseOrder.startIndex
        func appendSparse(below limit: Int64?) {
            while next < sparseOrder.endIndex, limit.map({ sparseOrder[next] <= $0 }) ?? true {
                if let row = sparse[sparseOrder[next]] { result.append(row) }
                next += 1
            }
        }
        appendSparse(below: base)
        for case let row? in dense { result.append(row) }
        appendSparse(below: nil)
        return result
    }

    /// Makes room for `extra` more rows at once, so a large insert does not grow the table step by step.
    mutating func reserveCapacity(_ extra: Int) {
        dense.reserveCapacity(dense.count + extra)
    }

    /// Stores `snapshot` as the row of `key` (a new row, or a replacement).
    mutating func insert(_ snapshot: consuming Snapshot, key: Int64) {
        if !valueIndexes.isEmpty { reindex(key: key, from: self[key], to: snapshot) }
        let end = base &+ Int64(dense.count)
        if key == end &+ 1 && key > base && (sparse.isEmpty || sparse[key] == nil) {
            // The next key of the run (a store's usual insert): append.
            dense.append(snapshot)
            count += 1
            return
        }
        if let slot = slot(of: key) {
            if isEmptySlot(slot) { count += 1 }
            dense[slot] = snapshot
            leadingEmpty = min(leadingEmpty, slot)
            return
        }
        if dense.isEmpty && key > Int64.min {
            // No run: this key starts one.
            base = key - 1
            extendDense(through: key)
            if isEmptySlot(0) { count += 1 }
            dense[0] = snapshot
            return
        }
        let gap = key &- end
        if key > end && gap > 0 && gap <= growthLimit {
            extendDense(through: key)
            let slot = Int(key - base - 1)
            if isEmptySlot(slot) { count += 1 }
            dense[slot] = snapshot
            return
        }
        insertSparse(snapshot, key: key)
    }

    /// Replaces the row of `key` (stores it if there was none, like ``insert(_:key:)``).
    mutating func update(_ snapshot: consuming Snapshot, key: Int64) {
        insert(snapshot, key: key)
    }

    /// Removes the row of `key`, if any.
    mutating func remove(key: Int64) {
        if !valueIndexes.isEmpty, let old = self[key] { reindex(key: key, from: old, to: nil) }
        if let slot = slot(of: key) {
            guard !isEmptySlot(slot) else { return }
            dense[slot] = nil
            count -= 1
            while case .some(.none) = dense.last { dense.removeLast() }
            if slot == leadingEmpty {
                while leadingEmpty < dense.count, isEmptySlot(leadingEmpty) { leadingEmpty += 1 }
            }
            trimLeadingSlots()
            let inArray = count - sparse.count
            if dense.count > 1024 && inArray < dense.count / 4 { moveDenseRowsToSparse() }
        } else if sparse.removeValue(forKey: key) != nil {
            count -= 1
            staleSparseKeys += 1
            if staleSparseKeys > 64 && staleSparseKeys * 2 > sparseOrder.count {
                sparseOrder.removeAll { sparse[$0] == nil }
                staleSparseKeys = 0
            }
        }
    }

    /// Whether the array's slot `index` holds no row: a match on the optional's case, with no
    /// copy of the row (comparing with `nil` through `==` copies both sides).
    @inline(__always)
    private func isEmptySlot(_ index: Int) -> Bool {
        if case .none = dense[index] { return true }
        return false
    }

    /// Drops the empty slots at the array's start once they are half of it (the oldest rows were
    /// deleted), moving the run's start forward. Amortized O(1) per removal.
    private mutating func trimLeadingSlots() {
        if dense.isEmpty {
            base = 0
            leadingEmpty = 0
            return
        }
        guard leadingEmpty > 0, leadingEmpty * 2 >= dense.count else { return }
        dense.removeFirst(leadingEmpty)
        base += Int64(leadingEmpty)
        leadingEmpty = 0
    }

    /// Extends the array through `key`, taking in the rows the dictionary held for the new slots.
    private mutating func extendDense(through key: Int64) {
        let oldEnd = base + Int64(dense.count)
        dense.append(contentsOf: repeatElement(nil, count: Int(key - oldEnd)))
        guard !sparse.isEmpty else { return }
        for moved in (oldEnd + 1)...key {
            if let row = sparse.removeValue(forKey: moved) {
                dense[Int(moved - base - 1)] = row
                staleSparseKeys += 1
            }
        }
    }

    /// Stores a row outside the array's run, keeping the dictionary's keys in order.
    private mutating func insertSparse(_ snapshot: consuming Snapshot, key: Int64) {
        guard sparse.updateValue(snapshot, forKey: key) == nil else { return }
        count += 1
        if let last = sparseOrder.last, last >= key {
            // Out of order (rare: keys are handed out in order): find its place.
            var low = 0
            var high = sparseOrder.count
            while low < high {
                let middle = (low + high) / 2
                if sparseOrder[middle] < key { low = middle + 1 } else { high = middle }
            }
            if low < sparseOrder.count && sparseOrder[low] == key {
                staleSparseKeys -= 1 // a removed key come back: its place is still listed
            } else {
                sparseOrder.insert(key, at: low)
            }
        } else {
            sparseOrder.append(key)
        }
    }

    /// Moves every row of the array into the dictionary and frees the array (too few slots
    /// used); the next key out of order starts a new run. The moved keys are merged into the
    /// dictionary's ordered keys in one pass.
    private mutating func moveDenseRowsToSparse() {
        var moved: [Int64] = []
        moved.reserveCapacity(count - sparse.count)
        for (index, row) in dense.enumerated() {
            guard let row else { continue }
            let key = base + Int64(index) + 1
            sparse[key] = row
            moved.append(key)
        }
        var merged: [Int64] = []
        merged.reserveCapacity(sparseOrder.count + moved.count)
        var i = 0
        var j = 0
        while i < sparseOrder.count || j < moved.count {
            if j == moved.count || (i < sparseOrder.count && sparseOrder[i] < moved[j]) {
                merged.append(sparseOrder[i])
                i += 1
            } else if i == sparseOrder.count || moved[j] < sparseOrder[i] {
                merged.append(moved[j])
                j += 1
            } else {
                // A key listed as removed from the dictionary (it had moved into the array) is
                // back in it: listed once, no longer stale.
                merged.append(moved[j])
                staleSparseKeys -= 1
                i += 1
                j += 1
            }
        }
        sparseOrder = merged
        dense = []
        base = 0
        leadingEmpty = 0
    }
}
