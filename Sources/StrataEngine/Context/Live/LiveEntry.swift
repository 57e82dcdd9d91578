import StrataCore

/// One member of a live query's result: its ID with the values it is ordered and sectioned by,
/// kept so that a changed object finds its place by binary search, with no refetch.
struct LiveEntry: Sendable {
    var objectID: ObjectID
    /// The values of the request's sorts, in order.
    var sortKeys: [Value]
    /// The value of the section key path (``Value/null`` without one).
    var section: Value
}

extension LiveEntry {
    /// The entry of `snapshot` in a query ordered by `sorts` and sectioned by `sectionKeyPath`.
    init(of snapshot: Snapshot, sorts: [Sort], sectionKeyPath: PropertyPath?, evaluator: PredicateEvaluator) throws {
        self.init(
            objectID: snapshot.objectID,
            sortKeys: try sorts.map { try evaluator.value(at: $0.keyPath, of: snapshot) },
            section: try sectionKeyPath.map { try evaluator.value(at: $0, of: snapshot) } ?? .null)
    }
}

/// The order of a live query's entries: the request's sorts, ties by object ID (the order of
/// every fetch).
struct LiveOrder {
    /// Per sort, whether smaller values come first and how strings compare: what comparisons
    /// read, without copying the sorts' key paths on each.
    private let directions: [(ascending: Bool, options: ObjectPredicate.Options)]

    /// The order of `sorts`, ties by object ID.
    init(sorts: [Sort]) {
        directions = sorts.map { ($0.ascending, $0.options) }
    }

    /// Whether `a` comes before `b`.
    func precedes(_ a: LiveEntry, _ b: LiveEntry) -> Bool {
        for index in directions.indices {
            let direction = directions[index]
            let order = Self.sortOrder(a.sortKeys[index], b.sortKeys[index], options: direction.options)
            if order != 0 { return direction.ascending ? order < 0 : order > 0 }
        }
        return a.objectID < b.objectID
    }

    /// Whether `a` and `b` have equal sort values (their order is then their IDs').
    func ties(_ a: LiveEntry, _ b: LiveEntry) -> Bool {
        for index in directions.indices
        where Self.sortOrder(a.sortKeys[index], b.sortKeys[index], options: directions[index].options) != 0 {
            return false
        }
        return true
    }

    /// ``ValueComparison/sortOrder(_:_:options:)``, with two integers (the usual sort value)
    /// compared at once, as it compares them.
    @inline(__always)
    private static func sortOrder(_ a: Value, _ b: Value, options: ObjectPredicate.Options) -> Int {
        if case .integer(let x) = a, case .integer(let y) = b { return x < y ? -1 : (x > y ? 1 : 0) }
        return ValueComparison.sortOrder(a, b, options: options)
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
        var comparisons = 0
        return merging(runs: entries, added.sorted(by: precedes), comparisons: &comparisons)
    }

    /// Removes from `entries` (ordered) those whose IDs are in `removed` and puts `added` and
    /// `ordered` (already in this order) in place, in the array itself: a long result that gains
    /// a few thousand objects moves its entries once, from the back, instead of being copied into
    /// a new array. Adds to `comparisons` the comparisons made to place the new entries.
    ///
    /// Complexity: O(n) moves and, with removals, O(n) hashes; O(k log k) to order `added`, and
    /// O(k log(n/k)) comparisons to place the new entries (each place is found by galloping back
    /// from the one after it, not by comparing every entry passed).
    func merge(
        _ entries: inout [LiveEntry], removing removed: [LiveEntry], adding added: [LiveEntry],
        addingOrdered ordered: [LiveEntry] = [], comparisons: inout Int
    ) {
        if !removed.isEmpty {
            let gone = Set(removed.map(\.objectID))
            entries.removeAll { gone.contains($0.objectID) }
        }
        guard !added.isEmpty || !ordered.isEmpty else { return }
        if added.count + ordered.count <= 16 {
            for entry in added + ordered {
                entries.insert(entry, at: insertionIndex(of: entry, in: entries))
                comparisons += Int.bitWidth - entries.count.leadingZeroBitCount
            }
            return
        }
        let incoming: [LiveEntry]
        if added.isEmpty {
            incoming = ordered
        } else {
            let sorted = added.sorted(by: precedes)
            comparisons += sorted.count * (Int.bitWidth - sorted.count.leadingZeroBitCount)
            incoming = ordered.isEmpty ? sorted : merging(runs: sorted, ordered, comparisons: &comparisons)
        }
        // From the back: the kept entries in `entries[..<kept]` that come after the last incoming
        // entry not placed yet move to the end of what is left, by swapping (the slot they leave
        // holds an incoming entry's copy or one already moved, overwritten later), then it goes
        // before them.
        var kept = entries.count
        entries.append(contentsOf: incoming)
        // In the array's buffer: reading an entry to compare it and swapping two entries then
        // copy nothing (an array's elements would be copied out, their sort values retained).
        entries.withUnsafeMutableBufferPointer { entries in
            var write = entries.count
            for next in incoming.indices.reversed() {
                let place = gallopingPlace(
                    of: incoming[next], in: UnsafeBufferPointer(entries), before: kept, comparisons: &comparisons)
                while kept > place {
                    kept -= 1
                    write -= 1
                    entries.swapAt(kept, write)
                }
                write -= 1
                entries[write] = incoming[next]
            }
        }
        assert(isOrdered(entries), "a live query's entries are out of order after a merge")
    }

    /// The entries of `a` and `b` (each ordered, no ID in both), in order.
    ///
    /// Complexity: O(a + b) comparisons.
    private func merging(runs a: [LiveEntry], _ b: [LiveEntry], comparisons: inout Int) -> [LiveEntry] {
        var merged: [LiveEntry] = []
        merged.reserveCapacity(a.count + b.count)
        var i = 0
        var j = 0
        while i < a.count, j < b.count {
            comparisons += 1
            if precedes(b[j], a[i]) {
                merged.append(b[j])
                j += 1
            } else {
                merged.append(a[i])
                i += 1
            }
        }
        merged.append(contentsOf: a[i...])
        merged.append(contentsOf: b[j...])
        return merged
    }

    /// The first position in `entries[..<end]` (ordered) whose entry comes after `entry`: found
    /// by stepping back from `end` by doubling steps, then by binary search within the last step.
    /// Adds the comparisons it made to `comparisons`.
    ///
    /// Complexity: O(log d) comparisons, for d entries between that position and `end`.
    private func gallopingPlace(
        of entry: LiveEntry, in entries: UnsafeBufferPointer<LiveEntry>, before end: Int, comparisons: inout Int
    ) -> Int {
        var high = end
        var step = 1
        while high - step >= 0 && precedes(entry, entries[high - step]) {
            comparisons += 1
            high -= step
            step *= 2
        }
        comparisons += 1
        // entries[high...] come after `entry`; entries[..<(high - step + 1)] do not.
        var low = Swift.max(high - step + 1, 0)
        while low < high {
            comparisons += 1
            let middle = (low + high) / 2
            if precedes(entry, entries[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
