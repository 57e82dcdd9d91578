import StrataCore

/// One member of a live query's result: its ID with the values it is ordered and sectioned by,
/// kept so that a changed object finds its place by binary search, with no refetch.
struct LiveEntry {
    var objectID: ObjectID
    /// The values of the request's sorts, in order.
    var sortKeys: [Value]
    /// The value of the section key path (``Value/null`` without one).
    var section: Value
}

/// The order of a live query's entries: the request's sorts, ties by object ID (the order of
/// every fetch).
struct LiveOrder {
    let sorts: [Sort]

    /// Whether `a` comes before `b`.
    func precedes(_ a: LiveEntry, _ b: LiveEntry) -> Bool {
        for (index, sort) in sorts.enumerated() {
            let order = ValueComparison.sortOrder(a.sortKeys[index], b.sortKeys[index], options: sort.options)
            if order != 0 { return sort.ascending ? order < 0 : order > 0 }
        }
        return a.objectID < b.objectID
    }

    /// Whether `a` and `b` have equal sort values (their order is then their IDs').
    func ties(_ a: LiveEntry, _ b: LiveEntry) -> Bool {
        for (index, sort) in sorts.enumerated()
        where ValueComparison.sortOrder(a.sortKeys[index], b.sortKeys[index], options: sort.options) != 0 {
            return false
        }
        return true
    }

    /// The positions around `index` in `entries` (ordered but for IDs) whose entries tie with
    /// the one at `index`.
    ///
    /// Complexity: O(t) comparisons for t ties.
    func ties(of index: Int, in entries: [LiveEntry]) -> Range<Int> {
        var low = index
        while low > 0 && ties(entries[low - 1], entries[index]) { low -= 1 }
        var high = index + 1
        while high < entries.count && ties(entries[high], entries[index]) { high += 1 }
        return low..<high
    }

    /// The first position in `entries` (ordered) whose entry does not come before `entry`.
    ///
    /// Complexity: O(log n) comparisons.
    func insertionIndex(of entry: LiveEntry, in entries: [LiveEntry]) -> Int {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if precedes(entries[middle], entry) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Whether `entries` are in this order.
    func isOrdered(_ entries: [LiveEntry]) -> Bool {
        zip(entries, entries.dropFirst()).allSatisfy { precedes($0, $1) }
    }

    /// `entries` (ordered) without those whose IDs are in `removed`, with `added` in place.
    ///
    /// Complexity: O(k log n) moves of the array for a few changes; O(n + k log k) for many.
    func merging(_ entries: [LiveEntry], removing removed: [LiveEntry], adding added: [LiveEntry]) -> [LiveEntry] {
        var entries = entries
        if removed.count + added.count <= 16 {
            for entry in removed {
                let index = insertionIndex(of: entry, in: entries)
                if index < entries.count, entries[index].objectID == entry.objectID { entries.remove(at: index) }
            }
            for entry in added { entries.insert(entry, at: insertionIndex(of: entry, in: entries)) }
            return entries
        }
        if !removed.isEmpty {
            let gone = Set(removed.map(\.objectID))
            entries.removeAll { gone.contains($0.objectID) }
        }
        guard !added.isEmpty else { return entries }
        let incoming = added.sorted(by: precedes)
        var merged: [LiveEntry] = []
        merged.reserveCapacity(entries.count + incoming.count)
        var i = 0
        var j = 0
        while i < entries.count, j < incoming.count {
            if precedes(incoming[j], entries[i]) {
                merged.append(incoming[j])
                j += 1
            } else {
                merged.append(entries[i])
                i += 1
            }
        }
        merged.append(contentsOf: entries[i...])
        merged.append(contentsOf: incoming[j...])
        return merged
    }

    /// Removes from `entries` (ordered) those whose IDs are in `removed` and puts `added` in
    /// place, in the array itself: a long result that gains a few thousand objects moves its
    /// entries once, from the back, instead of being copied into a new array.
    ///
    /// Complexity: O(n) moves and, with removals, O(n) hashes; O(k log k) to order `added`.
    func merge(_ entries: inout [LiveEntry], removing removed: [LiveEntry], adding added: [LiveEntry]) {
        if !removed.isEmpty {
            let gone = Set(removed.map(\.objectID))
            entries.removeAll { gone.contains($0.objectID) }
        }
        guard !added.isEmpty else { return }
        if added.count <= 16 {
            for entry in added { entries.insert(entry, at: insertionIndex(of: entry, in: entries)) }
            return
        }
        let incoming = added.sorted(by: precedes)
        var kept = entries.count - 1
        entries.append(contentsOf: incoming)
        // From the back: the larger of the last kept entry and the last incoming one goes to
        // the end of what is left; kept entries move by swapping (the slot they leave holds an
        // incoming entry's copy or one already moved, overwritten later).
        var next = incoming.count - 1
        var write = entries.count - 1
        while next >= 0 {
            if kept >= 0 && precedes(incoming[next], entries[kept]) {
                entries.swapAt(kept, write)
                kept -= 1
            } else {
                entries[write] = incoming[next]
                next -= 1
            }
            write -= 1
        }
        assert(isOrdered(entries), "a live query's entries are out of order after a merge")
    }
}
