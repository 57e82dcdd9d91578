import StrataCore

/// Turns a condition on one element of a to-many relationship (`contains(where:)`,
/// `allSatisfy`) into `ANY` and `ALL` comparisons over the relationship.
///
/// The element's condition is translated first with its key paths starting at a marker
/// component; each comparison on the element then becomes a comparison of the relationship's
/// key path with the modifier. That is exact for one comparison, and the quantifiers distribute
/// over the rest as far as logic allows: `ANY (a OR b)` is `ANY a OR ANY b`, `ANY (NOT a)` is
/// `NOT ALL a`, `ALL (a AND b)` is `ALL a AND ALL b`, and a part that does not read the element
/// moves out (`ANY (a AND q)` is `q AND ANY a`). `ANY (a AND b)` with both parts on the element
/// needs a subquery, which Strata's predicates do not have: it is an error naming the expression.
struct PredicateQuantifier<Expression: PredicateExpression> {
    /// The component standing for the element.
    let marker: String
    /// The to-many key path the element belongs to.
    let sequence: [String]
    /// The expression being translated, for errors.
    let expression: Expression

    /// `condition` (on the element) holding for at least one element (`.any`) or for every
    /// element (`.all`).
    func quantified(_ condition: ObjectPredicate, _ modifier: ObjectPredicate.Modifier) throws -> ObjectPredicate {
        guard reads(condition) else {
            // Does not depend on the element: true for some element when true and there is one,
            // true for every element when true or there is none.
            return modifier == .any
                ? .simplifiedAnd([condition, isEmpty(false)]) : .simplifiedOr([condition, isEmpty(true)])
        }
        switch condition {
        case .alwaysTrue, .alwaysFalse:
            return condition
        case .not(let inner):
            return .simplifiedNot(try quantified(inner, modifier == .any ? .all : .any))
        case .or(let parts):
            if modifier == .any { return .simplifiedOr(try parts.map { try quantified($0, .any) }) }
            return try distributed(parts, modifier, combine: ObjectPredicate.simplifiedOr)
        case .and(let parts):
            if modifier == .all { return .simplifiedAnd(try parts.map { try quantified($0, .all) }) }
            return try distributed(parts, modifier, combine: ObjectPredicate.simplifiedAnd)
        case .comparison(let comparison):
            return .comparison(try quantified(comparison, modifier))
        }
    }

    /// `ANY (a AND q)` or `ALL (a OR q)`: allowed when only one part reads the element.
    private func distributed(
        _ parts: [ObjectPredicate], _ modifier: ObjectPredicate.Modifier,
        combine: ([ObjectPredicate]) -> ObjectPredicate
    ) throws -> ObjectPredicate {
        let onElement = parts.filter(reads)
        guard onElement.count == 1 else {
            throw PredicateTranslator.untranslatable(
                expression,
                "a condition on more than one property of a to-many relationship's element "
                    + "(\(modifier == .any ? "AND inside contains(where:)" : "OR inside allSatisfy")) needs a "
                    + "subquery, which Strata's predicates do not have; split it or filter the results")
        }
        return combine(try parts.map { reads($0) ? try quantified($0, modifier) : $0 })
    }

    private func quantified(_ c: ObjectPredicate.Comparison, _ modifier: ObjectPredicate.Modifier) throws
        -> ObjectPredicate.Comparison
    {
        var c = c
        if reads(c.rhs) && !reads(c.lhs) && c.op.hasMirror {
            swap(&c.lhs, &c.rhs)
            c.op = c.op.mirrored
        }
        guard c.modifier == .direct, !reads(c.rhs), case .keyPath(let path) = c.lhs else {
            throw PredicateTranslator.untranslatable(
                expression,
                "this comparison on a to-many relationship's element has no ANY/ALL form in Strata's predicates")
        }
        c.lhs = .keyPath(PropertyPath(sequence + path.components.dropFirst()))
        c.modifier = modifier
        return c
    }

    /// `sequence.@count == 0` (`empty`) or `> 0`.
    private func isEmpty(_ empty: Bool) -> ObjectPredicate {
        .comparison(.init(.count(PropertyPath(sequence)), empty ? .equal : .greater, .constant(.integer(0))))
    }

    /// Whether `condition` reads the element.
    private func reads(_ condition: ObjectPredicate) -> Bool {
        switch condition {
        case .alwaysTrue, .alwaysFalse: return false
        case .not(let inner): return reads(inner)
        case .and(let parts), .or(let parts): return parts.contains(where: reads)
        case .comparison(let c): return reads(c.lhs) || reads(c.rhs)
        }
    }

    private func reads(_ operand: ObjectPredicate.Operand) -> Bool {
        switch operand {
        case .keyPath(let path), .count(let path): return path.components.first == marker
        case .list(let operands): return operands.contains(where: reads)
        case .constant, .objectID, .evaluatedObject: return false
        }
    }
}
