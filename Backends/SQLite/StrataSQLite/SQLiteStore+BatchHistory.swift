import Foundation
import StrataCore

/// What a batch operation records in the history: one transaction, as a save changing the same
/// objects would (see ``HistoryChangeRecorder``). The stored rows are read inside the batch's
/// transaction, before its statements run; nothing is read when history is off.
extension SQLiteStore {
    /// The state a batch update or delete needs to record its transaction.
    struct BatchHistory {
        /// The changed (or deleted) objects before the operation, when history needs them.
        var objects: [Snapshot] = []
        /// The deleted objects' keys, for deletes of an entity whose tombstones need no state.
        var deletedKeys: [Int64] = []
        /// Other objects whose relationships a batch delete nullifies, before it, by entity.
        var neighbours: [String: [Snapshot]] = [:]
    }

    /// Reads what a batch update of `keys` in `table` records: the objects before it.
    func batchUpdateHistory(_ table: SQLiteEntityTable, keys: [Int64], on connection: SQLiteConnection) throws
        -> BatchHistory?
    {
        guard recordsHistory else { return nil }
        return BatchHistory(objects: try fetchSnapshots(entity: table.name, keys: keys, on: connection))
    }

    /// Records a batch update that set `values` (by attribute index) on the objects `history` holds.
    func recordBatchUpdate(
        _ history: BatchHistory?, values: [(index: Int, value: Value)], on connection: SQLiteConnection
    )
        throws
    {
        guard let history else { return }
        var request = SaveRequest()
        request.updates = history.objects.map { old in
            var new = old
            for (index, value) in values { new.attributes[index] = value }
            return SaveRequest.Update(new, expectedVersion: old.version, previous: old)
        }
        try appendHistory(for: request, storedStates: [:], on: connection)
    }

    /// Reads what a batch delete of `keys` (already in the batch table) from `table` records:
    /// the deleted objects when their entity keeps values after deletion, and the other objects
    /// whose relationships to them the delete nullifies.
    func batchDeleteHistory(_ table: SQLiteEntityTable, keys: [Int64], on connection: SQLiteConnection) throws
        -> BatchHistory?
    {
        guard recordsHistory else { return nil }
        var history = BatchHistory()
        if HistoryChangeRecorder(model: model).needsStateOfDeleted(table.name) {
            history.objects = try fetchSnapshots(entity: table.name, keys: keys, on: connection)
        } else {
            history.deletedKeys = keys
        }
        let deleted = Set(keys)
        for (entity, neighbourKeys) in try neighbourKeys(of: table, on: connection) {
            let kept = neighbourKeys.subtracting(entity == table.name ? deleted : []).sorted()
            guard !kept.isEmpty else { continue }
            history.neighbours[entity] = try fetchSnapshots(entity: entity, keys: kept, on: connection)
        }
        return history
    }

    /// Records a batch delete from `table`, reading the neighbours' new state.
    func recordBatchDelete(_ history: BatchHistory?, table: SQLiteEntityTable, on connection: SQLiteConnection) throws {
        guard let history else { return }
        var request = SaveRequest()
        for (entity, before) in history.neighbours.sorted(by: { $0.key < $1.key }) {
            let after = try fetchSnapshots(
                entity: entity, keys: before.compactMap(\.objectID.primaryKey), on: connection)
            let byID = Dictionary(after.map { ($0.objectID, $0) }, uniquingKeysWith: { first, _ in first })
            for old in before {
                guard let new = byID[old.objectID] else { continue }
                request.updates.append(SaveRequest.Update(new, expectedVersion: old.version, previous: old))
            }
        }
        request.deletes = history.objects.map {
            SaveRequest.Delete($0.objectID, expectedVersion: $0.version, previous: $0)
        }
        let scope = ObjectID.Scope(entityName: table.name, storeIdentifier: identifier)
        request.deletes += history.deletedKeys.map { SaveRequest.Delete(scope.id(primaryKey: $0), expectedVersion: 0) }
        try appendHistory(for: request, storedStates: [:], on: connection)
    }

    /// The keys of the objects, by entity, that hold a relationship to an object in the batch
    /// table (the ones ``batchDelete(entityName:predicate:)`` bumps).
    private func neighbourKeys(of table: SQLiteEntityTable, on connection: SQLiteConnection) throws
        -> [String: Set<Int64>]
    {
        let batch = "(SELECT \(q("k")) FROM temp.\(q("_strata_batch")))"
        var result: [String: Set<Int64>] = [:]
        for other in schema.orderedTables {
            for (index, relationship) in other.entity.relationships.enumerated()
            where relationship.destination == table.name {
                let sql: String
                switch other.relationshipStorage[index] {
                case .foreignKey(let column):
                    sql = "SELECT \(q("_pk")) FROM \(other.quotedName) WHERE \(q(column)) IN \(batch)"
                case .derivedToOne(_, let column), .foreignKeyToMany(_, let column, _):
                    sql =
                        "SELECT \(q(column)) FROM \(table.quotedName) WHERE \(q("_pk")) IN \(batch) AND \(q(column)) IS NOT NULL"
                case .joinTable(let join):
                    sql = "SELECT \(q(join.ownColumn)) FROM \(q(join.table)) WHERE \(q(join.targetColumn)) IN \(batch)"
                }
                let statement = try connection.prepare(sql)
                defer { statement.reset() }
                while try statement.step() { result[other.name, default: []].insert(statement.int64(0)) }
            }
        }
        return result
    }
}
