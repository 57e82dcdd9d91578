import Foundation
import StrataCore

/// What a batch delete records in the history: one transaction, as a save deleting the same
/// objects would (see ``HistoryChangeRecorder``). The stored rows are read inside the batch's
/// transaction, before its statements run; nothing is read when history is off.
extension PostgresStore {
    /// The state a batch delete needs to record its transaction.
    struct BatchDeleteHistory {
        /// The deleted objects before the delete, when their entity keeps values after deletion.
        var objects: [Snapshot] = []
        /// The deleted objects' keys, for deletes of an entity whose tombstones need no state.
        var deletedKeys: [Int64] = []
        /// Other objects whose relationships the delete nullifies, before it, by entity.
        var neighbours: [String: [Snapshot]] = [:]
    }

    /// Reads what a batch delete of `keys` from `table` records: the deleted objects when their
    /// entity keeps values after deletion, and the other objects whose relationships to them the
    /// delete nullifies.
    func batchDeleteHistory(_ table: PostgresEntityTable, keys: [Int64], on connection: PostgresConnection) throws
        -> BatchDeleteHistory?
    {
        guard recordsHistory else { return nil }
        var history = BatchDeleteHistory()
        if HistoryChangeRecorder(model: model).needsStateOfDeleted(table.name) {
            history.objects = try readSnapshots(table, keys: keys, on: connection)
        } else {
            history.deletedKeys = keys
        }
        let deleted = Set(keys)
        for (entity, neighbourKeys) in try neighbourKeys(of: table, keys: keys, on: connection) {
            let kept = neighbourKeys.subtracting(entity == table.name ? deleted : []).sorted()
            guard !kept.isEmpty else { continue }
            history.neighbours[entity] = try readSnapshots(try self.table(for: entity), keys: kept, on: connection)
        }
        return history
    }

    /// Records a batch delete from `table`, reading the neighbours' new state, as the last
    /// statements of its transaction: it commits with the history's row.
    func recordBatchDelete(
        _ history: BatchDeleteHistory?, table: PostgresEntityTable, on connection: PostgresConnection
    )
        throws
    {
        guard let history else { return }
        var request = SaveRequest()
        for (entity, before) in history.neighbours.sorted(by: { $0.key < $1.key }) {
            let after = try readSnapshots(
                try self.table(for: entity), keys: before.compactMap(\.objectID.primaryKey), on: connection)
            let byID = Dictionary(after.map { ($0.objectID, $0) }, uniquingKeysWith: { first, _ in first })
            for old in before {
                guard let new = byID[old.objectID] else { continue }
                request.updates.append(SaveRequest.Update(new, expectedVersion: old.version, previous: old))
            }
        }
        request.deletes = history.objects.map {
            SaveRequest.Delete($0.objectID, expectedVersion: $0.version, previous: $0)
        }
        request.deletes += deletes(of: history.deletedKeys, in: table)
        _ = try appendHistory(for: request, storedStates: [:], committing: true, on: connection)
    }

    /// The history row of a batch delete of exactly `keys` (in key order) from `table`, whose
    /// tombstones need no stored state: built before the delete ends, and appended only when it
    /// deleted exactly these keys.
    func batchDeleteEntry(keys: [Int64], table: PostgresEntityTable) throws -> HistoryEntry? {
        var request = SaveRequest()
        request.deletes = deletes(of: keys, in: table)
        return try historyEntry(for: request, storedStates: [:])
    }

    /// Deletes of the objects `keys` of `table`, for a record that keeps none of their values.
    private func deletes(of keys: [Int64], in table: PostgresEntityTable) -> [SaveRequest.Delete] {
        let scope = ObjectID.Scope(entityName: table.name, storeIdentifier: identifier)
        return keys.map { SaveRequest.Delete(scope.id(primaryKey: $0), expectedVersion: 0) }
    }

    /// The keys of the objects, by entity, that hold a relationship to an object among `keys` of
    /// `table` (the ones ``batchDelete(entityName:predicate:)`` bumps).
    private func neighbourKeys(of table: PostgresEntityTable, keys: [Int64], on connection: PostgresConnection)
        throws -> [String: Set<Int64>]
    {
        var result: [String: Set<Int64>] = [:]
        for other in schema.orderedTables {
            for (index, relationship) in other.entity.relationships.enumerated()
            where relationship.destination == table.name {
                let sql: String
                switch other.relationshipStorage[index] {
                case .foreignKey(let column):
                    sql = "SELECT \(pq("_pk")) FROM \(other.qualified) WHERE \(pq(column)) = ANY($1)"
                case .derivedToOne(_, let column), .foreignKeyToMany(_, let column, _):
                    sql =
                        "SELECT \(pq(column)) FROM \(table.qualified) WHERE \(pq("_pk")) = ANY($1) AND \(pq(column)) IS NOT NULL"
                case .joinTable(let join):
                    sql =
                        "SELECT \(pq(join.ownColumn)) FROM \(join.qualified) WHERE \(pq(join.targetColumn)) = ANY($1)"
                }
                let found = try connection.query(sql, [.int64Array(keys)])
                for row in 0..<found.rowCount { result[other.name, default: []].insert(found.int64(row, 0)) }
            }
        }
        return result
    }
}
