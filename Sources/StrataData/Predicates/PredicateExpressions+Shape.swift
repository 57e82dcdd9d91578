import StrataCore

// The expressions whose translation a `PredicateTranslationCache` keeps per shape.

extension PredicateExpressions.Variable: PredicateShapeOperand {
    func appendShape(to shape: inout PredicateShape) { shape.use(self) }
}

extension PredicateExpressions.KeyPath: PredicateShapeOperand where Root: PredicateShapeOperand {
    func appendShape(to shape: inout PredicateShape) {
        root.appendShape(to: &shape)
        shape.record(.keyPath(keyPath))
    }
}

extension PredicateExpressions.Value: PredicateShapeOperand where Output: PredicateShapeConstant {
    func appendShape(to shape: inout PredicateShape) {
        guard let operand = value.shapeOperand else {
            shape.isVetoed = true
            return
        }
        shape.constants.append(operand)
    }
}

extension PredicateExpressions.NilLiteral: PredicateShapeOperand {
    func appendShape(to shape: inout PredicateShape) { shape.constants.append(.constant(.null)) }
}

extension PredicateExpressions.OptionalFlatMap: PredicateShapeOperand
where LHS: PredicateShapeOperand, RHS: PredicateShapeOperand {
    func appendShape(to shape: inout PredicateShape) {
        wrapped.appendShape(to: &shape)
        shape.bind(variable)
        transform.appendShape(to: &shape)
    }
}

extension PredicateExpressions.Equal: PredicateShapeCondition
where LHS: PredicateShapeOperand, RHS: PredicateShapeOperand {
    func appendShape(to shape: inout PredicateShape) {
        lhs.appendShape(to: &shape)
        rhs.appendShape(to: &shape)
    }
}

extension PredicateExpressions.NotEqual: PredicateShapeCondition
where LHS: PredicateShapeOperand, RHS: PredicateShapeOperand {
    func appendShape(to shape: inout PredicateShape) {
        lhs.appendShape(to: &shape)
        rhs.appendShape(to: &shape)
    }
}

extension PredicateExpressions.Comparison: PredicateShapeCondition
where LHS: PredicateShapeOperand, RHS: PredicateShapeOperand {
    func appendShape(to shape: inout PredicateShape) {
        let code: Int
        switch op {
        case .lessThan: code = 1
        case .lessThanOrEqual: code = 2
        case .greaterThan: code = 3
        case .greaterThanOrEqual: code = 4
        }
        shape.record(.code(code))
        lhs.appendShape(to: &shape)
        rhs.appendShape(to: &shape)
    }
}

extension PredicateExpressions.Conjunction: PredicateShapeCondition
where LHS: PredicateShapeCondition, RHS: PredicateShapeCondition {
    func appendShape(to shape: inout PredicateShape) {
        lhs.appendShape(to: &shape)
        rhs.appendShape(to: &shape)
    }
}

extension PredicateExpressions.Disjunction: PredicateShapeCondition
where LHS: PredicateShapeCondition, RHS: PredicateShapeCondition {
    func appendShape(to shape: inout PredicateShape) {
        lhs.appendShape(to: &shape)
        rhs.appendShape(to: &shape)
    }
}

extension PredicateExpressions.Negation: PredicateShapeCondition where Wrapped: PredicateShapeCondition {
    func appendShape(to shape: inout PredicateShape) { wrapped.appendShape(to: &shape) }
}

extension PredicateExpressions.SequenceContains: PredicateShapeCondition
where LHS: PredicateShapeOperand, RHS: PredicateShapeOperand {
    func appendShape(to shape: inout PredicateShape) {
        sequence.appendShape(to: &shape)
        element.appendShape(to: &shape)
    }
}

extension PredicateExpressions.SequenceStartsWith: PredicateShapeCondition
where Base: PredicateShapeOperand, Prefix: PredicateShapeOperand {
    func appendShape(to shape: inout PredicateShape) {
        base.appendShape(to: &shape)
        prefix.appendShape(to: &shape)
    }
}

extension PredicateExpressions.CollectionContainsCollection: PredicateShapeCondition
where Base: PredicateShapeOperand, Other: PredicateShapeOperand {
    func appendShape(to shape: inout PredicateShape) {
        base.appendShape(to: &shape)
        other.appendShape(to: &shape)
    }
}

extension PredicateExpressions.StringLocalizedStandardContains: PredicateShapeCondition
where Root: PredicateShapeOperand, Other: PredicateShapeOperand {
    /// A constant empty needle vetoes the shape: no string contains it this way, so the
    /// translation is `FALSEPREDICATE`, not a substring test.
    func appendShape(to shape: inout PredicateShape) {
        root.appendShape(to: &shape)
        let before = shape.constants.count
        other.appendShape(to: &shape)
        if shape.constants.count > before, shape.constants.last == .constant(.string("")) { shape.isVetoed = true }
    }
}
