import Foundation
import StrataCore

extension SQLiteStore: BatchOperating {
    /// Deletes every object of `entityName` matching `predicate` (all when `nil`) in one
    /// `BEGIN IMMEDIATE` transaction, without loading them, ignoring delete rules. Other objects'
    /// relationships to them are nullified and those objects' versions bumped, so contexts holding
    /// them see a conflict rather than writing a dangling reference back.
    ///
    /// A predicate the store cannot evaluate in SQL is evaluated in memory inside the same
    /// transaction. Returns the deleted IDs in key order. With history on, the transaction records
    /// the deletes (with their tombstones) and the updates of the objects whose relationships
    /// were nullified.
    public func batchDelete(entityName: String, predicate: ObjectPredicate?) throws -> BatchResult {
        let table = try batchTable(entityName)
        return try inWriteTransaction { connection in
            let keys = try batchKeys(table, predicate: predicate, on: connection)
            guard !keys.isEmpty else { return BatchResult(objectIDs: []) }
            try fillBatch(keys, on: connection)
            let history = try batchDeleteHistory(table, keys: keys, on: connection)
            let batch = "(SELECT \(q("k")) FROM temp.\(q("_strata_batch")))"
            var joinTablesDone: Set<String> = []
            for other in schema.orderedTables {
                for (index, relationship) in other.entity.relationships.enumerated()
                where relationship.destination == table.name {
                    switch other.relationshipStorage[index] {
                    case .foreignKey(let column):
                        let position =
                            other.positionColumns.contains("_position_" + column)
                            ? ", \(q("_position_" + column)) = NULL" : ""
                        try connection.execute(
                            "UPDATE \(other.quotedName) SET \(q(column)) = NULL\(position), \(q("_version")) = \(q("_version")) + 1 WHERE \(q(column)) IN \(batch)"
                        )
                    case .derivedToOne(_, let column), .foreignKeyToMany(_, let column, _):
                        try connection.execute(
                            "UPDATE \(other.quotedName) SET \(q("_version")) = \(q("_version")) + 1 WHERE \(q("_pk")) IN (SELECT \(q(column)) FROM \(table.quotedName) WHERE \(q("_pk")) IN \(batch))"
                        )
                    case .joinTable(let join):
                        guard joinTablesDone.insert(join.table).inserted else { continue }
                        // `other` holds `ownColumn`; the deleted objects are in `targetColumn`.
                        try connection.execute(
                            "UPDATE \(other.quotedName) SET \(q("_version")) = \(q("_version")) + 1 WHERE \(q("_pk")) IN (SELECT \(q(join.ownColumn)) FROM \(q(join.table)) WHERE \(q(join.targetColumn)) IN \(batch))"
                        )
                        try connection.execute("DELETE FROM \(q(join.table)) WHERE \(q(join.targetColumn)) IN \(batch)")
                        if other.name == table.name {
                            try connection.execute(
                                "DELETE FROM \(q(join.table)) WHERE \(q(join.ownColumn)) IN \(batch)")
                        }
                    }
                }
            }
            try connection.execute("DELETE FROM \(table.quotedName) WHERE \(q("_pk")) IN \(batch)")
            try recordBatchDelete(history, table: table, on: connection)
            try connection.execute("DELETE FROM temp.\(q("_strata_batch"))")
            return BatchResult(
                objectIDs: keys.map { ObjectID(entityName: table.name, storeIdentifier: identifier, primaryKey: $0) })
        }
    }

    /// Sets `values` (attribute name to value) on every object of `entityName` matching
    /// `predicate`, bumping each one's version, in one transaction. Returns the updated IDs.
    /// With history on, the transaction records each object's update with its changed attributes.
    ///
    /// - Throws: ``StrataError/Code/unknownKey`` for a name that is not an attribute,
    ///   ``StrataError/Code/typeMismatch`` / ``StrataError/Code/missingValue`` for a value that
    ///   does not fit, ``StrataError/Code/uniqueConstraint`` (nothing is changed).
    public func batchUpdate(entityName: String, predicate: ObjectPredicate?, values: [String: Value]) throws
        -> BatchResult
    {
        let table = try batchTable(entityName)
        var assignments: [(column: String, index: Int, value: Value)] = []
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            guard let attributeIndex = table.entity.attributeIndex(named: name) else {
                throw StrataError(
                    .unknownKey, "'\(entityName)' has no attribute '\(name)'",
                    location: ["path": path, "entity": entityName, "key": name])
            }
            let attribute = table.entity.attributes[attributeIndex]
            if value.isNull && !attribute.isOptional {
                throw StrataError(
                    .missingValue, "'\(entityName).\(name)' is required and cannot be set to nil",
                    location: ["path": path, "entity": entityName, "key": name])
            }
            guard value.fits(attribute.type) else {
                throw StrataError(
                    .typeMismatch,
                    "'\(entityName).\(name)' is a \(attribute.type.rawValue) attribute and cannot hold the \(value.typeName) \(value)",
                    location: ["path": path, "entity": entityName, "key": name])
            }
            assignments.append((table.attributeColumns[attributeIndex], attributeIndex, value))
        }
        return try inWriteTransaction { connection in
            let keys = try batchKeys(table, predicate: predicate, on: connection)
            guard !keys.isEmpty else { return BatchResult(objectIDs: []) }
            try fillBatch(keys, on: connection)
            let history = try batchUpdateHistory(table, keys: keys, on: connection)
            let sets = assignments.map { "\(q($0.column)) = ?" } + ["\(q("_version")) = \(q("_version")) + 1"]
            let update = try connection.prepare(
                "UPDATE \(table.quotedName) SET \(sets.joined(separator: ", ")) WHERE \(q("_pk")) IN (SELECT \(q("k")) FROM temp.\(q("_strata_batch")))"
            )
            for (i, assignment) in assignments.enumerated() {
                SQLiteValueCoding.bind(assignment.value, at: Int32(i + 1), in: update)
            }
            try update.run()
            try recordBatchUpdate(history, values: assignments.map { ($0.index, $0.value) }, on: connection)
            try connection.execute("DELETE FROM temp.\(q("_strata_batch"))")
            return BatchResult(
                objectIDs: keys.map { ObjectID(entityName: table.name, storeIdentifier: identifier, primaryKey: $0) })
        }
    }

    private func batchTable(_ entityName: String) throws -> SQLiteEntityTable {
        guard let table = schema.tables[entityName] else {
            _ = try model.requireEntity(entityName)
            throw StrataError(
                .unknownEntity, "the model has no entity '\(entityName)'", location: ["entity": entityName])
        }
        return table
    }

    /// The keys of the objects matching `predicate`, in key order: in SQL when it translates,
    /// otherwise with the in-memory evaluator over the rows read in this transaction.
    private func batchKeys(_ table: SQLiteEntityTable, predicate: ObjectPredicate?, on connection: SQLiteConnection)
        throws -> [Int64]
    {
        let request = FetchRequest(entityName: table.name, predicate: predicate, resultType: .objectIDs)
        var builder = SQLiteQueryBuilder(schema: schema, storeIdentifier: identifier)
        if let query = try? builder.build(request, table: table) {
            let statement = try connection.prepare(query.sql)
            statement.bind(query.parameters)
            defer { statement.reset() }
            var keys: [Int64] = []
            while try statement.step() { keys.append(statement.int64(0)) }
            return keys
        }
        let candidates = try fetchAllSnapshots(table: table, on: connection)
        let evaluator = PredicateEvaluator(model: model) { [self] id in
            guard id.storeIdentifier == identifier, let key = id.primaryKey else { return nil }
            return try fetchSnapshots(entity: id.entityName, keys: [key], on: connection).first
        }
        return try QueryEvaluation.run(request, over: candidates, evaluator: evaluator).objectIDs().compactMap(
            \.primaryKey)
    }

    /// Puts `keys` in the connection's temporary batch table.
    private func fillBatch(_ keys: [Int64], on connection: SQLiteConnection) throws {
        try connection.execute(
            "CREATE TEMP TABLE IF NOT EXISTS \(q("_strata_batch")) (\(q("k")) INTEGER PRIMARY KEY); DELETE FROM temp.\(q("_strata_batch"))"
        )
        let insert = try connection.prepare("INSERT OR IGNORE INTO temp.\(q("_strata_batch")) (\(q("k"))) VALUES (?)")
        for key in keys {
            insert.bind(1, key)
            try insert.run()
        }
    }
}
