import StrataCore

/// The references an export writes: `ENTITY/N`, where `N` counts the entity's exported objects
/// from 1 in primary-key order. They depend only on the order of the objects, not on their
/// keys, so a file imported into a new store and exported again comes out byte for byte the same.
enum JSONLinesReference {
    /// The reference of the `ordinal`-th (from 1) exported object of `entityName`.
    static func make(_ entityName: String, _ ordinal: Int) -> String { "\(entityName)/\(ordinal)" }
}

/// The primary keys of the objects an export writes, entity by entity, sorted: the position of a
/// key gives its reference.
struct ExportedKeys {
    private var keys: [String: [Int64]] = [:]

    mutating func set(_ sorted: [Int64], for entityName: String) { keys[entityName] = sorted }

    /// The exported keys of `entityName`, ascending.
    func keys(of entityName: String) -> [Int64] { keys[entityName] ?? [] }

    /// The reference of `id`, or `nil` when the export leaves that object out.
    func reference(of id: ObjectID) -> String? {
        guard let list = keys[id.entityName], let key = id.primaryKey else { return nil }
        var low = 0
        var high = list.count
        while low < high {
            let middle = (low + high) / 2
            if list[middle] < key { low = middle + 1 } else { high = middle }
        }
        guard low < list.count, list[low] == key else { return nil }
        return JSONLinesReference.make(id.entityName, low + 1)
    }

    /// The position of `id` among its entity's exported objects (for ordering to-many targets).
    func position(of id: ObjectID) -> Int {
        guard let list = keys[id.entityName], let key = id.primaryKey else { return Int.max }
        var low = 0
        var high = list.count
        while low < high {
            let middle = (low + high) / 2
            if list[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
