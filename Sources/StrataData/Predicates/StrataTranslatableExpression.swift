import StrataCore

/// A Foundation predicate expression that Strata can translate: the expression types of
/// `PredicateExpressions` conform in the `PredicateExpressions+*.swift` files.
///
/// Do not declare new conformances outside StrataData: a conformance is the translation's
/// promise that the expression means, on every store, what `Predicate.evaluate` computes.
protocol StrataTranslatableExpression: PredicateExpression {
    /// What this expression translates to; children are translated through
    /// ``PredicateTranslator/term(_:)``, which evaluates constant children first.
    func strataTerm(in translator: PredicateTranslator) throws -> PredicateTerm
}
