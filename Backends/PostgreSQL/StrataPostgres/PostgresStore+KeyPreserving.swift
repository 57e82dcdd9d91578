import StrataCore

extension PostgresStore: KeyPreservingStore {
    /// Raises the entity's row in `_strata_sequence` to `key` (never lowers it) with one `INSERT
    /// ... ON CONFLICT DO UPDATE`, so the reservation holds across hosts and reopening.
    public func reserveKeys(through key: Int64, for entityName: String) throws {
        let entity = try model.requireEntity(entityName)
        guard key >= 1 else {
            throw StrataError(
                .invalidRequest, "cannot reserve keys through \(key): keys start at 1",
                location: location.merging(["entity": entityName]) { $1 })
        }
        try requireWritable("reserve keys")
        let sequence = schema.qualified(PostgresSchema.sequenceTable)
        try pool.withConnection { connection in
            _ = try connection.query(
                "INSERT INTO \(sequence) (\(pq("entity")), \(pq("last_key"))) VALUES ($1, $2) ON CONFLICT (\(pq("entity"))) DO UPDATE SET \(pq("last_key")) = greatest(\(sequence).\(pq("last_key")), excluded.\(pq("last_key")))",
                [.text(entity.name), .int64(key)])
        }
    }
}
