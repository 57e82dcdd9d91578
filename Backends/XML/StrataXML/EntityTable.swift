import StrataCore

/// The objects of one entity, sorted by primary key, kept column by column: the keys, the
/// versions, one ``XMLColumn`` per attribute and one ``XMLRelationshipColumn`` per relationship,
/// all parallel (row `i` of each belongs to the object `keys[i]`).
///
/// Sorted arrays rather than a dictionary: the file is written in key order, fetches return key
/// order, loading a file (already in key order) only appends, and a key costs 8 bytes. Lookups are
/// binary searches, O(log n). A save rebuilds a changed table in one merge pass that copies the
/// untouched runs of rows in bulk, O(n + k log k), which is what writing the whole file costs
/// anyway. Values are boxed into ``Value``s only when read (``value(_:at:)``, ``row(at:)``).
struct EntityTable: Sendable {
    /// The primary keys, strictly ascending.
    private(set) var keys: [Int64] = []
    /// The optimistic-locking versions, parallel to ``keys``.
    private(set) var versions: [Int64] = []
    /// One column per attribute, indexed like ``Entity/attributes``.
    private(set) var columns: [XMLColumn]
    /// One column per relationship, indexed like ``Entity/relationships``.
    private(set) var relationships: [XMLRelationshipColumn]

    /// An empty table for `entity`.
    init(entity: Entity) {
        columns = entity.attributes.map { XMLColumn(type: $0.type) }
        relationships = entity.relationships.map { XMLRelationshipColumn(isToMany: $0.isToMany) }
    }

    /// A table from parallel columns (as the loader builds them); `keys` must be strictly
    /// ascending and every column as long as `keys`.
    init(keys: [Int64], versions: [Int64], columns: [XMLColumn], relationships: [XMLRelationshipColumn]) {
        precondition(versions.count == keys.count && columns.allSatisfy { $0.count == keys.count } && relationships.allSatisfy { $0.count == keys.count })
        self.keys = keys
        self.versions = versions
        self.columns = columns
        self.relationships = relationships
    }

    /// An empty table with the same columns as `other`.
    private init(shapeOf other: EntityTable) {
        columns = other.columns.map { XMLColumn(storage: $0.storage) }
        relationships = other.relationships.map { XMLRelationshipColumn(isToMany: $0.isToMany) }
    }

    /// The number of objects.
    var count: Int { keys.count }

    /// The largest key, or `nil` for an empty table.
    var largestKey: Int64? { keys.last }

    /// The position of `key`, or `nil`. O(log n).
    func index(of key: Int64) -> Int? {
        let i = insertionIndex(of: key)
        return i < keys.count && keys[i] == key ? i : nil
    }

    /// The position of the first key not below `key`. O(log n).
    func insertionIndex(of key: Int64) -> Int {
        var low = 0, high = keys.count
        while low < high {
            let mid = (low + high) / 2
            if keys[mid] < key { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Whether the keys are strictly ascending.
    var isSorted: Bool {
        zip(keys, keys.dropFirst()).allSatisfy { $0 < $1 }
    }

    /// The value of attribute `a` at row `i`. O(1), plus a string's length.
    func value(_ a: Int, at i: Int) -> Value { columns[a].value(at: i) }

    /// The whole row `i`, boxed (for conflicts and tests).
    func row(at i: Int) -> StoredRow {
        StoredRow(version: versions[i], attributes: columns.map { $0.value(at: i) }, relationships: relationships.map { $0.stored(at: i) })
    }

    // MARK: Building

    /// Appends a row whose key is larger than every key already present. O(1) amortized, plus
    /// its strings' lengths.
    mutating func append(key: Int64, row: StoredRow) {
        keys.append(key)
        versions.append(row.version)
        for a in columns.indices { columns[a].append(row.attributes[a]) }
        for r in relationships.indices { relationships[r].append(row.relationships[r]) }
    }

    /// Appends the rows `range` of `other` (a table of the same entity), whose keys are larger
    /// than every key already present: bulk copies, column by column.
    mutating func append(rowsOf other: EntityTable, _ range: Range<Int>) {
        guard !range.isEmpty else { return }
        keys.append(contentsOf: other.keys[range])
        versions.append(contentsOf: other.versions[range])
        for a in columns.indices { columns[a].append(rowsOf: other.columns[a], range) }
        for r in relationships.indices { relationships[r].append(rowsOf: other.relationships[r], range) }
    }

    /// The table with its rows in the order `order` (a permutation of the row indexes).
    func permuted(_ order: [Int]) -> EntityTable {
        EntityTable(
            keys: order.map { keys[$0] }, versions: order.map { versions[$0] },
            columns: columns.map { $0.permuted(order) }, relationships: relationships.map { $0.permuted(order) })
    }

    /// Reserves room for `count` rows.
    mutating func reserveCapacity(_ count: Int) {
        keys.reserveCapacity(count)
        versions.reserveCapacity(count)
    }

    // MARK: Saving

    /// The table after deleting `deleted`, replacing rows by `updated` and adding `inserted`
    /// (none of whose keys is present). One merge pass that copies the runs of untouched rows
    /// in bulk: O(n + k log k).
    func applying(deleted: Set<Int64>, updated: [Int64: StoredRow], inserted: [(Int64, StoredRow)]) -> EntityTable {
        var additions = inserted
        if !zip(additions, additions.dropFirst()).allSatisfy({ $0.0 < $1.0 }) { additions.sort { $0.0 < $1.0 } }

        /// What happens at a position of the old rows: an insertion before it, or a replacement
        /// or deletion of it.
        enum Edit {
            case insert(Int64, StoredRow)
            case replace(StoredRow)
            case delete
        }
        var edits: [(position: Int, edit: Edit)] = []
        edits.reserveCapacity(additions.count + updated.count + deleted.count)
        for (key, row) in additions { edits.append((insertionIndex(of: key), .insert(key, row))) }
        var changedRows: [(position: Int, edit: Edit)] = []
        for key in deleted { if let i = index(of: key) { changedRows.append((i, .delete)) } }
        for (key, row) in updated where !deleted.contains(key) {
            if let i = index(of: key) { changedRows.append((i, .replace(row))) }
        }
        changedRows.sort { $0.position < $1.position }
        // Insertions before a position come before the change of that position's row; both
        // lists are already in order, so a merge keeps everything stable.
        var a = 0, c = 0
        var merged: [(position: Int, edit: Edit)] = []
        merged.reserveCapacity(edits.count + changedRows.count)
        while a < edits.count || c < changedRows.count {
            if c == changedRows.count || (a < edits.count && edits[a].position <= changedRows[c].position) {
                merged.append(edits[a])
                a += 1
            } else {
                merged.append(changedRows[c])
                c += 1
            }
        }

        var result = EntityTable(shapeOf: self)
        result.reserveCapacity(count + additions.count)
        var next = 0
        for (position, edit) in merged {
            if position > next {
                result.append(rowsOf: self, next..<position)
                next = position
            }
            switch edit {
            case .insert(let key, let row):
                result.append(key: key, row: row)
            case .replace(let row):
                result.append(key: keys[position], row: row)
                next = position + 1
            case .delete:
                next = position + 1
            }
        }
        result.append(rowsOf: self, next..<count)
        return result
    }

    /// Removes from every relationship of every row the targets for which `isGone` is true,
    /// returning whether anything changed.
    mutating func removeTargets(_ isGone: (_ relationship: Int, _ key: Int64) -> Bool) -> Bool {
        var changed = false
        for r in relationships.indices where relationships[r].removeTargets(where: { isGone(r, $0) }) { changed = true }
        return changed
    }
}
