import StrataCore

/// Equality lookups through attribute indexes: a fetch whose predicate is (or is ANDed with)
/// `attribute == constant` or `attribute IN {constants}` on an indexed attribute reads the few
/// rows holding those values instead of every row; the whole predicate is still evaluated on them.
extension InMemoryStore {
    /// The attribute lookup a fetch can answer from an index: the attribute's position and the
    /// values it must equal (one of).
    struct IndexLookup {
        var attribute: Int
        var values: [Value]
    }

    /// The positions of the attributes of `entity` that have an index: the first attribute of
    /// each of the model's indexes and unique constraints, when its type's predicate equality is
    /// storage equality (integers, strings, Booleans, dates, UUIDs).
    static func indexedAttributes(of entity: Entity) -> Set<Int> {
        let names = entity.indexes.compactMap(\.properties.first) + entity.uniqueConstraints.compactMap(\.first)
        return Set(
            names.compactMap { name in
                guard let index = entity.attributeIndex(named: name) else { return nil }
                switch entity.attributeType(at: index) {
                case .integer16, .integer32, .integer64, .string, .boolean, .date, .uuid: return index
                default: return nil
                }
            })
    }

    /// The index lookup that finds every object `predicate` can match, or `nil` when none does.
    ///
    /// Only comparisons whose predicate equality is exactly storage equality qualify: a direct
    /// `==` or `IN` list without options, with constants of the attribute's own kind (or `nil`).
    /// An integer attribute compared with `1.0`, or a string with `[c]`, is answered by a scan.
    func indexLookup(for predicate: ObjectPredicate?, in entity: Entity, indexed: Set<Int>) -> IndexLookup? {
        switch predicate {
        case .comparison(let comparison)?:
            return indexLookup(for: comparison, in: entity, indexed: indexed)
        case .and(let parts)?:
            for part in parts {
                if let lookup = indexLookup(for: part, in: entity, indexed: indexed) { return lookup }
            }
            return nil
        default:
            return nil
        }
    }

    private func indexLookup(for comparison: ObjectPredicate.Comparison, in entity: Entity, indexed: Set<Int>)
        -> IndexLookup?
    {
        guard comparison.modifier == .direct, comparison.options.isEmpty else { return nil }
        var keyPath = comparison.lhs
        var other = comparison.rhs
        if comparison.op == .equal, case .constant = keyPath {
            swap(&keyPath, &other)
        }
        guard case .keyPath(let path) = keyPath, path.components.count == 1,
            let attribute = entity.attributeIndex(named: path.components[0]), indexed.contains(attribute)
        else { return nil }
        let type = entity.attributeType(at: attribute)
        let operands: [ObjectPredicate.Operand]
        switch (comparison.op, other) {
        case (.equal, .constant): operands = [other]
        case (.in, .list(let list)): operands = list
        default: return nil
        }
        var values: [Value] = []
        for operand in operands {
            guard case .constant(let value) = operand, Self.isStorageEquality(value, for: type) else { return nil }
            values.append(value)
        }
        return IndexLookup(attribute: attribute, values: values)
    }

    /// Whether predicate equality between `value` and a value of `type` is storage equality.
    private static func isStorageEquality(_ value: Value, for type: AttributeType) -> Bool {
        switch (value, type) {
        case (.null, _), (.integer, .integer16), (.integer, .integer32), (.integer, .integer64), (.string, .string),
            (.bool, .boolean), (.date, .date), (.uuid, .uuid):
            return true
        default:
            return false
        }
    }
}
