/// Where one relationship's targets are stored in a SQL store, with the names its dialect gave
/// them: ``RelationshipLayout``'s decision, resolved into tables and columns. `JoinTable` is the
/// store's own description of a join table side (its names and statements).
package enum RelationshipStorage<JoinTable: Sendable>: Sendable {
    /// A to-one stored in this entity's column (named after the relationship).
    case foreignKey(column: String)
    /// A to-one derived from the other side's foreign key: the row of `table` whose `column`
    /// holds our key.
    case derivedToOne(table: String, column: String)
    /// A to-many derived from the targets' foreign key `column` in `table`; ordered ones keep the
    /// position in `positionColumn` of that table.
    case foreignKeyToMany(table: String, column: String, positionColumn: String?)
    /// A many-to-many in a join table.
    case joinTable(JoinTable)

    /// Whether the relationship holds many targets.
    package var isToMany: Bool {
        switch self {
        case .foreignKey, .derivedToOne: return false
        case .foreignKeyToMany, .joinTable: return true
        }
    }
}
