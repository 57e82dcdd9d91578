import Foundation
import StrataCore

extension PostgresStore: BatchOperating {
    /// Deletes every object of `entityName` matching `predicate` (all when `nil`) in one
    /// transaction, without loading them, ignoring delete rules. Other objects' relationships to
    /// them are nullified and those objects' versions bumped, so contexts holding them see a
    /// conflict rather than writing a dangling reference back.
    ///
    /// The matching rows are selected `FOR UPDATE` (a save changing one meanwhile is waited for,
    /// and the predicate checked again on its new state); a predicate SQL cannot decide is
    /// evaluated in memory on the locked rows. Returns the deleted IDs in key order. With history
    /// on, the transaction records the deletes (with their tombstones) and the updates of the
    /// objects whose relationships were nullified.
    public func batchDelete(entityName: String, predicate: ObjectPredicate?) throws -> BatchResult {
        let table = try self.table(for: entityName)
        try requireWritable("delete in a batch")
        return try batchTransaction { connection in
            if let deleted = try deleteInOneStatement(table, predicate: predicate, on: connection) { return deleted }
            let keys = try batchKeys(table, predicate: predicate, on: connection)
            guard !keys.isEmpty else { return BatchResult(objectIDs: []) }
            let batch = PostgresParameter.int64Array(keys)
            let history = try batchDeleteHistory(table, keys: keys, on: connection)
            var joinTablesDone: Set<String> = []
            for other in schema.orderedTables {
                for (index, relationship) in other.entity.relationships.enumerated()
                where relationship.destination == table.name {
                    switch other.relationshipStorage[index] {
                    case .foreignKey(let column):
                        let position =
                            other.positionColumns.contains("_position_" + column)
                            ? ", \(pq("_position_" + column)) = NULL" : ""
                        _ = try connection.query(
                            "UPDATE \(other.qualified) SET \(pq(column)) = NULL\(position), \(pq("_version")) = \(pq("_version")) + 1 WHERE \(pq(column)) = ANY($1)",
                            [batch])
                    case .derivedToOne(_, let column), .foreignKeyToMany(_, let column, _):
                        _ = try connection.query(
                            "UPDATE \(other.qualified) SET \(pq("_version")) = \(pq("_version")) + 1 WHERE \(pq("_pk")) IN (SELECT \(pq(column)) FROM \(table.qualified) WHERE \(pq("_pk")) = ANY($1))",
                            [batch])
                    case .joinTable(let join):
                        guard joinTablesDone.insert(join.name).inserted else { continue }
                        // `other` holds `ownColumn`; the deleted objects are in `targetColumn`.
                        _ = try connection.query(
                            "UPDATE \(other.qualified) SET \(pq("_version")) = \(pq("_version")) + 1 WHERE \(pq("_pk")) IN (SELECT \(pq(join.ownColumn)) FROM \(join.qualified) WHERE \(pq(join.targetColumn)) = ANY($1))",
                            [batch])
                        _ = try connection.query(
                            "DELETE FROM \(join.qualified) WHERE \(pq(join.targetColumn)) = ANY($1)", [batch])
                        if other.name == table.name {
                            _ = try connection.query(
                                "DELETE FROM \(join.qualified) WHERE \(pq(join.ownColumn)) = ANY($1)", [batch])
                        }
                    }
                }
            }
            let deleted = try connection.query(
                "DELETE FROM \(table.qualified) WHERE \(pq("_pk")) = ANY($1) RETURNING \(pq("_pk"))", [batch])
            try recordBatchDelete(history, table: table, on: connection)
            let scope = ObjectID.Scope(entityName: table.name, storeIdentifier: identifier)
            return BatchResult(objectIDs: (0..<deleted.rowCount).map { deleted.int64($0, 0) }.sorted().map(scope.id))
        }
    }

    /// Sets `values` (attribute name to value) on every object of `entityName` matching
    /// `predicate`, bumping each one's version, in one transaction and one `UPDATE`. Returns the
    /// updated IDs in key order. With history on, the transaction records each object's update
    /// with its changed attributes.
    ///
    /// - Throws: ``StrataError/Code/unknownKey`` for a name that is not an attribute,
    ///   ``StrataError/Code/typeMismatch`` / ``StrataError/Code/missingValue`` for a value that
    ///   does not fit, ``StrataError/Code/uniqueConstraint`` (nothing is changed).
    public func batchUpdate(entityName: String, predicate: ObjectPredicate?, values: [String: Value]) throws
        -> BatchResult
    {
        let table = try self.table(for: entityName)
        var assignments: [(column: String, index: Int, value: Value, parameter: PostgresParameter)] = []
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            let location = self.location.merging(["entity": entityName, "key": name]) { $1 }
            guard let attributeIndex = table.entity.attributeIndex(named: name) else {
                throw StrataError(.unknownKey, "'\(entityName)' has no attribute '\(name)'", location: location)
            }
            let attribute = table.entity.attributes[attributeIndex]
            if value.isNull && !attribute.isOptional {
                throw StrataError(
                    .missingValue, "'\(entityName).\(name)' is required and cannot be set to nil", location: location)
            }
            guard value.fits(attribute.type) else {
                throw StrataError(
                    .typeMismatch,
                    "'\(entityName).\(name)' is a \(attribute.type.rawValue) attribute and cannot hold the \(value.typeName) \(value)",
                    location: location)
            }
            let parameter = try PostgresValueCoding.parameter(value, kind: table.kinds[attributeIndex])
            assignments.append((table.attributeColumns[attributeIndex], attributeIndex, value, parameter))
        }
        try requireWritable("update in a batch")
        return try batchTransaction { connection in
            let keys = try batchKeys(table, predicate: predicate, on: connection)
            guard !keys.isEmpty else { return BatchResult(objectIDs: []) }
            let history = recordsHistory ? try readSnapshots(table, keys: keys, on: connection) : nil
            let sets =
                assignments.enumerated().map { "\(pq($0.element.column)) = $\($0.offset + 2)" }
                + ["\(pq("_version")) = \(pq("_version")) + 1"]
            let updated = try connection.query(
                "UPDATE \(table.qualified) SET \(sets.joined(separator: ", ")) WHERE \(pq("_pk")) = ANY($1) RETURNING \(pq("_pk"))",
                [.int64Array(keys)] + assignments.map(\.parameter))
            if let history {
                var request = SaveRequest()
                request.updates = history.map { old in
                    var new = old
                    for assignment in assignments { new.attributes[assignment.index] = assignment.value }
                    return SaveRequest.Update(new, expectedVersion: old.version, previous: old)
                }
                _ = try appendHistory(for: request, storedStates: [:], committing: true, on: connection)
            }
            let scope = ObjectID.Scope(entityName: table.name, storeIdentifier: identifier)
            return BatchResult(objectIDs: (0..<updated.rowCount).map { updated.int64($0, 0) }.sorted().map(scope.id))
        }
    }

    /// Deletes the rows `predicate` matches with one `DELETE ... WHERE predicate RETURNING` when
    /// nothing else needs them first: the entity has no relationships and none points to it (no
    /// references to empty, no join rows), history keeps no values of its deleted objects, and
    /// SQL decides the predicate on the table alone (no join; the server then checks it again on
    /// a row a concurrent save changed, as the locking select of the general path does). Returns
    /// `nil` when the general path is needed.
    private func deleteInOneStatement(
        _ table: PostgresEntityTable, predicate: ObjectPredicate?, on connection: PostgresConnection
    ) throws -> BatchResult? {
        guard table.entity.relationships.isEmpty,
            !schema.orderedTables.contains(where: { other in
                other.entity.relationships.contains { $0.destination == table.name }
            }),
            !(recordsHistory && HistoryChangeRecorder(model: model).needsStateOfDeleted(table.name))
        else { return nil }
        var builder = PostgresQueryBuilder(schema: schema, storeIdentifier: identifier)
        guard let condition = builder.exactCondition(predicate, table: table) else { return nil }
        let delete = PostgresStatement(
            sql: "DELETE FROM \(table.qualified) AS t0 WHERE \(condition) RETURNING t0.\(pq("_pk"))",
            parameters: builder.parameters)
        // Deleting named objects, the record of their deletes is built while the server deletes
        // them, then appended if the delete found every one of them.
        let (results, named) = try connection.pipeline([delete]) {
            () throws -> (keys: [Int64], entry: HistoryEntry?)? in
            guard recordsHistory, let keys = namedKeys(predicate, in: table) else { return nil }
            return (keys, try batchDeleteEntry(keys: keys, table: table))
        }
        let deleted = results[0]
        let keys = (0..<deleted.rowCount).map { deleted.int64($0, 0) }.sorted()
        if recordsHistory, !keys.isEmpty {
            if let named, let entry = named.entry, keys == named.keys {
                _ = try appendHistory(entry, committing: true, on: connection)
            } else {
                try recordBatchDelete(BatchDeleteHistory(deletedKeys: keys), table: table, on: connection)
            }
        }
        let scope = ObjectID.Scope(entityName: table.name, storeIdentifier: identifier)
        return BatchResult(objectIDs: keys.map(scope.id))
    }

    /// The keys, in order and each once, of the objects `predicate` names when it is
    /// `SELF IN {objects}` of `table`'s entity in this store (what a batch delete of IDs asks);
    /// `nil` for any other predicate.
    private func namedKeys(_ predicate: ObjectPredicate?, in table: PostgresEntityTable) -> [Int64]? {
        guard case .comparison(let comparison) = predicate, comparison.modifier == .direct,
            comparison.lhs == .evaluatedObject, comparison.op == .in, case .list(let elements) = comparison.rhs
        else { return nil }
        var keys: [Int64] = []
        keys.reserveCapacity(elements.count)
        for element in elements {
            guard case .objectID(let id) = element, id.entityName == table.name, id.storeIdentifier == identifier,
                let key = id.primaryKey
            else { return nil }
            keys.append(key)
        }
        keys.sort()
        var unique = 0
        for index in keys.indices where unique == 0 || keys[unique - 1] != keys[index] {
            keys[unique] = keys[index]
            unique += 1
        }
        keys.removeLast(keys.count - unique)
        return keys
    }

    /// Runs `body` in one write transaction, reporting a unique constraint as a save does.
    private func batchTransaction(_ body: (PostgresConnection) throws -> BatchResult) throws -> BatchResult {
        do {
            return try pool.inTransaction { try body($0) }
        } catch let error as StrataError where error.code == .uniqueConstraint {
            throw uniqueConstraintError(error)
        }
    }

    /// The keys of the objects matching `predicate`, in key order, their rows locked: selected in
    /// SQL when the builder decides the predicate, otherwise decided in memory over the rows SQL
    /// returns (the candidates, or every row), read in this transaction.
    private func batchKeys(_ table: PostgresEntityTable, predicate: ObjectPredicate?, on connection: PostgresConnection)
        throws -> [Int64]
    {
        var request = FetchRequest(entityName: table.name, predicate: predicate, resultType: .objectIDs)
        var builder = PostgresQueryBuilder(schema: schema, storeIdentifier: identifier)
        let query = try? builder.build(request, table: table)
        if let query, query.answer == .exact {
            let result = try connection.query(query.sql + " FOR UPDATE OF t0", query.parameters)
            return (0..<result.rowCount).map { result.int64($0, 0) }
        }
        let reader = self.reader(for: table)
        let sql =
            query.map { $0.sql + " FOR UPDATE OF t0" }
            ?? "SELECT \(table.selectList) FROM \(table.qualified) AS t0 ORDER BY t0.\(pq("_pk")) FOR UPDATE"
        var candidates = try reader.snapshots(try connection.query(sql, query?.parameters ?? []))
        try reader.fillToMany(&candidates, on: connection)
        let evaluator = PredicateEvaluator(model: model) { [self] id in
            guard id.storeIdentifier == identifier, let key = id.primaryKey else { return nil }
            return try readSnapshots(try self.table(for: id.entityName), keys: [key], on: connection).first
        }
        request.resultType = .objectIDs
        return try QueryEvaluation.run(request, over: candidates, evaluator: evaluator).objectIDs().compactMap(
            \.primaryKey)
    }
}
