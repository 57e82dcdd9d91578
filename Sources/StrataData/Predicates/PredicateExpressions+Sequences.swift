import StrataCore

// Membership in a constant array, in a to-many relationship, and conditions on its elements.

extension PredicateExpressions.SequenceContains: StrataTranslatableExpression {
    /// `ids.contains($0.code)` is `code IN {...}`; `$0.items.contains(item)` is
    /// `items CONTAINS item`; `$0.name.contains(character)` is a substring test.
    func strataTerm(in translator: PredicateTranslator) throws -> PredicateTerm {
        let sequence = try translator.term(self.sequence)
        let element = try translator.term(self.element)
        switch (sequence, element) {
        case (.constant, .path), (.constant, .count):
            return .predicate(
                .comparison(
                    .init(
                        try translator.operand(element, of: self.element), .in,
                        try translator.operand(sequence, of: self.sequence))))
        case (.path(let path), .constant) where !path.isEmpty:
            return .predicate(
                .comparison(
                    .init(
                        .keyPath(PropertyPath(path)), .contains, try translator.operand(element, of: self.element))))
        case (.path(let path), .path) where !path.isEmpty:
            return .predicate(
                .comparison(.init(try translator.operand(element, of: self.element), .in, .keyPath(PropertyPath(path))))
            )
        default:
            throw PredicateTranslator.untranslatable(
                self, "contains() needs a constant sequence or a stored to-many relationship or string")
        }
    }
}

extension PredicateExpressions.SequenceContainsWhere: StrataTranslatableExpression {
    /// `$0.items.contains { $0.price > 10 }` is `ANY items.price > 10`.
    func strataTerm(in translator: PredicateTranslator) throws -> PredicateTerm {
        .predicate(try translator.quantified(sequence, variable, test, .any, in: self))
    }
}

extension PredicateExpressions.SequenceAllSatisfy: StrataTranslatableExpression {
    /// `$0.items.allSatisfy { $0.isPacked }` is `ALL items.isPacked == true`.
    func strataTerm(in translator: PredicateTranslator) throws -> PredicateTerm {
        .predicate(try translator.quantified(sequence, variable, test, .all, in: self))
    }
}

extension PredicateTranslator {
    /// `test` holding for some (`.any`) or every (`.all`) element of `sequence`, a to-many key
    /// path; `variable` is the element in `test`.
    fileprivate func quantified<Element>(
        _ sequence: some PredicateExpression, _ variable: PredicateExpressions.Variable<Element>,
        _ test: some PredicateExpression, _ modifier: ObjectPredicate.Modifier,
        in expression: some PredicateExpression
    ) throws -> ObjectPredicate {
        guard case .path(let path) = try term(sequence), !path.isEmpty else {
            throw Self.untranslatable(
                expression, "only a stored to-many relationship can be searched with a condition on its elements")
        }
        let marker = elementMarker()
        bind(variable, to: [marker])
        let condition = try condition(term(test), of: test)
        return try PredicateQuantifier(marker: marker, sequence: path, expression: expression)
            .quantified(condition, modifier)
    }
}
