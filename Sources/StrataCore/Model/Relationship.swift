/// A link from an entity to another (or the same) entity.
public struct Relationship: Sendable, Hashable {
    /// What happens to the targets when the source object is deleted.
    public enum DeleteRule: String, Sendable, Hashable, CaseIterable {
        /// Remove the deleted object from each target's inverse (the default).
        case nullify
        /// Delete the targets too (transitively).
        case cascade
        /// Refuse the delete while there are targets.
        case deny
        /// Do nothing; the inverse may point at a deleted object until the caller fixes it.
        case noAction
    }

    /// The relationship's name: a letter followed by letters, digits or underscores.
    public var name: String
    /// The target entity's name.
    public var destination: String
    /// The name of the inverse relationship on the destination. Strata requires inverses, as
    /// Core Data strongly recommends: they keep the graph consistent in both directions.
    public var inverse: String
    /// Whether this side holds many targets.
    public var isToMany: Bool
    /// Whether a to-many keeps the order the user gives it.
    public var isOrdered: Bool
    /// Whether a to-one may be empty (to-many relationships use ``minimumCount``).
    public var isOptional: Bool
    /// What a delete of the source does to the targets.
    public var deleteRule: DeleteRule
    /// The fewest targets a to-many must have at save (0: no minimum).
    public var minimumCount: Int
    /// The most targets a to-many may have at save (0: no maximum).
    public var maximumCount: Int
    /// The name this relationship had in an earlier model version. Not part of the version hash.
    public var renamingIdentifier: String?

    /// Creates a relationship.
    public init(
        _ name: String,
        to destination: String,
        inverse: String,
        toMany: Bool = false,
        ordered: Bool = false,
        isOptional: Bool = true,
        deleteRule: DeleteRule = .nullify,
        minimumCount: Int = 0,
        maximumCount: Int = 0,
        renamingIdentifier: String? = nil
    ) {
        self.name = name
        self.destination = destination
        self.inverse = inverse
        self.isToMany = toMany
        self.isOrdered = ordered
        self.isOptional = isOptional
        self.deleteRule = deleteRule
        self.minimumCount = minimumCount
        self.maximumCount = maximumCount
        self.renamingIdentifier = renamingIdentifier
    }
}
