import StrataCore

/// The ends of a unique constraint's index, read in one statement: SQLite answers `min` and
/// `max` of an indexed column from the index's first and last entries, each a lookup of
/// O(log n), when each is a subquery of its own (one query asking both would scan the table).
extension SQLiteStore: UniqueIntegerBounds {
    public func storedBounds(ofUnique attribute: String, in entityName: String) throws -> ClosedRange<Int64>? {
        let index = try model.requireUniqueIntegerAttribute(attribute, of: entityName)
        guard let table = schema.tables[entityName] else { return nil }
        return try withReader { connection in
            let statement = try connection.prepare(Self.boundsSQL(ofAttributeAt: index, in: table))
            defer { statement.reset() }
            guard try statement.step(), !statement.isNull(0), !statement.isNull(1) else { return nil }
            return statement.int64(0)...statement.int64(1)
        }
    }

    /// The statement reading the least and greatest value of the column of the attribute at
    /// `index` in `table`, each from one end of the column's index.
    static func boundsSQL(ofAttributeAt index: Int, in table: SQLiteEntityTable) -> String {
        let column = q(table.attributeColumns[index])
        return
            "SELECT (SELECT min(\(column)) FROM \(table.quotedName)), (SELECT max(\(column)) FROM \(table.quotedName))"
    }
}
