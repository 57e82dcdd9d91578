import StrataCore

/// The whole graph of an XML store, as it lives in memory between a load and a save.
///
/// One ``EntityTable`` per entity of the model, indexed like ``Model/entities``. Rows keep primary
/// keys and relationship targets as bare 64-bit keys (the destination entity and the store
/// identifier are implied), so 100,000 rows cost a few tens of bytes each beyond their values.
/// A value type: a save builds the next image from a copy and swaps it in whole.
struct XMLStoreImage: Sendable {
    /// The metadata recorded in the root element and the `_meta` elements.
    var metadata: StoreMetadata
    /// For each entity (indexed like the model), the next primary key to hand out.
    var nextKeys: [Int64]
    /// For each entity (indexed like the model), its objects in primary-key order.
    var tables: [EntityTable]

    /// An empty graph for a new store.
    init(metadata: StoreMetadata, model: Model) {
        self.metadata = metadata
        self.nextKeys = Array(repeating: 1, count: model.entities.count)
        self.tables = Array(repeating: EntityTable(), count: model.entities.count)
    }

    /// The number of objects of every entity.
    var objectCount: Int { tables.reduce(0) { $0 + $1.count } }
}

/// The stored state of one object, without its identity (the table knows the entity and key).
struct StoredRow: Sendable {
    /// The optimistic-locking version.
    var version: Int64
    /// Attribute values, indexed like ``Entity/attributes``.
    var attributes: [Value]
    /// Relationship targets as primary keys of the destination entity, indexed like
    /// ``Entity/relationships``; empty when the entity has no relationship.
    var relationships: [StoredRelationship]
}

/// The targets of one relationship, as primary keys of its destination entity.
enum StoredRelationship: Sendable, Hashable {
    /// A to-one target, or none.
    case toOne(Int64?)
    /// To-many targets: sorted for an unordered relationship, the user's order for an ordered one.
    case toMany([Int64])

    /// Every target key.
    var keys: [Int64] {
        switch self {
        case .toOne(let key): return key.map { [$0] } ?? []
        case .toMany(let keys): return keys
        }
    }
}

/// The objects of one entity, sorted by primary key: parallel arrays of keys and rows.
///
/// Sorted arrays rather than a dictionary: the file is written in key order, fetches return key
/// order, loading a file (already in key order) only appends, and a key costs 8 bytes. Lookups are
/// binary searches, O(log n). A save rebuilds a table in one merge pass, O(n + k log k), which is
/// what writing the whole file costs anyway.
struct EntityTable: Sendable {
    /// The primary keys, strictly ascending.
    private(set) var keys: [Int64] = []
    /// The rows, parallel to ``keys``.
    private(set) var rows: [StoredRow] = []

    /// The number of objects.
    var count: Int { keys.count }

    /// The position of `key`, or `nil`. O(log n).
    func index(of key: Int64) -> Int? {
        var low = 0, high = keys.count
        while low < high {
            let mid = (low + high) / 2
            let k = keys[mid]
            if k == key { return mid }
            if k < key { low = mid + 1 } else { high = mid }
        }
        return nil
    }

    /// The row stored under `key`, or `nil`. O(log n).
    func row(for key: Int64) -> StoredRow? { index(of: key).map { rows[$0] } }

    /// The largest key, or `nil` for an empty table.
    var largestKey: Int64? { keys.last }

    /// Appends a row whose key is larger than every key already present. O(1) amortized.
    mutating func append(key: Int64, row: StoredRow) {
        keys.append(key)
        rows.append(row)
    }

    /// Reserves room for `count` rows.
    mutating func reserveCapacity(_ count: Int) {
        keys.reserveCapacity(count)
        rows.reserveCapacity(count)
    }

    /// Replaces the row at `index`.
    mutating func replaceRow(at index: Int, with row: StoredRow) { rows[index] = row }

    /// A table from parallel arrays; `keys` must be strictly ascending.
    init(keys: [Int64], rows: [StoredRow]) {
        self.keys = keys
        self.rows = rows
    }

    /// An empty table.
    init() {}

    /// Whether the keys are strictly ascending.
    var isSorted: Bool {
        var previous = Int64.min
        for (i, key) in keys.enumerated() {
            if i > 0 && key <= previous { return false }
            previous = key
        }
        return true
    }

    /// The table after deleting `deleted`, replacing rows by `updated` and adding `inserted`
    /// (none of whose keys is present). One merge pass: O(n + k log k).
    func applying(deleted: Set<Int64>, updated: [Int64: StoredRow], inserted: [(Int64, StoredRow)]) -> EntityTable {
        if deleted.isEmpty && inserted.isEmpty {
            var table = self
            for (key, row) in updated {
                if let i = table.index(of: key) { table.rows[i] = row }
            }
            return table
        }
        var additions = inserted
        if !zip(additions, additions.dropFirst()).allSatisfy({ $0.0 < $1.0 }) { additions.sort { $0.0 < $1.0 } }
        if deleted.isEmpty, additions.first.map({ $0.0 > (keys.last ?? .min) }) ?? false {
            // The common case: new keys after every stored one. Copy and append.
            var table = self
            for (key, row) in updated {
                if let i = table.index(of: key) { table.rows[i] = row }
            }
            table.reserveCapacity(keys.count + additions.count)
            for (key, row) in additions { table.append(key: key, row: row) }
            return table
        }
        var result = EntityTable()
        result.reserveCapacity(keys.count - deleted.count + additions.count)
        var a = 0
        for (i, key) in keys.enumerated() {
            while a < additions.count && additions[a].0 < key {
                result.append(key: additions[a].0, row: additions[a].1)
                a += 1
            }
            if deleted.contains(key) { continue }
            result.append(key: key, row: updated[key] ?? rows[i])
        }
        while a < additions.count {
            result.append(key: additions[a].0, row: additions[a].1)
            a += 1
        }
        return result
    }

    /// Removes from every relationship of every row the targets for which `isGone` is true,
    /// returning whether anything changed.
    mutating func removeTargets(_ isGone: (_ relationship: Int, _ key: Int64) -> Bool) -> Bool {
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
        return changed
    }
}
