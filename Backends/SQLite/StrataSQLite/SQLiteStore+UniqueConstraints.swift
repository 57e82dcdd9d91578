import StrataCore

/// Each unique constraint of the model has a `UNIQUE` index (see ``SQLiteSchema``), which every
/// insert and update probes: a save that would break one fails with
/// ``StrataError/Code/uniqueConstraint`` and its transaction is rolled back.
///
/// SQLite checks a unique index after each statement, Strata checks a save's final state: a save
/// in which two objects swap their values under a constraint (or several rotate them) is valid.
/// An update that meets a unique index is therefore set aside; once every other update ran, the
/// set-aside rows give up their constrained values (`NULL` is distinct in a unique index) and then
/// take their new ones. A collision that remains is a real one. Saves without such a collision
/// run no extra statement.
extension SQLiteStore: UniqueConstraintEnforcing {
    /// Whether `error` is an update's collision with a unique index, to be retried after the
    /// save's other updates.
    static func isUniqueCollision(_ error: any Error) -> Bool {
        (error as? StrataError)?.location["sqliteCode"] == String(SQLiteErrorMapping.constraintUnique)
    }

    /// Runs again the updates set aside by a unique collision: first clears the constrained
    /// columns of each of their rows (checking its expected version, so a stale update stays a
    /// conflict), then runs each update. Returns the updates that found another version.
    func reapplyCollidedUpdates(
        _ collided: [(update: SaveRequest.Update, table: SQLiteEntityTable)], on connection: SQLiteConnection,
        run: (SaveRequest.Update, SQLiteEntityTable) throws -> Bool
    ) throws -> [SaveRequest.Update] {
        var stale: [SaveRequest.Update] = []
        var fresh: [(update: SaveRequest.Update, table: SQLiteEntityTable)] = []
        for (update, table) in collided {
            let clear = try connection.prepare(Self.clearUniqueColumnsSQL(of: table))
            clear.bind(1, update.snapshot.objectID.primaryKey!)
            clear.bind(2, update.expectedVersion)
            try clear.run()
            if connection.changes == 1 { fresh.append((update, table)) } else { stale.append(update) }
        }
        for (update, table) in fresh where try !run(update, table) { stale.append(update) }
        return stale
    }

    /// `UPDATE` setting every column under one of `table`'s unique constraints to `NULL`, for the
    /// row of a primary key at an expected version.
    static func clearUniqueColumnsSQL(of table: SQLiteEntityTable) -> String {
        let entity = table.entity
        var columns: [String] = []
        for constraint in entity.uniqueConstraints {
            for property in constraint {
                let column = entity.attributeIndex(named: property).map { table.attributeColumns[$0] } ?? property
                if !columns.contains(column) { columns.append(column) }
            }
        }
        let assignments = columns.map { "\(q($0)) = NULL" }.joined(separator: ", ")
        return "UPDATE \(table.quotedName) SET \(assignments) WHERE \(q("_pk")) = ? AND \(q("_version")) = ?"
    }
}
