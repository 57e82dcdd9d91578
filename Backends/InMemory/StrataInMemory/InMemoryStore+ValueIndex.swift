import StrataCore

/// Equality lookups through attribute indexes: a fetch whose predicate is (or is ANDed with)
/// `attribute == constant` or `attribute IN {constants}` on an indexed attribute reads the few
/// rows holding those values instead of every row; the whole predicate is still evaluated on them.
extension InMemoryStore {
    /// The attribute lookup a fetch can answer from an index: the attribute's position and the
    /// values it must equal (one of).
    typealias IndexLookup = EqualityLookup

    /// The positions of the attributes of `entity` that have an index (see
    /// ``EqualityLookup/indexedAttributes(of:)``).
    static func indexedAttributes(of entity: Entity) -> Set<Int> {
        EqualityLookup.indexedAttributes(of: entity)
    }

    /// The index lookup that finds every object `predicate` can match, or `nil` when none does
    /// (see ``EqualityLookup``).
    func indexLookup(for predicate: ObjectPredicate?, in entity: Entity, indexed: Set<Int>) -> IndexLookup? {
        EqualityLookup(predicate, in: entity, indexed: indexed)
    }
}
