import StrataCore

extension SQLiteStore: KeyPreservingStore {
    /// Raises the entity's row in `_strata_sequence` to `key` (never lowers it), in a
    /// `BEGIN IMMEDIATE` transaction of its own, so the reservation holds across processes and
    /// reopening.
    public func reserveKeys(through key: Int64, for entityName: String) throws {
        let entity = try model.requireEntity(entityName)
        guard key >= 1 else {
            throw StrataError(
                .invalidRequest, "cannot reserve keys through \(key): keys start at 1",
                location: ["path": path, "entity": entityName])
        }
        try inWriteTransaction { connection in
            let upsert = try connection.prepare(
                "INSERT INTO \(q("_strata_sequence")) (\(q("entity")), \(q("lastKey"))) VALUES (?, ?) "
                    + "ON CONFLICT (\(q("entity"))) DO UPDATE SET \(q("lastKey")) = max(\(q("lastKey")), excluded.\(q("lastKey")))"
            )
            upsert.bind(1, entity.name)
            upsert.bind(2, key)
            try upsert.run()
        }
    }
}
