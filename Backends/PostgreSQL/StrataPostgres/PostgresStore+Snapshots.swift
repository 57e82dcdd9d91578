import Foundation
import StrataCore

extension PostgresStore {
    /// The stored snapshots of `entityName` (all, or those among `ids`), in key order, with their
    /// to-many relationships read in the same REPEATABLE READ transaction.
    ///
    /// - Throws: ``StrataError/Code/unknownEntity`` for an entity the model lacks.
    public func snapshots(of entityName: String, among ids: [ObjectID]?) throws -> [Snapshot] {
        let table = try self.table(for: entityName)
        var keys: [Int64]?
        if let ids {
            keys = ids.compactMap { id -> Int64? in
                guard id.entityName == table.name, id.storeIdentifier == identifier else { return nil }
                return id.primaryKey
            }
            if keys!.isEmpty {
                // Still fails on a closed store, as every read does.
                try pool.withConnection { _ in }
                return []
            }
        }
        let reader = self.reader(for: table)
        if reader.needsTransaction {
            return try inReadTransaction { try readSnapshots(table, keys: keys, on: $0) }
        }
        return try pool.withConnection { try readSnapshots(table, keys: keys, on: $0) }
    }

    /// The table of `entityName`.
    ///
    /// - Throws: ``StrataError/Code/unknownEntity`` for an entity the model lacks.
    func table(for entityName: String) throws -> PostgresEntityTable {
        guard let table = schema.tables[entityName] else {
            _ = try model.requireEntity(entityName)
            throw StrataError(
                .unknownEntity, "the model has no entity '\(entityName)'", location: ["entity": entityName])
        }
        return table
    }

    /// The snapshots of `table`'s rows (all, or those with `keys`), in key order, read on
    /// `connection` (in the caller's transaction, if any).
    func readSnapshots(_ table: PostgresEntityTable, keys: [Int64]?, on connection: PostgresConnection) throws
        -> [Snapshot]
    {
        let reader = self.reader(for: table)
        let result: PostgresResult
        switch keys {
        case let keys? where keys.count == 1: result = try connection.query(table.selectByKeySQL, [.int64(keys[0])])
        case let keys?: result = try connection.query(table.selectByKeysSQL, [.int64Array(keys)])
        case nil: result = try connection.query(table.selectAllSQL)
        }
        var snapshots = try reader.snapshots(result)
        try reader.fillToMany(&snapshots, on: connection)
        return snapshots
    }
}
