import Foundation
import StrataCore

extension PostgresStore {
    /// Applies `request` in one transaction (READ COMMITTED): every value is checked first
    /// (``SaveRequest/checkShape(against:storeIdentifier:)``), then per entity one statement
    /// deletes the rows (`WHERE _pk = ANY($1) RETURNING _pk, _version`: a row not returned, or at
    /// another version than expected, is a conflict) and one updates them at their expected
    /// version (`WHERE _pk = u.c0 AND _version = u.c1 ... RETURNING`: a row not returned is a
    /// conflict), then one statement (`INSERT` or, from ``PostgresStoreOptions/copyRows`` rows
    /// on, binary `COPY`) inserts each entity's new rows, then join tables and positions, then
    /// metadata; with history on, last the history row (``PostgresHistoryTable``). On any
    /// conflict the transaction rolls back, nothing is written and the
    /// error lists every conflicting object with its stored snapshot; unique constraints are
    /// checked at commit, so values may swap within a save.
    ///
    /// - Throws: ``StrataError/Code/conflict``, ``StrataError/Code/uniqueConstraint`` (naming the
    ///   entity, the constraint and the values), ``StrataError/Code/invalidObjectID`` (an insert
    ///   under a key that is taken), the shape errors of
    ///   ``SaveRequest/checkShape(against:storeIdentifier:)``, ``StrataError/Code/readOnly``,
    ///   ``StrataError/Code/storeBusy`` (serialization failures or deadlocks that kept coming back),
    ///   ``StrataError/Code/serverUnavailable``.
    @discardableResult
    public func save(_ request: SaveRequest) throws -> SaveResult {
        try request.checkShape(against: model, storeIdentifier: identifier)
        if request.isEmpty { return try pool.withConnection { _ in SaveResult() } }
        try requireWritable("save")
        let plan = try SavePlan(request, store: self)
        let recordsHistory = self.recordsHistory
        do {
            return try pool.inTransaction { connection in
                var storedStates = recordsHistory ? try storedStatesForHistory(of: request, on: connection) : [:]
                var result = try apply(request, plan: plan, storedStates: &storedStates, on: connection)
                if recordsHistory {
                    result.historyToken = try appendHistory(
                        for: request, storedStates: storedStates, committing: true, on: connection)
                }
                return result
            }
        } catch let found as ConflictsFound {
            throw try conflictError(found.conflicts)
        } catch let error as StrataError where error.code == .uniqueConstraint {
            throw uniqueConstraintError(error)
        }
    }

    /// The save's objects grouped by entity, in the order each entity first appears.
    struct SavePlan {
        struct Group<Element> {
            let table: PostgresEntityTable
            var elements: [Element] = []
        }
        var inserts: [Group<Snapshot>] = []
        var updates: [Group<SaveRequest.Update>] = []
        var deletes: [Group<SaveRequest.Delete>] = []

        init(_ request: SaveRequest, store: PostgresStore) throws {
            inserts = try Self.group(request.inserts, store: store) { $0.objectID.entityName }
            updates = try Self.group(request.updates, store: store) { $0.snapshot.objectID.entityName }
            deletes = try Self.group(request.deletes, store: store) { $0.objectID.entityName }
        }

        private static func group<Element>(
            _ elements: [Element], store: PostgresStore, entity: (Element) -> String
        ) throws -> [Group<Element>] {
            var groups: [Group<Element>] = []
            var positions: [String: Int] = [:]
            // Requests come in runs of one entity: the run's group is found without hashing.
            var last: Int?
            for element in elements {
                let name = entity(element)
                if let last, groups[last].table.name == name {
                    groups[last].elements.append(element)
                } else if let position = positions[name] {
                    last = position
                    groups[position].elements.append(element)
                } else {
                    last = groups.count
                    positions[name] = groups.count
                    groups.append(Group(table: try store.table(for: name), elements: [element]))
                }
            }
            return groups
        }
    }

    /// The version checks that failed, carried out of the transaction (which then rolls back).
    struct ConflictsFound: Error {
        let conflicts: [(id: ObjectID, expected: Int64)]
    }

    /// Runs the request's statements; adds to `storedStates` the values deleted objects keep
    /// in the history, read by the deletes themselves.
    private func apply(
        _ request: SaveRequest, plan: SavePlan, storedStates: inout [ObjectID: Snapshot],
        on connection: PostgresConnection
    ) throws -> SaveResult {
        var conflicts: [(id: ObjectID, expected: Int64)] = []
        var versions: [ObjectID: Int64] = [:]
        versions.reserveCapacity(request.inserts.count + request.updates.count)

        for group in plan.deletes {
            try delete(group, storedStates: &storedStates, conflicts: &conflicts, on: connection)
        }
        for group in plan.updates {
            let parameters = try columnArrays(
                group.elements.map(\.snapshot), versions: group.elements.map(\.expectedVersion), table: group.table)
            let updated: Set<Int64>
            if recordsHistory, let sql = group.table.updateManyReturningOldSQL,
                group.elements.contains(where: { $0.previous?.version != $0.expectedVersion })
            {
                // The rows as they were, for the history, from the update itself.
                let reader = self.reader(for: group.table)
                let old = try reader.snapshots(try connection.query(sql, parameters))
                updated = Set(old.map(\.objectID.permanentKey))
                for snapshot in old { storedStates[snapshot.objectID] = snapshot }
            } else {
                updated = Self.keys(of: try connection.query(group.table.updateManySQL, parameters))
            }
            for update in group.elements {
                let id = update.snapshot.objectID
                if updated.contains(id.permanentKey) {
                    versions[id] = update.expectedVersion &+ 1
                } else {
                    conflicts.append((id, update.expectedVersion))
                }
            }
        }
        if !conflicts.isEmpty { throw ConflictsFound(conflicts: conflicts) }

        for group in plan.inserts {
            try insert(group.elements, into: group.table, on: connection)
            for snapshot in group.elements { versions[snapshot.objectID] = 1 }
        }
        for group in plan.inserts { try writeToMany(group.elements, group.table, isInsert: true, on: connection) }
        for group in plan.updates {
            try writeToMany(group.elements.map(\.snapshot), group.table, isInsert: false, on: connection)
        }
        for (key, value) in request.metadataChanges.sorted(by: { $0.key < $1.key }) {
            try PostgresMetadataTable.set(
                PostgresMetadataTable.userPrefix + key, value, schema: schema.name, on: connection)
        }
        return SaveResult(versions: versions)
    }

    /// Deletes `group`'s rows with one `DELETE ... WHERE _pk = ANY($1) RETURNING` their keys,
    /// versions and tombstone values: a row missing or at another version than expected is a
    /// conflict (the caller then rolls the transaction back, so nothing of it stays deleted).
    private func delete(
        _ group: SavePlan.Group<SaveRequest.Delete>, storedStates: inout [ObjectID: Snapshot],
        conflicts: inout [(id: ObjectID, expected: Int64)], on connection: PostgresConnection
    ) throws {
        let table = group.table
        let result = try connection.query(
            table.deleteManySQL, [.int64Array(group.elements.map { $0.objectID.permanentKey })])
        var deleted: [Int64: Int] = [:]
        deleted.reserveCapacity(result.rowCount)
        for row in 0..<result.rowCount { deleted[result.int64(row, 0)] = row }
        let keepsTombstones = recordsHistory && !table.tombstoneAttributes.isEmpty
        for delete in group.elements {
            guard let row = deleted[delete.objectID.permanentKey], result.int64(row, 1) == delete.expectedVersion
            else {
                conflicts.append((delete.objectID, delete.expectedVersion))
                continue
            }
            guard keepsTombstones else { continue }
            var attributes = [Value](repeating: .null, count: table.kinds.count)
            for (offset, attribute) in table.tombstoneAttributes.enumerated() {
                attributes[attribute] = try PostgresValueCoding.read(
                    table.kinds[attribute], result, row: row, column: 2 + offset)
            }
            storedStates[delete.objectID] = Snapshot(
                objectID: delete.objectID, version: delete.expectedVersion, attributes: attributes, relationships: [])
        }
    }

    /// The keys in the first column of `result`.
    private static func keys(of result: PostgresResult) -> Set<Int64> {
        var keys = Set<Int64>(minimumCapacity: result.rowCount)
        for row in 0..<result.rowCount { keys.insert(result.int64(row, 0)) }
        return keys
    }

    /// Inserts `rows` at version 1: one row with a plain INSERT, from ``PostgresStoreOptions/copyRows``
    /// rows on with binary `COPY`, the others with one INSERT of arrays. A key that is taken is
    /// ``StrataError/Code/invalidObjectID``.
    private func insert(_ rows: [Snapshot], into table: PostgresEntityTable, on connection: PostgresConnection)
        throws
    {
        do {
            if rows.count >= options.copyRows {
                try copy(rows, into: table, on: connection)
            } else if rows.count == 1 {
                try connection.query(table.insertSQL, try rowParameters(rows[0], table: table))
            } else {
                try connection.query(
                    table.insertManySQL,
                    try columnArrays(rows, versions: Array(repeating: 1, count: rows.count), table: table))
            }
        } catch let error as StrataError
            where error.location["sqlstate"] == "23505" && error.location["constraint"]?.hasSuffix("_pkey") == true
        {
            let what = rows.count == 1 ? "\(rows[0].objectID)" : "one of \(rows[0].objectID) ... \(rows.last!.objectID)"
            throw StrataError(
                .invalidObjectID, "cannot insert \(what): an object with that key already exists",
                location: location.merging(["objectID": rows[0].objectID.uriRepresentation]) { $1 },
                underlying: error.underlying)
        }
    }

    /// Inserts `rows` at version 1 with one binary `COPY` (``PostgresEntityTable/copySQL``).
    private func copy(_ rows: [Snapshot], into table: PostgresEntityTable, on connection: PostgresConnection) throws {
        let kinds = table.kinds
        let foreignKeys = table.foreignKeyIndexes
        let fields = table.writtenColumns.count
        try connection.copyIn(table.copySQL, rows: rows.count) { writer, index in
            let row = rows[index]
            writer.beginRow(fields: fields)
            writer.int64(row.objectID.permanentKey)
            writer.int64(1)
            for column in kinds.indices {
                try encoding(row, column, table) { try writer.value(row.attributes[column], kind: kinds[column]) }
            }
            for relationship in foreignKeys {
                if case .toOne(let target) = row.relationships[relationship] {
                    writer.int64(target?.primaryKey)
                } else {
                    writer.null()
                }
            }
        }
    }

    /// The parameters of one inserted row: key, version 1, attributes, stored to-one keys.
    private func rowParameters(_ snapshot: Snapshot, table: PostgresEntityTable) throws -> [PostgresParameter] {
        var parameters: [PostgresParameter] = [.int64(snapshot.objectID.permanentKey), .int64(1)]
        parameters.reserveCapacity(table.writtenColumns.count)
        for (column, kind) in table.kinds.enumerated() {
            parameters.append(
                try encoding(snapshot, column, table) {
                    try PostgresValueCoding.parameter(snapshot.attributes[column], kind: kind)
                })
        }
        for index in table.foreignKeyIndexes {
            if case .toOne(let target) = snapshot.relationships[index], let key = target?.primaryKey {
                parameters.append(.int64(key))
            } else {
                parameters.append(.null(PostgresType.int8))
            }
        }
        return parameters
    }

    /// `body` (encoding attribute `column` of `snapshot`), its error naming the object and the
    /// attribute: a value PostgreSQL cannot hold (a date that is not a number).
    @inline(__always)
    private func encoding<T>(
        _ snapshot: Snapshot, _ column: Int, _ table: PostgresEntityTable, _ body: () throws -> T
    ) throws -> T {
        do {
            return try body()
        } catch var error as StrataError {
            let attribute = table.attributeColumns[column]
            error.message = "\(snapshot.objectID).\(attribute): " + error.message
            error.location.merge(location) { $1 }
            error.location["entity"] = table.name
            error.location["key"] = attribute
            error.location["objectID"] = snapshot.objectID.uriRepresentation
            throw error
        }
    }

    /// One array per written column of `rows` (``PostgresEntityTable/writtenColumns``), the
    /// second holding `versions`.
    private func columnArrays(_ rows: [Snapshot], versions: [Int64], table: PostgresEntityTable) throws
        -> [PostgresParameter]
    {
        func int64Elements(_ values: [Int64?]) -> PostgresParameter {
            .array(
                of: PostgresType.int8, arrayType: PostgresType.int8Array,
                values.map { $0.map { PostgresParameter.bigEndianBytes(UInt64(bitPattern: $0)) } })
        }
        var arrays = [int64Elements(rows.map { $0.objectID.permanentKey }), int64Elements(versions)]
        arrays.reserveCapacity(table.writtenColumns.count)
        for (column, kind) in table.kinds.enumerated() {
            var elements: [[UInt8]?] = []
            elements.reserveCapacity(rows.count)
            for row in rows {
                elements.append(
                    try encoding(row, column, table) {
                        try PostgresValueCoding.arrayElement(row.attributes[column], kind: kind)
                    })
            }
            arrays.append(.array(of: kind.elementTypeOID, arrayType: kind.arrayTypeOID, elements))
        }
        for index in table.foreignKeyIndexes {
            arrays.append(
                int64Elements(
                    rows.map { row in
                        if case .toOne(let target) = row.relationships[index] { return target?.primaryKey }
                        return nil
                    }))
        }
        return arrays
    }

    /// Writes the to-many sides kept outside the rows: join-table rows (from the side that owns
    /// the table), then positions of ordered relationships.
    private func writeToMany(
        _ snapshots: [Snapshot], _ table: PostgresEntityTable, isInsert: Bool, on connection: PostgresConnection
    ) throws {
        guard !table.toManyIndexes.isEmpty else { return }
        // Pass 1: canonical join-table rows, and their source positions.
        if isInsert && snapshots.count >= options.copyRows {
            try copyJoinRows(of: snapshots, table, on: connection)
        } else {
            try insertJoinRows(of: snapshots, table, isInsert: isInsert, on: connection)
        }
        // Pass 2: positions kept for the other sides, once every row exists: one statement per
        // relationship for all the objects.
        for index in table.toManyIndexes {
            // The targets' positions by their keys, or (a join table) by owner and target.
            let sql: String
            let byOwner: Bool
            switch table.relationshipStorage[index] {
            case .foreignKeyToMany(_, _, _?):
                (sql, byOwner) = (table.positionSQL[index]!, false)
            case .joinTable(let join) where !join.isCanonical:
                guard let many = join.positionsManySQL else { continue }
                (sql, byOwner) = (many, true)
            default:
                continue
            }
            var owners: [Int64] = []
            var keys: [Int64] = []
            var positions: [Int64] = []
            for snapshot in snapshots {
                guard case .toMany(let targets) = snapshot.relationships[index] else { continue }
                let owner = snapshot.objectID.permanentKey
                for (position, target) in targets.enumerated() {
                    owners.append(owner)
                    keys.append(target.permanentKey)
                    positions.append(Int64(position))
                }
            }
            guard !keys.isEmpty else { continue }
            try connection.query(
                sql, (byOwner ? [.int64Array(owners)] : []) + [.int64Array(keys), .int64Array(positions)])
        }
    }

    /// The canonical join-table rows of `snapshots` (and their source positions), with one
    /// `INSERT` per object and relationship, after removing the rows of targets no longer there
    /// (for an update).
    private func insertJoinRows(
        of snapshots: [Snapshot], _ table: PostgresEntityTable, isInsert: Bool, on connection: PostgresConnection
    ) throws {
        for snapshot in snapshots {
            let owner = PostgresParameter.int64(snapshot.objectID.permanentKey)
            for index in table.toManyIndexes {
                guard case .joinTable(let join) = table.relationshipStorage[index], join.isCanonical,
                    case .toMany(let targets) = snapshot.relationships[index]
                else { continue }
                let keys = PostgresParameter.int64Array(targets.map(\.permanentKey))
                if !isInsert { try connection.query(join.deleteOtherRowsSQL, [owner, keys]) }
                if !targets.isEmpty {
                    try connection.query(join.insertRowsSQL, [owner, keys])
                    if let positions = join.positionsSQL { try connection.query(positions, [owner, keys]) }
                }
            }
        }
    }

    /// The canonical join-table rows of `snapshots`, new objects (so none of their rows exists
    /// yet), with one binary `COPY` per join table, positions of an ordered canonical side
    /// included. A target listed twice by one object gets one row, at its first position (as
    /// the `INSERT` of ``insertJoinRows(of:_:isInsert:on:)`` does).
    private func copyJoinRows(of snapshots: [Snapshot], _ table: PostgresEntityTable, on connection: PostgresConnection)
        throws
    {
        for index in table.toManyIndexes {
            guard case .joinTable(let join) = table.relationshipStorage[index], join.isCanonical else { continue }
            var rows: [(source: Int64, target: Int64, position: Int64)] = []
            var seen = Set<Int64>()
            for snapshot in snapshots {
                guard case .toMany(let targets) = snapshot.relationships[index], !targets.isEmpty else { continue }
                let source = snapshot.objectID.permanentKey
                seen.removeAll(keepingCapacity: true)
                for (position, target) in targets.enumerated() where seen.insert(target.permanentKey).inserted {
                    rows.append((source, target.permanentKey, Int64(position)))
                }
            }
            guard !rows.isEmpty else { continue }
            let hasPosition = join.hasSourcePosition
            try connection.copyIn(join.copySQL, rows: rows.count) { writer, row in
                writer.beginRow(fields: hasPosition ? 3 : 2)
                writer.int64(rows[row].source)
                writer.int64(rows[row].target)
                if hasPosition { writer.int64(rows[row].position) }
            }
        }
    }

    /// The conflict error for `conflicts`, each with its stored snapshot as the store holds it
    /// now (read after the save's transaction rolled back).
    private func conflictError(_ conflicts: [(id: ObjectID, expected: Int64)]) throws -> StrataError {
        var stored: [ObjectID: Snapshot] = [:]
        var byEntity: [String: [Int64]] = [:]
        for (id, _) in conflicts { byEntity[id.entityName, default: []].append(id.permanentKey) }
        try inReadTransaction { connection in
            for (entity, keys) in byEntity.sorted(by: { $0.key < $1.key }) {
                for snapshot in try readSnapshots(try table(for: entity), keys: keys, on: connection) {
                    stored[snapshot.objectID] = snapshot
                }
            }
        }
        let records = conflicts.map {
            SaveConflict(objectID: $0.id, expectedVersion: $0.expected, storedSnapshot: stored[$0.id])
        }
        let list = records.prefix(5).map(\.description).joined(separator: "; ")
        return StrataError(
            .conflict,
            "the save to schema '\(schema.name)' at \(endpoint) conflicts with changes made since the objects were read (\(records.count) object\(records.count == 1 ? "" : "s"): \(list)\(records.count > 5 ? "; ..." : "")); nothing was written",
            location: location,
            conflicts: records)
    }
}
