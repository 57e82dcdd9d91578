import Foundation
import StrataCore

/// What the query builder needs to know of one entity's table: its quoted name, the column of
/// each attribute and where each relationship is kept.
struct PostgresQueryTable: Sendable {
    /// Where a relationship's keys live.
    enum RelationshipStorage: Sendable {
        /// A to-one whose key is a column of this table.
        case foreignKey(column: String)
        /// A to-one kept by the other side: the first object of `entity` whose `column` holds
        /// this object's key.
        case derivedToOne(entity: String, column: String)
        /// A to-many kept by the destination's `column` (its to-one inverse).
        case foreignKeyToMany(column: String)
        /// A many-to-many in a join table: `ownColumn` holds this object's key, `targetColumn`
        /// the destination's.
        case joinTable(quotedTable: String, ownColumn: String, targetColumn: String)
    }

    let entity: Entity
    /// The table's name, quoted (and qualified with the store's schema when it needs to be).
    let quotedName: String
    /// The column of each attribute, in the entity's attribute order (unquoted).
    let attributeColumns: [String]
    /// The storage of each relationship, in the entity's relationship order.
    let relationships: [RelationshipStorage]

    var name: String { entity.name }
}

/// The tables of a store's model, by entity name.
struct PostgresQueryLayout: Sendable {
    let tables: [String: PostgresQueryTable]
}

/// Double-quotes an SQL identifier, doubling any quote inside: every name reaches SQL this way.
func postgresQuoted(_ identifier: String) -> String {
    "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
