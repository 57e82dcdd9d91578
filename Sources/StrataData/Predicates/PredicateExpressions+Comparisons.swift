import StrataCore

// ==, !=, <, <=, >, >= and membership in a constant range.

extension PredicateExpressions.Equal: StrataTranslatableExpression {
    func strataTerm(in translator: PredicateTranslator) throws -> PredicateTerm {
        .predicate(
            try translator.comparison(
                translator.term(lhs), .equal, translator.term(rhs),
                constantTest: { a, b in
                    guard let a = a as? LHS.Output, let b = b as? LHS.Output else { return nil }
                    return a == b
                }, in: self))
    }
}

extension PredicateExpressions.NotEqual: StrataTranslatableExpression {
    func strataTerm(in translator: PredicateTranslator) throws -> PredicateTerm {
        .predicate(
            try translator.comparison(
                translator.term(lhs), .notEqual, translator.term(rhs),
                constantTest: { a, b in
                    guard let a = a as? LHS.Output, let b = b as? LHS.Output else { return nil }
                    return a != b
                }, in: self))
    }
}

extension PredicateExpressions.Comparison: StrataTranslatableExpression {
    func strataTerm(in translator: PredicateTranslator) throws -> PredicateTerm {
        let op: ObjectPredicate.Operator
        switch self.op {
        case .lessThan: op = .less
        case .lessThanOrEqual: op = .lessOrEqual
        case .greaterThan: op = .greater
        case .greaterThanOrEqual: op = .greaterOrEqual
        }
        return .predicate(
            try translator.comparison(
                translator.term(lhs), op, translator.term(rhs),
                constantTest: { a, b in
                    guard let a = a as? LHS.Output, let b = b as? LHS.Output else { return nil }
                    switch op {
                    case .less: return a < b
                    case .lessOrEqual: return a <= b
                    case .greater: return a > b
                    default: return a >= b
                    }
                }, in: self))
    }
}

extension PredicateExpressions.RangeExpressionContains: StrataTranslatableExpression {
    /// `(low...high).contains($0.x)` is `x BETWEEN {low, high}`; `(low..<high)` is
    /// `x >= low AND x < high`.
    func strataTerm(in translator: PredicateTranslator) throws -> PredicateTerm {
        guard case .constant(let value) = try translator.term(range), let bounds = value as? any ConstantRange else {
            throw PredicateTranslator.untranslatable(self, "only a range of constants can contain a stored value")
        }
        let element = try translator.operand(translator.term(self.element), of: self.element)
        let low = try PredicateConstant.operand(for: bounds.lowerBoundValue, objectID: translator.objectID, in: self)
        let high = try PredicateConstant.operand(for: bounds.upperBoundValue, objectID: translator.objectID, in: self)
        if bounds.isClosed { return .predicate(.comparison(.init(element, .between, .list([low, high])))) }
        return .predicate(
            .and([.comparison(.init(element, .greaterOrEqual, low)), .comparison(.init(element, .less, high))]))
    }
}

/// A `ClosedRange` or `Range` seen through `Any`.
private protocol ConstantRange {
    var lowerBoundValue: Any { get }
    var upperBoundValue: Any { get }
    var isClosed: Bool { get }
}

extension ClosedRange: ConstantRange {
    fileprivate var lowerBoundValue: Any { lowerBound }
    fileprivate var upperBoundValue: Any { upperBound }
    fileprivate var isClosed: Bool { true }
}

extension Range: ConstantRange {
    fileprivate var lowerBoundValue: Any { lowerBound }
    fileprivate var upperBoundValue: Any { upperBound }
    fileprivate var isClosed: Bool { false }
}
