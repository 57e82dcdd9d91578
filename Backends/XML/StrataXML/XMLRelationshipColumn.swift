/// One relationship's targets for every object of an entity, in the table's row order, as
/// primary keys of the destination entity (the entity and the store identifier are implied).
///
/// A to-one keeps one key per row (rows without a target are recorded in an ``XMLNullMask``); a
/// to-many keeps every row's keys one after the other in one array, with the end offset of each
/// row's keys: sorted for an unordered relationship, the user's order for an ordered one.
struct XMLRelationshipColumn: Sendable {
    /// Whether the relationship is to-many.
    let isToMany: Bool
    /// To-one: one key per row (0 where none). To-many: every row's keys, row after row.
    private(set) var targets: [Int64] = []
    /// To-many: the end offset in `targets` of each row's keys.
    private(set) var ends: [Int] = []
    /// To-one: the rows without a target.
    private(set) var nulls = XMLNullMask()

    /// An empty column for a to-one (`isToMany == false`) or to-many relationship.
    init(isToMany: Bool) { self.isToMany = isToMany }

    /// The number of rows.
    var count: Int { isToMany ? ends.count : targets.count }

    /// Reserves room for `rows` rows in all (and, for a to-one, their targets).
    mutating func reserveCapacity(rows: Int) {
        if isToMany { ends.reserveCapacity(rows) } else { targets.reserveCapacity(rows) }
    }

    /// The target keys of `row` (none, one, or a to-many's list). O(1).
    func keys(at row: Int) -> ArraySlice<Int64> {
        if isToMany { return targets[(row == 0 ? 0 : ends[row - 1])..<ends[row]] }
        return nulls.contains(row) ? [] : targets[row..<(row + 1)]
    }

    /// Appends a row with no target (a `nil` to-one, an empty to-many).
    mutating func appendNone() {
        if isToMany {
            ends.append(targets.count)
        } else {
            nulls.insert(targets.count)
            targets.append(0)
        }
    }

    /// Appends a row holding `stored` (of this column's kind).
    mutating func append(_ stored: StoredRelationship) {
        switch stored {
        case .toOne(nil):
            appendNone()
        case .toOne(let key?):
            precondition(!isToMany, "a to-one value in a to-many column")
            targets.append(key)
        case .toMany(let keys):
            precondition(isToMany, "a to-many value in a to-one column")
            targets.append(contentsOf: keys)
            ends.append(targets.count)
        }
    }

    /// Appends relationship `r` of each of `rows` (a save's checked rows).
    mutating func append(relationship r: Int, of rows: UnsafeBufferPointer<(key: Int64, row: StoredRow)>) {
        reserveCapacity(rows: count + rows.count)
        for i in rows.indices { append(rows[i].row.relationships[r]) }
    }

    /// Appends a row read from the file: `12` for a to-one, `3 4 5` (single spaces; empty for no
    /// target) for a to-many, sorted when `sorted` is true. Returns false, appending nothing,
    /// when the text is not that.
    mutating func append(parsing text: UnsafeBufferPointer<UInt8>, sorted: Bool) -> Bool {
        if !isToMany {
            guard let key = XMLFormat.parseInteger(text) else { return false }
            targets.append(key)
            return true
        }
        let first = targets.count
        if !text.isEmpty {
            var start = 0
            for i in 0...text.count where i == text.count || text[i] == 0x20 {
                guard i > start, let key = XMLFormat.parseInteger(UnsafeBufferPointer(rebasing: text[start..<i])) else {
                    targets.removeLast(targets.count - first)
                    return false
                }
                targets.append(key)
                start = i + 1
            }
            if sorted { targets[first...].sort() }
        }
        ends.append(targets.count)
        return true
    }

    /// Appends the rows `range` of `other` (a column of the same kind): bulk copies.
    mutating func append(rowsOf other: XMLRelationshipColumn, _ range: Range<Int>) {
        guard !range.isEmpty else { return }
        if isToMany {
            let start = range.lowerBound == 0 ? 0 : other.ends[range.lowerBound - 1]
            let shift = targets.count - start
            targets.append(contentsOf: other.targets[start..<other.ends[range.upperBound - 1]])
            ends.reserveCapacity(ends.count + range.count)
            for row in range { ends.append(other.ends[row] + shift) }
        } else {
            let first = targets.count
            targets.append(contentsOf: other.targets[range])
            if !other.nulls.isEmpty {
                for row in range where other.nulls.contains(row) { nulls.insert(first + row - range.lowerBound) }
            }
        }
    }

    /// Removes every row from `count` on.
    mutating func truncate(to count: Int) {
        guard count < self.count else { return }
        if isToMany {
            ends.removeLast(ends.count - count)
            targets.removeLast(targets.count - (ends.last ?? 0))
        } else {
            targets.removeLast(targets.count - count)
            nulls.truncate(to: count)
        }
    }

    /// The column with its rows in the order `order` (a permutation of the row indexes).
    func permuted(_ order: [Int]) -> XMLRelationshipColumn {
        var result = XMLRelationshipColumn(isToMany: isToMany)
        for row in order { result.append(rowsOf: self, row..<(row + 1)) }
        return result
    }

    /// Removes the targets for which `isGone` is true from every row; returns whether anything
    /// changed. O(targets).
    mutating func removeTargets(where isGone: (Int64) -> Bool) -> Bool {
        if !isToMany {
            var changed = false
            for row in targets.indices where !nulls.contains(row) && isGone(targets[row]) {
                nulls.insert(row)
                targets[row] = 0
                changed = true
            }
            return changed
        }
        guard targets.contains(where: isGone) else { return false }
        var kept: [Int64] = []
        kept.reserveCapacity(targets.count)
        var start = 0
        for row in ends.indices {
            for key in targets[start..<ends[row]] where !isGone(key) { kept.append(key) }
            start = ends[row]
            ends[row] = kept.count
        }
        targets = kept
        return true
    }
}
