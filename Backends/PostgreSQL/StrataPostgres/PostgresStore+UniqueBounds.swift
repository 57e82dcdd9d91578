import StrataCore

/// The ends of a unique constraint's index, in one round trip: PostgreSQL answers `min` and
/// `max` of an indexed column from the ends of its B-tree, each a lookup of O(log n).
extension PostgresStore: UniqueIntegerBounds {
    public func storedBounds(ofUnique attribute: String, in entityName: String) throws -> ClosedRange<Int64>? {
        let index = try model.requireUniqueIntegerAttribute(attribute, of: entityName)
        guard let table = schema.tables[entityName] else { return nil }
        let column = pq(table.attributeColumns[index])
        let sql = "SELECT min(\(column))::int8, max(\(column))::int8 FROM \(table.qualified)"
        let result = try pool.withConnection { try $0.query(sql, []) }
        guard result.rowCount == 1, !result.isNull(0, 0), !result.isNull(0, 1) else { return nil }
        return result.int64(0, 0)...result.int64(0, 1)
    }
}
