import StrataCore

/// What changed between two consecutive results of a live query, by index and by ID.
///
/// Indexes follow the batch-update convention of table and collection views: ``deleted`` and
/// the `from` of ``moved`` are positions in the previous result; ``inserted``, the `to` of
/// ``moved`` and ``updated`` are positions in the new one. To go from the previous result to
/// the new one, remove the deleted and moved objects (at their old positions), then insert the
/// inserted and moved ones (at their new positions, in increasing order): ``applied(to:)`` does
/// exactly this.
///
/// An object whose ID changed (an inserted object saved: its temporary ID became permanent)
/// keeps its row: it appears in ``renamed``, with its position in the previous result, and
/// under its new ID everywhere else. Rename before applying the rest (``applied(to:)`` does).
public struct LiveDiff: Sendable, Hashable {
    /// One object at one position.
    public struct Change: Sendable, Hashable {
        /// The object.
        public var objectID: ObjectID
        /// Its position (in the previous result for a deletion, in the new one otherwise).
        public var index: Int

        /// A change of `objectID` at `index`.
        public init(objectID: ObjectID, index: Int) {
            self.objectID = objectID
            self.index = index
        }
    }

    /// One object that changed position.
    public struct Move: Sendable, Hashable {
        /// The object.
        public var objectID: ObjectID
        /// Its position in the previous result.
        public var from: Int
        /// Its position in the new result.
        public var to: Int

        /// A move of `objectID` from `from` to `to`.
        public init(objectID: ObjectID, from: Int, to: Int) {
            self.objectID = objectID
            self.from = from
            self.to = to
        }
    }

    /// An object whose ID changed while it stayed in the result.
    public struct Rename: Sendable, Hashable {
        /// The ID it had in the previous result.
        public var previousID: ObjectID
        /// The ID it has now.
        public var objectID: ObjectID
        /// Its position in the previous result.
        public var index: Int

        /// A rename of `previousID` at `index` to `objectID`.
        public init(previousID: ObjectID, objectID: ObjectID, index: Int) {
            self.previousID = previousID
            self.objectID = objectID
            self.index = index
        }
    }

    /// Objects whose ID changed (temporary IDs made permanent by a save), by increasing old
    /// position: the previous result holds them under ``Rename/previousID``, and the other
    /// changes name them by their new IDs.
    public var renamed: [Rename] = []
    /// Objects that joined the result, by increasing new position.
    public var inserted: [Change]
    /// Objects that left the result, by increasing old position.
    public var deleted: [Change]
    /// Objects in both results whose order relative to the others changed, by increasing new
    /// position. The fewest moves that explain the new order are reported.
    public var moved: [Move]
    /// Objects in both results whose values changed, by increasing new position (an object can
    /// be both moved and updated).
    public var updated: [Change]

    /// A diff with the given changes.
    public init(inserted: [Change] = [], deleted: [Change] = [], moved: [Move] = [], updated: [Change] = []) {
        self.inserted = inserted
        self.deleted = deleted
        self.moved = moved
        self.updated = updated
    }

    /// Whether nothing changed.
    public var isEmpty: Bool {
        inserted.isEmpty && deleted.isEmpty && moved.isEmpty && updated.isEmpty && renamed.isEmpty
    }

    /// The diff from `old` to `new` (each without duplicates), with the objects of `changed`
    /// that are in both reported as updated, and the temporary IDs of `old` that `renaming`
    /// maps to permanent ones reported as renamed (and compared under their new IDs; other IDs
    /// in `renaming` are ignored).
    ///
    /// Complexity: O(n) when objects were only added or removed, or only reordered within short
    /// stretches (renamed objects that changed places among their ties); O(n log n) otherwise.
    public init(
        from old: [ObjectID], to new: [ObjectID], updating changed: Set<ObjectID> = [],
        renaming: [ObjectID: ObjectID] = [:]
    ) {
        var generallyDiffed = 0
        self.init(from: old, to: new, updating: changed, renaming: renaming, generallyDiffed: &generallyDiffed)
    }

    /// ``init(from:to:updating:renaming:)``, adding to `generallyDiffed` the positions that
    /// went through the general algorithm (hashing and a longest increasing run).
    package init(
        from old: [ObjectID], to new: [ObjectID], updating changed: Set<ObjectID>, renaming: [ObjectID: ObjectID],
        generallyDiffed: inout Int
    ) {
        self.init()
        var old = old
        if !renaming.isEmpty {
            // Only temporary IDs are renamed: the others are not looked up.
            for index in old.indices where old[index].isTemporary {
                guard let renamed = renaming[old[index]] else { continue }
                self.renamed.append(Rename(previousID: old[index], objectID: renamed, index: index))
                old[index] = renamed
            }
        }
        if inOneWalk(from: old, to: new, updating: changed) { return }
        if let windows = Self.reorderedWindows(from: old, to: new) {
            for window in windows {
                generallyDiffed += window.count
                diffGenerally(from: old[window], to: new[window], updating: [])
            }
            if !changed.isEmpty {
                for (index, id) in new.enumerated() where changed.contains(id) {
                    updated.append(Change(objectID: id, index: index))
                }
            }
            return
        }
        generallyDiffed += Swift.max(old.count, new.count)
        diffGenerally(from: old[...], to: new[...], updating: changed)
    }

    /// Fills the diff from `old` to `new`, slices of whole results at the same positions (their
    /// indexes are the results'), by matching IDs and keeping one longest increasing run.
    ///
    /// Complexity: O(n log n) in the length of the slices.
    private mutating func diffGenerally(
        from old: ArraySlice<ObjectID>, to new: ArraySlice<ObjectID>, updating changed: Set<ObjectID>
    ) {
        // The old positions of the objects in both, in new order: those on a longest increasing
        // run stay where they are relative to each other; the others moved.
        var common: [(newIndex: Int, oldIndex: Int)] = []
        common.reserveCapacity(Swift.min(old.count, new.count))
        if old.count <= Self.searchedLength && new.count <= Self.searchedLength {
            // A short stretch (renamed objects among their ties): a search costs less than
            // hashing.
            for index in new.indices {
                if let previous = old.firstIndex(of: new[index]) {
                    common.append((index, previous))
                } else {
                    inserted.append(Change(objectID: new[index], index: index))
                }
            }
            for index in old.indices where !new.contains(old[index]) {
                deleted.append(Change(objectID: old[index], index: index))
            }
        } else {
            var oldIndex: [ObjectID: Int] = [:]
            oldIndex.reserveCapacity(old.count)
            for index in old.indices { oldIndex[old[index]] = index }
            var kept = Set<ObjectID>(minimumCapacity: Swift.min(old.count, new.count))
            for index in new.indices {
                let id = new[index]
                if let previous = oldIndex[id] {
                    common.append((index, previous))
                    kept.insert(id)
                } else {
                    inserted.append(Change(objectID: id, index: index))
                }
            }
            for index in old.indices where !kept.contains(old[index]) {
                deleted.append(Change(objectID: old[index], index: index))
            }
        }
        let staying = Self.longestIncreasingRun(common.map(\.oldIndex))
        for (position, pair) in common.enumerated() {
            let id = new[pair.newIndex]
            if !staying[position] {
                moved.append(Move(objectID: id, from: pair.oldIndex, to: pair.newIndex))
            }
            if changed.contains(id) { updated.append(Change(objectID: id, index: pair.newIndex)) }
        }
    }

    /// The length up to which ``diffGenerally(from:to:updating:)`` searches instead of hashing.
    private static let searchedLength = 16

    /// When `new` is `old` with objects reordered only within stretches (each stretch holds the
    /// same objects in both), those stretches, in order; `nil` when it is not (objects joined or
    /// left). What renaming does to a sorted result: a renamed object changes places among the
    /// objects it ties with, ordered by ID.
    ///
    /// Complexity: O(n) comparisons of IDs; hashes only of the IDs within stretches.
    private static func reorderedWindows(from old: [ObjectID], to new: [ObjectID]) -> [Range<Int>]? {
        guard old.count == new.count else { return nil }
        var windows: [Range<Int>] = []
        // Within a stretch: how many more times each ID was seen in `old` than in `new`, and how
        // many IDs are not even; the stretch ends where every ID is.
        var balance: [ObjectID: Int] = [:]
        var uneven = 0
        var start: Int?
        func count(_ id: ObjectID, _ step: Int) {
            let before = balance[id, default: 0]
            let after = before + step
            if before == 0 { uneven += 1 }
            if after == 0 { uneven -= 1 }
            balance[id] = after == 0 ? nil : after
        }
        for index in old.indices {
            if start == nil {
                if old[index] == new[index] { continue }
                start = index
            }
            count(old[index], 1)
            count(new[index], -1)
            if uneven == 0, let first = start {
                windows.append(first..<(index + 1))
                start = nil
            }
        }
        return start == nil ? windows : nil
    }

    /// Fills the diff from `old` to `new` in one walk of both, when one is the other with
    /// objects added (or removed) and nothing moved: what saves of new objects and deletions do
    /// to a long result. Returns `false`, leaving the diff empty, when that is not the case.
    ///
    /// Complexity: O(n) comparisons of IDs, no hashing (but of `changed`, when it is not empty).
    private mutating func inOneWalk(from old: [ObjectID], to new: [ObjectID], updating changed: Set<ObjectID>) -> Bool {
        // The shorter one is a subsequence of the longer: IDs are unique, so matching each of
        // its IDs to the first equal one ahead finds it, or shows that it is not.
        let (short, long) = old.count <= new.count ? (old, new) : (new, old)
        var matched = 0
        var extra: [Change] = []
        var updated: [Change] = []
        for (index, id) in long.enumerated() {
            if matched < short.count && short[matched] == id {
                if !changed.isEmpty && changed.contains(id) {
                    updated.append(Change(objectID: id, index: old.count <= new.count ? index : matched))
                }
                matched += 1
            } else {
                extra.append(Change(objectID: id, index: index))
            }
        }
        guard matched == short.count else { return false }
        if old.count <= new.count { inserted = extra } else { deleted = extra }
        self.updated = updated
        return true
    }

    /// Whether each position of `values` is on one longest strictly increasing subsequence.
    ///
    /// Complexity: O(n log n).
    private static func longestIncreasingRun(_ values: [Int]) -> [Bool] {
        guard !values.isEmpty else { return [] }
        // tails[k]: the position of the smallest last value of an increasing run of length k + 1.
        var tails: [Int] = []
        var previous = [Int](repeating: -1, count: values.count)
        for (position, value) in values.enumerated() {
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[position] = tails[low - 1] }
            if low == tails.count { tails.append(position) } else { tails[low] = position }
        }
        var run = [Bool](repeating: false, count: values.count)
        var position = tails[tails.count - 1]
        while position >= 0 {
            run[position] = true
            position = previous[position]
        }
        return run
    }

    /// `old` with this diff applied: the renamed objects renamed in place, the deleted and moved
    /// objects removed at their old positions, then the inserted and moved ones put at their new
    /// positions.
    ///
    /// Complexity: O(n + k log k) for k changes.
    public func applied(to old: [ObjectID]) -> [ObjectID] {
        var old = old
        for rename in renamed where old.indices.contains(rename.index) { old[rename.index] = rename.objectID }
        var removed = Set<Int>(minimumCapacity: deleted.count + moved.count)
        for change in deleted { removed.insert(change.index) }
        for move in moved { removed.insert(move.from) }
        var rest: [ObjectID] = []
        rest.reserveCapacity(old.count)
        for (index, id) in old.enumerated() where !removed.contains(index) { rest.append(id) }
        var placed = inserted.map { ($0.index, $0.objectID) } + moved.map { ($0.to, $0.objectID) }
        placed.sort { $0.0 < $1.0 }
        var result: [ObjectID] = []
        result.reserveCapacity(rest.count + placed.count)
        var next = rest.makeIterator()
        for (index, id) in placed {
            while result.count < index, let kept = next.next() { result.append(kept) }
            result.append(id)
        }
        while let kept = next.next() { result.append(kept) }
        return result
    }
}
