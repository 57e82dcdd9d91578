import StrataCore

// Variables, constants and the Boolean connectives.

extension PredicateExpressions.Variable: StrataTranslatableExpression {
    func strataTerm(in translator: PredicateTranslator) throws -> PredicateTerm {
        .path(try translator.path(of: self))
    }
}

extension PredicateExpressions.Value: StrataTranslatableExpression {
    func strataTerm(in translator: PredicateTranslator) throws -> PredicateTerm { .constant(value) }
}

extension PredicateExpressions.NilLiteral: StrataTranslatableExpression {
    func strataTerm(in translator: PredicateTranslator) throws -> PredicateTerm {
        .constant(Wrapped?.none as Any)
    }
}

extension PredicateExpressions.Conjunction: StrataTranslatableExpression {
    func strataTerm(in translator: PredicateTranslator) throws -> PredicateTerm {
        let a = try translator.condition(translator.term(lhs), of: lhs)
        let b = try translator.condition(translator.term(rhs), of: rhs)
        return .predicate(.simplifiedAnd([a, b]))
    }
}

extension PredicateExpressions.Disjunction: StrataTranslatableExpression {
    func strataTerm(in translator: PredicateTranslator) throws -> PredicateTerm {
        let a = try translator.condition(translator.term(lhs), of: lhs)
        let b = try translator.condition(translator.term(rhs), of: rhs)
        return .predicate(.simplifiedOr([a, b]))
    }
}

extension PredicateExpressions.Negation: StrataTranslatableExpression {
    func strataTerm(in translator: PredicateTranslator) throws -> PredicateTerm {
        .predicate(.simplifiedNot(try translator.condition(translator.term(wrapped), of: wrapped)))
    }
}

extension PredicateExpressions.Conditional: StrataTranslatableExpression {
    /// `test ? a : b` on conditions: `(test AND a) OR (NOT test AND b)`.
    func strataTerm(in translator: PredicateTranslator) throws -> PredicateTerm {
        guard If.Output.self == Bool.self else {
            throw PredicateTranslator.untranslatable(self, "only a condition can choose between two conditions")
        }
        let test = try translator.condition(translator.term(self.test), of: self.test)
        let a = try translator.condition(translator.term(trueBranch), of: trueBranch)
        let b = try translator.condition(translator.term(falseBranch), of: falseBranch)
        return .predicate(.simplifiedOr([.simplifiedAnd([test, a]), .simplifiedAnd([.simplifiedNot(test), b])]))
    }
}
