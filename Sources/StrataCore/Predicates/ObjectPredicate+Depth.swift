extension ObjectPredicate {
    /// The deepest nesting a predicate may have: `NOT`, `AND`, `OR`, comparisons and lists, each
    /// one level (`name == "x"` is two levels deep, `NOT (a == 1 OR b IN {1, 2})` four).
    ///
    /// Twice what the format parser accepts (it stops at 128 nested levels), so every parsed
    /// predicate fits; a deeper one built in code is refused with
    /// ``StrataError/Code/invalidPredicate`` before anything evaluates it, so that no predicate
    /// can exhaust the stack. Long `AND` and `OR` lists are one level, however many terms.
    public static let maximumDepth = 256

    /// How deeply the predicate nests (see ``maximumDepth``), counted without recursion; counting
    /// stops at `limit + 1`.
    ///
    /// Complexity: O(n) in the number of nodes visited.
    package func depth(upTo limit: Int = ObjectPredicate.maximumDepth) -> Int {
        enum Node {
            case predicate(ObjectPredicate)
            case operand(Operand)
        }
        var pending: [(Node, Int)] = [(.predicate(self), 1)]
        var deepest = 0
        while let (node, level) = pending.popLast() {
            deepest = max(deepest, level)
            if deepest > limit { return deepest }
            switch node {
            case .predicate(.alwaysTrue), .predicate(.alwaysFalse):
                continue
            case .predicate(.not(let inner)):
                pending.append((.predicate(inner), level + 1))
            case .predicate(.and(let parts)), .predicate(.or(let parts)):
                for part in parts { pending.append((.predicate(part), level + 1)) }
            case .predicate(.comparison(let comparison)):
                pending.append((.operand(comparison.lhs), level + 1))
                pending.append((.operand(comparison.rhs), level + 1))
            case .operand(.list(let elements)):
                for element in elements { pending.append((.operand(element), level + 1)) }
            case .operand:
                continue
            }
        }
        return deepest
    }

    /// Throws when the predicate nests deeper than ``maximumDepth``.
    ///
    /// - Throws: ``StrataError/Code/invalidPredicate`` naming the limit.
    package func checkDepth() throws {
        let depth = depth(upTo: Self.maximumDepth)
        guard depth <= Self.maximumDepth else {
            throw StrataError(
                .invalidPredicate,
                "the predicate nests more than \(Self.maximumDepth) levels deep (NOT, AND, OR, comparisons and lists); Strata evaluates at most \(Self.maximumDepth)",
                location: ["limit": String(Self.maximumDepth)])
        }
    }
}
