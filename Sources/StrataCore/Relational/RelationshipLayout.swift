/// Where a relational store keeps one relationship: the decisions every SQL backend shares, made
/// from the model alone so that every process (and every backend) agrees on them. The names of
/// tables and columns are the backend's own (its quoting and length rules); this type only says
/// which side keeps what.
///
/// - a to-one whose inverse is to-many keeps the target's key in its own column
///   (``foreignKey``); when that to-many is ordered, the position lives beside the key;
/// - a one-to-one keeps the key on the side whose `(entity, relationship)` names sort first
///   (``isCanonical``); a relationship that is its own inverse keeps it on every object; the other
///   side is derived (``derivedToOne``);
/// - a to-many whose inverse is to-one is derived from the targets' keys (``foreignKeyToMany``);
/// - a many-to-many lives in a join table named after the canonical side, whose objects are the
///   `source` column and the other side's the `target` column, with a position column per ordered
///   side (``joinTable(_:)``).
package enum RelationshipLayout: Sendable, Hashable {
    /// A to-one kept in this entity's own column, named after the relationship.
    case foreignKey
    /// A one-to-one kept by the other side: the destination's column of the inverse holds this
    /// object's key.
    case derivedToOne
    /// A to-many derived from the destination's column of the inverse; when `ordered`, the
    /// destination's table keeps this side's positions beside that column.
    case foreignKeyToMany(ordered: Bool)
    /// A many-to-many in a join table.
    case joinTable(JoinTableSide)

    /// One side of a many-to-many relationship's join table.
    package struct JoinTableSide: Sendable, Hashable {
        /// Whether this side names the table (its objects are the `source` column).
        package var isCanonical: Bool
        /// The entity and relationship of the canonical side, which name the table.
        package var tableEntity: String
        package var tableRelationship: String
        /// Whether this side is ordered (its positions live in the table).
        package var isOrdered: Bool
        /// Whether the table has a `source_position` column (the canonical side is ordered).
        package var hasSourcePosition: Bool
        /// Whether the table has a `target_position` column (the other side is ordered; never for
        /// a relationship that is its own inverse).
        package var hasTargetPosition: Bool
    }

    /// Where `relationship` of `entity` is kept. The model guarantees the destination and the
    /// inverse exist (a validated model).
    package init(of relationship: Relationship, in entity: Entity, model: Model) {
        let destination = model.entity(named: relationship.destination)!
        let inverse = destination.relationship(named: relationship.inverse)!
        let isSelfInverse = destination.name == entity.name && inverse.name == relationship.name
        let isCanonical = isSelfInverse || (entity.name, relationship.name) < (destination.name, inverse.name)
        switch (relationship.isToMany, inverse.isToMany) {
        case (false, true):
            self = .foreignKey
        case (false, false):
            self = isCanonical ? .foreignKey : .derivedToOne
        case (true, false):
            self = .foreignKeyToMany(ordered: relationship.isOrdered)
        case (true, true):
            self = .joinTable(
                JoinTableSide(
                    isCanonical: isCanonical,
                    tableEntity: isCanonical ? entity.name : destination.name,
                    tableRelationship: isCanonical ? relationship.name : inverse.name,
                    isOrdered: relationship.isOrdered,
                    hasSourcePosition: isCanonical ? relationship.isOrdered : inverse.isOrdered,
                    hasTargetPosition: isSelfInverse
                        ? false : (isCanonical ? inverse.isOrdered : relationship.isOrdered)
                ))
        }
    }

    /// Whether the relationship holds many targets.
    package var isToMany: Bool {
        switch self {
        case .foreignKey, .derivedToOne: return false
        case .foreignKeyToMany, .joinTable: return true
        }
    }

    /// Whether the destination's table keeps a position column for this ordered to-one's inverse:
    /// `relationship` is a to-one kept in a column whose inverse is an ordered to-many.
    package static func keepsPosition(_ relationship: Relationship, model: Model) -> Bool {
        guard !relationship.isToMany,
            let inverse = model.entity(named: relationship.destination)?.relationship(named: relationship.inverse)
        else { return false }
        return inverse.isToMany && inverse.isOrdered
    }
}
