import StrataCore

/// Each unique constraint of the model is a unique constraint of its table, `DEFERRABLE
/// INITIALLY DEFERRED` (see ``PostgresSchema``): PostgreSQL checks it when the save commits, so a
/// save that swaps values between objects (or rotates them) is valid, as Strata checks a save's
/// final state, and a save that would break one fails with ``StrataError/Code/uniqueConstraint``
/// and writes nothing. `NULL` is distinct in a unique constraint: a group with a null value is
/// not checked, as in every store.
extension PostgresStore: UniqueConstraintEnforcing {
    /// `error` (a unique violation PostgreSQL reported) naming the entity, the constrained
    /// properties and the values.
    func uniqueConstraintError(_ error: StrataError) -> StrataError {
        guard let constraint = error.location["constraint"],
            let (table, properties) = schema.orderedTables.lazy.compactMap({ table in
                table.uniqueConstraintNames[constraint].map { (table, $0) }
            }).first
        else { return error }
        var location = self.location
        location["entity"] = table.name
        location["key"] = properties.joined(separator: ",")
        location["constraint"] = constraint
        // PostgreSQL's detail names the values: `Key (title)=(Apollo) already exists.`
        let values = error.underlying.map { ": \($0)" } ?? ""
        return StrataError(
            .uniqueConstraint,
            "the save would give two '\(table.name)' objects the same \(properties.joined(separator: " and ")) (unique constraint \(properties.joined(separator: "+")))\(values); nothing was written",
            location: location, underlying: error.underlying)
    }
}
