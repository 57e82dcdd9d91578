/// The values an attribute must equal for a predicate to match: what an equality index (a hash
/// of objects by an attribute's value) can answer. A predicate that is, or is ANDed with,
/// `attribute == constant` or `attribute IN {constants}` on an indexed attribute matches only
/// objects holding one of those values; the whole predicate must still be evaluated on them.
package struct EqualityLookup: Sendable, Hashable {
    /// The attribute's position in its entity.
    package var attribute: Int
    /// The values the attribute must equal (one of).
    package var values: [Value]

    /// A lookup of `values` in the attribute at `attribute`.
    package init(attribute: Int, values: [Value]) {
        self.attribute = attribute
        self.values = values
    }

    /// The positions of the attributes of `entity` that have an index: the first attribute of
    /// each of the model's indexes and unique constraints, when its type's predicate equality is
    /// storage equality (integers, strings, Booleans, dates, UUIDs).
    package static func indexedAttributes(of entity: Entity) -> Set<Int> {
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

    /// The lookup that finds every object of `entity` that `predicate` can match through one of
    /// the `indexed` attributes, or `nil` when there is none.
    ///
    /// Only comparisons whose predicate equality is exactly storage equality qualify: a direct
    /// `==` or `IN` list without options, with constants of the attribute's own kind (or `nil`).
    /// An integer attribute compared with `1.0`, or a string with `[c]`, has no lookup.
    package init?(_ predicate: ObjectPredicate?, in entity: Entity, indexed: Set<Int>) {
        switch predicate {
        case .comparison(let comparison)?:
            guard let lookup = Self(comparison, in: entity, indexed: indexed) else { return nil }
            self = lookup
        case .and(let parts)?:
            for part in parts {
                if let lookup = Self(part, in: entity, indexed: indexed) {
                    self = lookup
                    return
                }
            }
            return nil
        default:
            return nil
        }
    }

    private init?(_ comparison: ObjectPredicate.Comparison, in entity: Entity, indexed: Set<Int>) {
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
        self.init(attribute: attribute, values: values)
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
