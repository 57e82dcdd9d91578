import Foundation
import StrataCore

/// Reads rows selected with ``PostgresEntityTable/selectList`` into ``Snapshot``s: the key, the
/// version, the attributes and the to-one keys; then fills the to-many relationships with one
/// query per relationship for all the rows read (`= ANY($1)` of their keys), in the order the
/// SQLite store returns them (ordered relationships in their saved order, others by key).
///
/// A native fetch reuses it: select `selectList` (alias `t0`) first in a statement's columns,
/// read the rows with ``snapshots(_:firstColumn:)``, then ``fillToMany(_:on:)`` on the same
/// connection, inside the same transaction when the two must see one state.
struct PostgresRowReader: Sendable {
    let table: PostgresEntityTable
    private let scope: ObjectID.Scope
    private let toOneScopes: [ObjectID.Scope]
    private let storeIdentifier: String

    init(table: PostgresEntityTable, storeIdentifier: String) {
        self.table = table
        self.storeIdentifier = storeIdentifier
        scope = ObjectID.Scope(entityName: table.name, storeIdentifier: storeIdentifier)
        toOneScopes = table.toOneDestinations.map { ObjectID.Scope(entityName: $0, storeIdentifier: storeIdentifier) }
    }

    /// Whether reading a snapshot takes more than one statement (the entity has to-many
    /// relationships), so that a caller wants one transaction for it.
    var needsTransaction: Bool { !table.toManyIndexes.isEmpty }

    /// The snapshots of every row of `result`, their columns starting at `firstColumn`; to-many
    /// relationships are empty until ``fillToMany(_:on:)``.
    func snapshots(_ result: PostgresResult, firstColumn: Int = 0) throws -> [Snapshot] {
        var snapshots: [Snapshot] = []
        snapshots.reserveCapacity(result.rowCount)
        let kinds = table.kinds
        let toOneStart = firstColumn + 2 + kinds.count
        let empty = table.relationshipStorage.map { $0.isToMany ? RelationshipValue.toMany([]) : .toOne(nil) }
        for row in 0..<result.rowCount {
            var attributes: [Value] = []
            attributes.reserveCapacity(kinds.count)
            for i in 0..<kinds.count {
                attributes.append(try PostgresValueCoding.read(kinds[i], result, row: row, column: firstColumn + 2 + i))
            }
            var relationships = empty
            for (i, index) in table.toOneIndexes.enumerated() where !result.isNull(row, toOneStart + i) {
                relationships[index] = .toOne(toOneScopes[i].id(primaryKey: result.int64(row, toOneStart + i)))
            }
            snapshots.append(
                Snapshot(
                    objectID: scope.id(primaryKey: result.int64(row, firstColumn)),
                    version: result.int64(row, firstColumn + 1),
                    attributes: attributes,
                    relationships: relationships))
        }
        return snapshots
    }

    /// Fills the to-many relationships of `snapshots` (all of this reader's entity): one query
    /// per to-many relationship.
    func fillToMany(_ snapshots: inout [Snapshot], on connection: PostgresConnection) throws {
        guard !table.toManyIndexes.isEmpty, !snapshots.isEmpty else { return }
        var positions: [Int64: Int] = [:]
        positions.reserveCapacity(snapshots.count)
        var owners: [Int64] = []
        owners.reserveCapacity(snapshots.count)
        for (i, snapshot) in snapshots.enumerated() {
            let key = snapshot.objectID.permanentKey
            positions[key] = i
            owners.append(key)
        }
        let ownerArray = PostgresParameter.int64Array(owners)
        for index in table.toManyIndexes {
            let destination = ObjectID.Scope(
                entityName: table.relationshipDestinations[index], storeIdentifier: storeIdentifier)
            let result = try connection.query(table.toManySQL[index]!, [ownerArray])
            var row = 0
            while row < result.rowCount {
                let owner = result.int64(row, 0)
                var targets: [ObjectID] = []
                while row < result.rowCount && result.int64(row, 0) == owner {
                    targets.append(destination.id(primaryKey: result.int64(row, 1)))
                    row += 1
                }
                if let position = positions[owner] { snapshots[position].relationships[index] = .toMany(targets) }
            }
        }
    }
}
