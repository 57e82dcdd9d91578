import StrataCore

/// The objects of one entity, sorted by primary key: the keys, and the rows in one of two forms.
///
/// - ``Storage/rows(_:)``: one ``StoredRow`` per object, whose value arrays are the ones the
///   saved snapshots carried (a save stores them without copying a value).
/// - ``Storage/columns(_:)``: ``EntityColumns``, a handful of contiguous arrays per entity (a
///   load reads the file straight into them, with no per-object allocation; a ``Value`` is made
///   only when one is read).
///
/// A load gives columns; a save gives rows for a table that was empty or already in rows, and
/// columns for a table in columns (its untouched runs copied in bulk), so neither form is ever
/// converted as a whole.
///
/// Sorted arrays rather than a dictionary: the file is written in key order, fetches return key
/// order, loading a file (already in key order) only appends, and a key costs 8 bytes. Lookups
/// are binary searches, O(log n). A save rebuilds a changed table in one merge pass, O(n + k log k),
/// which is what writing the whole file costs anyway.
struct EntityTable: Sendable {
    /// How the rows are kept.
    enum Storage: Sendable {
        /// One row per object, parallel to ``EntityTable/keys``.
        case rows([StoredRow])
        /// Columns, parallel to ``EntityTable/keys``.
        case columns(EntityColumns)
    }

    /// The primary keys, strictly ascending.
    private(set) var keys: [Int64]
    /// The rows, parallel to ``keys``.
    private(set) var storage: Storage

    /// An empty table.
    init() {
        keys = []
        storage = .rows([])
    }

    /// A table from parallel keys and rows; `keys` must be strictly ascending.
    init(keys: [Int64], rows: [StoredRow]) {
        precondition(rows.count == keys.count)
        self.keys = keys
        storage = .rows(rows)
    }

    /// A table from parallel keys and columns (as the loader builds them); `keys` must be
    /// strictly ascending.
    init(keys: [Int64], columns: EntityColumns) {
        precondition(columns.count == keys.count)
        self.keys = keys
        storage = .columns(columns)
    }

    /// The number of objects.
    var count: Int { keys.count }

    /// The largest key, or `nil` for an empty table.
    var largestKey: Int64? { keys.last }

    /// The position of `key`, or `nil`. O(log n).
    func index(of key: Int64) -> Int? { Self.index(of: key, in: keys) }

    /// The position of the first key not below `key`. O(log n).
    func insertionIndex(of key: Int64) -> Int { Self.insertionIndex(of: key, in: keys) }

    /// The position of `key` in the ascending `keys`, or `nil`. O(log n).
    static func index(of key: Int64, in keys: [Int64]) -> Int? {
        let i = insertionIndex(of: key, in: keys)
        return i < keys.count && keys[i] == key ? i : nil
    }

    /// The position of the first of the ascending `keys` not below `key`. O(log n).
    static func insertionIndex(of key: Int64, in keys: [Int64]) -> Int {
        var low = 0
        var high = keys.count
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

    /// The version of row `i`. O(1).
    func version(at i: Int) -> Int64 {
        switch storage {
        case .rows(let rows): return rows[i].version
        case .columns(let columns): return columns.versions[i]
        }
    }

    /// The value of attribute `a` at row `i`. O(1), plus a string's length.
    func value(_ a: Int, at i: Int) -> Value {
        switch storage {
        case .rows(let rows): return rows[i].attributes[a]
        case .columns(let columns): return columns.value(a, at: i)
        }
    }

    /// The target keys of relationship `r` at row `i`.
    func targets(_ r: Int, at i: Int) -> ArraySlice<Int64> {
        switch storage {
        case .rows(let rows): return rows[i].relationships[r].keys[...]
        case .columns(let columns): return columns.relationships[r].keys(at: i)
        }
    }

    /// Relationship `r` (to-many when `isToMany`) of every row, as one column: the table's own
    /// column for a table in columns (no copy), built from the rows otherwise.
    func relationshipColumn(_ r: Int, isToMany: Bool) -> XMLRelationshipColumn {
        switch storage {
        case .columns(let columns): return columns.relationships[r]
        case .rows(let rows):
            var column = XMLRelationshipColumn(isToMany: isToMany)
            column.reserveCapacity(rows: rows.count)
            for row in rows { column.append(row.relationships[r]) }
            return column
        }
    }

    /// The table with its rows in the order `order` (a permutation of the row indexes).
    func permuted(_ order: [Int]) -> EntityTable {
        let sortedKeys = order.map { keys[$0] }
        switch storage {
        case .rows(let rows): return EntityTable(keys: sortedKeys, rows: order.map { rows[$0] })
        case .columns(let columns): return EntityTable(keys: sortedKeys, columns: columns.permuted(order))
        }
    }

    /// Removes from every relationship of every row the targets for which `isGone` is true,
    /// returning whether anything changed.
    mutating func removeTargets(_ isGone: (_ relationship: Int, _ key: Int64) -> Bool) -> Bool {
        switch storage {
        case .columns(var columns):
            storage = .rows([])
            let changed = columns.removeTargets(isGone)
            storage = .columns(columns)
            return changed
        case .rows(var rows):
            storage = .rows([])
            var changed = false
            for i in rows.indices where !rows[i].relationships.isEmpty {
                for r in rows[i].relationships.indices {
                    switch rows[i].relationships[r] {
                    case .toOne(let key?) where isGone(r, key):
                        rows[i].relationships[r] = .toOne(nil)
                        changed = true
                    case .toMany(let keys) where keys.contains(where: { isGone(r, $0) }):
                        rows[i].relationships[r] = .toMany(keys.filter { !isGone(r, $0) })
                        changed = true
                    default:
                        break
                    }
                }
            }
            storage = .rows(rows)
            return changed
        }
    }
}
