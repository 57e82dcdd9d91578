import StrataCore

extension SQLiteSchema {
    /// Checks that every table, row and index of this layout fits within `limits`, so that a
    /// model SQLite cannot hold is refused before any file is created.
    ///
    /// - Throws: ``StrataError/Code/invalidModel`` naming the entity, the limit and the count
    ///   (location keys `entity`, `limit`, `count`, and `index` for an index or unique constraint).
    func checkLimits(_ limits: SQLiteLimits) throws {
        for table in orderedTables {
            let entity = table.entity.name
            func refuse(_ what: String, count: Int, limit: Int, limitName: String, extra: [String: String] = [:])
                -> StrataError
            {
                var location = ["entity": entity, "limit": String(limit), "count": String(count)]
                location.merge(extra) { first, _ in first }
                return StrataError(
                    .invalidModel,
                    "the entity '\(entity)' needs \(count) \(what), but this SQLite allows at most \(limit) (\(limitName)); split the entity or use another store type",
                    location: location)
            }
            let stored = 2 + table.attributeColumns.count + table.foreignKeyIndexes.count + table.positionColumns.count
            if stored > limits.columns {
                throw refuse(
                    "columns in its SQLite table", count: stored, limit: limits.columns,
                    limitName: "SQLITE_LIMIT_COLUMN")
            }
            let read = 2 + table.attributeColumns.count + table.toOneIndexes.count
            if read > limits.columns {
                throw refuse(
                    "columns in the rows a fetch reads", count: read, limit: limits.columns,
                    limitName: "SQLITE_LIMIT_COLUMN")
            }
            // An UPDATE binds every written column but the key, then the key and the version.
            let bound = 2 + table.attributeColumns.count + table.foreignKeyIndexes.count + 1
            if bound > limits.variables {
                throw refuse(
                    "parameters to write one object", count: bound, limit: limits.variables,
                    limitName: "SQLITE_LIMIT_VARIABLE_NUMBER")
            }
            let indexed =
                table.entity.indexes.map { ($0.name, table.sortKeyColumns(of: $0).count) }
                + table.entity.uniqueConstraints.map { ($0.joined(separator: "+"), $0.count) }
            for (name, count) in indexed where count > limits.columns {
                throw refuse(
                    "columns in its index '\(name)'", count: count, limit: limits.columns,
                    limitName: "SQLITE_LIMIT_COLUMN", extra: ["index": name])
            }
        }
    }
}
