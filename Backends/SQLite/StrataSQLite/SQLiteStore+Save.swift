import Foundation
import StrataCore

extension SQLiteStore {
    /// Applies `request` in one `BEGIN IMMEDIATE` transaction: every value is checked first, then
    /// deletes and updates run with their expected version in the `WHERE` clause (a row that does
    /// not match is a conflict), then inserts, then join tables and order columns, then metadata.
    /// On any conflict nothing is written and the error lists every conflicting object with its
    /// stored snapshot; on any other failure the transaction is rolled back.
    ///
    /// With history on, the same transaction first reads the stored rows of updated objects the
    /// request gives no ``SaveRequest/Update/previous`` for (one read per entity), and last
    /// appends one row to `_strata_history` (see ``fetchHistory(_:)``).
    @discardableResult
    public func save(_ request: SaveRequest) throws -> SaveResult {
        var insertTables: [SQLiteEntityTable] = []
        insertTables.reserveCapacity(request.inserts.count)
        var cache = TableCache()
        for snapshot in request.inserts { insertTables.append(try validate(snapshot, role: "insert", cache: &cache)) }
        var updateTables: [SQLiteEntityTable] = []
        updateTables.reserveCapacity(request.updates.count)
        for update in request.updates {
            updateTables.append(try validate(update.snapshot, role: "update", cache: &cache))
        }
        var deleteTables: [SQLiteEntityTable] = []
        deleteTables.reserveCapacity(request.deletes.count)
        for delete in request.deletes {
            deleteTables.append(try validateID(delete.objectID, role: "delete", cache: &cache))
        }

        if request.isEmpty {
            return try withWriter { _ in SaveResult() }
        }

        let recordsHistory = self.recordsHistory
        return try inWriteTransaction { connection in
            let storedStates = recordsHistory ? try storedStatesForHistory(of: request, on: connection) : [:]
            var result = try SQLiteRowBinder.withBinder(keeping: request) { binder in
                try apply(
                    request, insertTables: insertTables, updateTables: updateTables, deleteTables: deleteTables,
                    on: connection, binder: &binder)
            }
            if recordsHistory {
                result.historyToken = try appendHistory(for: request, storedStates: storedStates, on: connection)
            }
            return result
        }
    }

    /// A one-entry cache of the last entity's table: saves are usually runs of one entity.
    struct TableCache {
        var name = ""
        var table: SQLiteEntityTable?
    }

    func table(for entityName: String, cache: inout TableCache) throws -> SQLiteEntityTable {
        if let table = cache.table, cache.name == entityName { return table }
        guard let table = schema.tables[entityName] else {
            _ = try model.requireEntity(entityName)
            throw StrataError(
                .unknownEntity, "the model has no entity '\(entityName)'", location: ["entity": entityName])
        }
        cache = TableCache(name: entityName, table: table)
        return table
    }

    private func validateID(_ id: ObjectID, role: String, cache: inout TableCache) throws -> SQLiteEntityTable {
        let table = try self.table(for: id.entityName, cache: &cache)
        guard id.primaryKey != nil, id.storeIdentifier == identifier else {
            throw StrataError(
                .invalidObjectID,
                "cannot \(role) \(id): "
                    + (id.isTemporary
                        ? "the ID is temporary" : "it belongs to store '\(id.storeIdentifier)', not '\(identifier)'"),
                location: ["path": path, "entity": id.entityName, "objectID": id.uriRepresentation]
            )
        }
        return table
    }

    private func validate(_ snapshot: Snapshot, role: String, cache: inout TableCache) throws -> SQLiteEntityTable {
        let table = try validateID(snapshot.objectID, role: role, cache: &cache)
        let entity = table.entity
        guard snapshot.attributes.count == entity.attributes.count,
            snapshot.relationships.count == entity.relationships.count
        else {
            throw StrataError(
                .invalidRequest,
                "the snapshot of \(snapshot.objectID) has \(snapshot.attributes.count) attributes and \(snapshot.relationships.count) relationships; '\(entity.name)' has \(entity.attributes.count) and \(entity.relationships.count)",
                location: ["path": path, "entity": entity.name]
            )
        }
        let types = table.attributeTypes
        let optional = table.attributeIsOptional
        for index in 0..<types.count {
            let value = snapshot.attributes[index]
            if value.isNull {
                if optional[index] { continue }
                let attribute = entity.attributes[index]
                throw StrataError(
                    .missingValue, "\(snapshot.objectID).\(attribute.name) is required but has no value",
                    location: [
                        "path": path, "entity": entity.name, "key": attribute.name,
                        "objectID": snapshot.objectID.uriRepresentation,
                    ])
            } else if !value.fits(types[index]) {
                let attribute = entity.attributes[index]
                throw StrataError(
                    .typeMismatch,
                    "\(snapshot.objectID).\(attribute.name) is a \(attribute.type.rawValue) attribute and cannot hold the \(value.typeName) \(value)",
                    location: [
                        "path": path, "entity": entity.name, "key": attribute.name,
                        "objectID": snapshot.objectID.uriRepresentation,
                    ])
            }
        }
        for index in 0..<table.relationshipIsToMany.count {
            let destination = table.relationshipDestinations[index]
            switch snapshot.relationships[index] {
            case .toOne(let target):
                guard !table.relationshipIsToMany[index] else {
                    throw relationshipMismatch(
                        snapshot, entity.relationships[index], "a to-many relationship got a single target")
                }
                if let target, !isStoredObject(target, of: destination) {
                    throw relationshipMismatch(
                        snapshot, entity.relationships[index],
                        "the target \(target) is not a permanent \(destination) of this store")
                }
            case .toMany(let targets):
                guard table.relationshipIsToMany[index] else {
                    throw relationshipMismatch(
                        snapshot, entity.relationships[index], "a to-one relationship got a list of targets")
                }
                for target in targets where !isStoredObject(target, of: destination) {
                    throw relationshipMismatch(
                        snapshot, entity.relationships[index],
                        "the target \(target) is not a permanent \(destination) of this store")
                }
            }
        }
        return table
    }

    @inline(__always)
    private func isStoredObject(_ id: ObjectID, of entityName: String) -> Bool {
        id.entityName == entityName && id.primaryKey != nil && id.storeIdentifier == identifier
    }

    private func relationshipMismatch(_ snapshot: Snapshot, _ relationship: Relationship, _ why: String) -> StrataError
    {
        StrataError(
            .typeMismatch, "\(snapshot.objectID).\(relationship.name): \(why)",
            location: [
                "path": path, "entity": snapshot.objectID.entityName, "key": relationship.name,
                "objectID": snapshot.objectID.uriRepresentation,
            ])
    }

    private func apply(
        _ request: SaveRequest, insertTables: [SQLiteEntityTable], updateTables: [SQLiteEntityTable],
        deleteTables: [SQLiteEntityTable], on connection: SQLiteConnection, binder: inout SQLiteRowBinder
    ) throws -> SaveResult {
        var conflicts: [(id: ObjectID, expected: Int64)] = []
        var versions: [ObjectID: Int64] = [:]
        versions.reserveCapacity(request.inserts.count + request.updates.count)

        // Deletes, checked against their expected version.
        var lastTable: SQLiteEntityTable?
        var statement: SQLiteStatement?
        for (delete, table) in zip(request.deletes, deleteTables) {
            if table !== lastTable {
                statement = try connection.prepare(.delete, of: table)
                lastTable = table
            }
            let pk = delete.objectID.primaryKey!
            statement!.bind(1, pk)
            statement!.bind(2, delete.expectedVersion)
            try statement!.run()
            if connection.changes != 1 {
                conflicts.append((delete.objectID, delete.expectedVersion))
                continue
            }
            for sql in table.deleteJoinRowsSQL {
                let join = try connection.prepare(sql)
                join.bind(1, pk)
                try join.run()
            }
        }

        // Updates, checked against their expected version. One that meets a unique index is set
        // aside until the others ran (see SQLiteStore+UniqueConstraints).
        lastTable = nil
        var collided: [(update: SaveRequest.Update, table: SQLiteEntityTable)] = []
        func runUpdate(_ update: SaveRequest.Update, _ statement: SQLiteStatement, _ table: SQLiteEntityTable) throws
            -> Bool
        {
            let snapshot = update.snapshot
            let newVersion = update.expectedVersion &+ 1
            statement.bind(1, newVersion)
            let next = bindColumns(of: snapshot, table: table, in: statement, from: 2, binder: &binder)
            statement.bind(next, snapshot.objectID.primaryKey!)
            statement.bind(next + 1, update.expectedVersion)
            try statement.run()
            guard connection.changes == 1 else { return false }
            versions[snapshot.objectID] = newVersion
            return true
        }
        for (update, table) in zip(request.updates, updateTables) {
            if table !== lastTable {
                statement = try connection.prepare(.update, of: table)
                lastTable = table
            }
            do {
                if try !runUpdate(update, statement!, table) {
                    conflicts.append((update.snapshot.objectID, update.expectedVersion))
                }
            } catch  where Self.isUniqueCollision(error) && !table.entity.uniqueConstraints.isEmpty {
                collided.append((update, table))
            }
        }
        if !collided.isEmpty {
            let stale = try reapplyCollidedUpdates(collided, on: connection) { update, table in
                try runUpdate(update, try connection.prepare(.update, of: table), table)
            }
            conflicts += stale.map { ($0.snapshot.objectID, $0.expectedVersion) }
        }

        if !conflicts.isEmpty {
            // No savepoint (one would copy every changed page to a sub-journal on every save):
            // roll back, then read the stored snapshots in a read transaction of their own,
            // still under the write lock.
            try connection.execute("ROLLBACK")
            try connection.execute("BEGIN")
            defer { connection.rollbackQuietly() }
            throw try conflictError(conflicts, on: connection)
        }

        // Inserts at version 1: runs of one entity go through a many-row INSERT (fewer statement
        // executions for large saves), the rest one row at a time.
        let inserts = request.inserts
        var start = 0
        while start < inserts.count {
            let table = insertTables[start]
            var end = start + 1
            while end < inserts.count && insertTables[end] === table { end += 1 }
            var next = start
            if end - start >= table.bulkInsertRows {
                let bulk = try connection.prepare(.bulkInsert, of: table)
                while end - next >= table.bulkInsertRows {
                    var index: Int32 = 1
                    for row in next..<(next + table.bulkInsertRows) {
                        bulk.bind(index, inserts[row].objectID.primaryKey!)
                        bulk.bind(index + 1, Int64(1))
                        index = bindColumns(of: inserts[row], table: table, in: bulk, from: index + 2, binder: &binder)
                    }
                    try runInsert(bulk, inserts[next..<(next + table.bulkInsertRows)])
                    next += table.bulkInsertRows
                }
            }
            if next < end {
                let single = try connection.prepare(.insert, of: table)
                for row in next..<end {
                    single.bind(1, inserts[row].objectID.primaryKey!)
                    single.bind(2, Int64(1))
                    _ = bindColumns(of: inserts[row], table: table, in: single, from: 3, binder: &binder)
                    try runInsert(single, inserts[row..<(row + 1)])
                }
            }
            for row in start..<end { versions[inserts[row].objectID] = 1 }
            start = end
        }

        // Join tables and order columns, once every row exists.
        try writeToMany(request.inserts, insertTables, isInsert: true, on: connection)
        try writeToMany(request.updates.map(\.snapshot), updateTables, isInsert: false, on: connection)

        for (key, value) in request.metadataChanges.sorted(by: { $0.key < $1.key }) {
            try SQLiteMetadataTable.set(SQLiteMetadataTable.userPrefix + key, value, in: connection)
        }
        return SaveResult(versions: versions)
    }

    /// Runs an INSERT of `rows`, turning a primary-key collision into ``StrataError/Code/invalidObjectID``.
    private func runInsert(_ statement: SQLiteStatement, _ rows: ArraySlice<Snapshot>) throws {
        do {
            try statement.run()
        } catch let error as StrataError
            where error.location["sqliteCode"] == String(SQLiteErrorMapping.constraintPrimaryKey)
        {
            let what =
                rows.count == 1
                ? "\(rows.first!.objectID)" : "one of \(rows.first!.objectID) ... \(rows.last!.objectID)"
            throw StrataError(
                .invalidObjectID, "cannot insert \(what): an object with that key already exists",
                location: ["path": path, "objectID": rows.first!.objectID.uriRepresentation],
                underlying: error.underlying)
        }
    }

    /// Binds the attribute values and stored to-one keys of `snapshot` from parameter `first`
    /// (long strings lent, not copied: see ``SQLiteRowBinder``); returns the next parameter index.
    @inline(__always)
    private func bindColumns(
        of snapshot: Snapshot, table: SQLiteEntityTable, in statement: SQLiteStatement, from first: Int32,
        binder: inout SQLiteRowBinder
    ) -> Int32 {
        var index = first
        for value in snapshot.attributes {
            binder.bind(value, at: index, in: statement)
            index += 1
        }
        for relationship in table.foreignKeyIndexes {
            if case .toOne(let target) = snapshot.relationships[relationship], let key = target?.primaryKey {
                statement.bind(index, key)
            } else {
                statement.bindNull(index)
            }
            index += 1
        }
        return index
    }

    /// Writes the to-many sides kept outside the rows: join tables (from the side that owns
    /// them), then positions of ordered relationships.
    private func writeToMany(
        _ snapshots: [Snapshot], _ tables: [SQLiteEntityTable], isInsert: Bool, on connection: SQLiteConnection
    ) throws {
        // Pass 1: canonical join-table rows.
        for (snapshot, table) in zip(snapshots, tables) where !table.toManyIndexes.isEmpty {
            let pk = snapshot.objectID.primaryKey!
            for index in table.toManyIndexes {
                guard case .joinTable(let join) = table.relationshipStorage[index], join.isCanonical,
                    case .toMany(let targets) = snapshot.relationships[index]
                else { continue }
                let targetKeys = targets.compactMap(\.primaryKey)
                var existing: Set<Int64> = []
                if !isInsert {
                    let select = try connection.prepare(join.selectTargetsSQL)
                    select.bind(1, pk)
                    defer { select.reset() }
                    while try select.step() { existing.insert(select.int64(0)) }
                    let wanted = Set(targetKeys)
                    let remove = try connection.prepare(join.deleteRowSQL)
                    for key in existing.subtracting(wanted).sorted() {
                        remove.bind(1, pk)
                        remove.bind(2, key)
                        try remove.run()
                    }
                }
                let insert = try connection.prepare(join.insertRowSQL)
                for key in targetKeys where !existing.contains(key) {
                    insert.bind(1, pk)
                    insert.bind(2, key)
                    try insert.run()
                }
                if join.hasSourcePosition {
                    let position = try connection.prepare(join.sourcePositionSQL)
                    for (i, key) in targetKeys.enumerated() {
                        position.bind(1, Int64(i))
                        position.bind(2, pk)
                        position.bind(3, key)
                        try position.run()
                    }
                }
            }
        }
        // Pass 2: positions kept for the non-owning ordered sides.
        for (snapshot, table) in zip(snapshots, tables) where !table.toManyIndexes.isEmpty {
            let pk = snapshot.objectID.primaryKey!
            for index in table.toManyIndexes {
                guard case .toMany(let targets) = snapshot.relationships[index] else { continue }
                switch table.relationshipStorage[index] {
                case .foreignKeyToMany(_, _, _?):
                    let update = try connection.prepare(table.positionSQL[index]!)
                    for (i, target) in targets.enumerated() {
                        update.bind(1, Int64(i))
                        update.bind(2, target.primaryKey!)
                        try update.run()
                    }
                case .joinTable(let join) where !join.isCanonical && join.positionColumn != nil:
                    let update = try connection.prepare(join.targetPositionSQL)
                    for (i, target) in targets.enumerated() {
                        update.bind(1, Int64(i))
                        update.bind(2, target.primaryKey!)
                        update.bind(3, pk)
                        try update.run()
                    }
                default:
                    break
                }
            }
        }
    }

    /// The conflict error for `conflicts`, each with its stored snapshot as the store holds it now.
    private func conflictError(_ conflicts: [(id: ObjectID, expected: Int64)], on connection: SQLiteConnection) throws
        -> StrataError
    {
        var records: [SaveConflict] = []
        for (id, expected) in conflicts {
            let stored = try fetchSnapshots(entity: id.entityName, keys: [id.primaryKey!], on: connection).first
            records.append(SaveConflict(objectID: id, expectedVersion: expected, storedSnapshot: stored))
        }
        let list = records.prefix(5).map(\.description).joined(separator: "; ")
        return StrataError(
            .conflict,
            "the save to '\(path)' conflicts with changes made since the objects were read (\(records.count) object\(records.count == 1 ? "" : "s"): \(list)\(records.count > 5 ? "; ..." : "")); nothing was written",
            location: ["path": path],
            conflicts: records
        )
    }
}
