import StrataCore

// Prefix and substring tests on strings.

extension PredicateExpressions.SequenceStartsWith: StrataTranslatableExpression {
    /// `$0.name.starts(with: "B")` is `name BEGINSWITH "B"`.
    func strataTerm(in translator: PredicateTranslator) throws -> PredicateTerm {
        guard Base.Output.self is any StringProtocol.Type else {
            throw PredicateTranslator.untranslatable(self, "starts(with:) translates on strings only")
        }
        let base = try translator.term(self.base)
        guard case .path = base else {
            throw PredicateTranslator.untranslatable(self, "starts(with:) needs a stored string on the left")
        }
        return .predicate(
            .comparison(
                .init(
                    try translator.operand(base, of: self.base), .beginsWith,
                    try translator.operand(translator.term(prefix), of: prefix))))
    }
}

extension PredicateExpressions.CollectionContainsCollection: StrataTranslatableExpression {
    /// `$0.name.contains("erl")` is `name CONTAINS "erl"`; `"Berlin".contains($0.name)` is
    /// `name IN "Berlin"`.
    func strataTerm(in translator: PredicateTranslator) throws -> PredicateTerm {
        try translator.substring(base, other, options: [], in: self)
    }
}

extension PredicateExpressions.StringLocalizedStandardContains: StrataTranslatableExpression {
    /// `$0.name.localizedStandardContains("erl")` is `name CONTAINS[cd] "erl"`: case and
    /// diacritics are ignored, with Strata's locale-independent folding. As in Foundation, no
    /// string contains the empty string this way.
    func strataTerm(in translator: PredicateTranslator) throws -> PredicateTerm {
        if case .constant(let needle) = try translator.term(other), let needle = needle as? any StringProtocol,
            needle.isEmpty
        {
            return .predicate(.alwaysFalse)
        }
        return try translator.substring(root, other, options: [.caseInsensitive, .diacriticInsensitive], in: self)
    }
}

extension PredicateTranslator {
    /// Whether the string `base` contains the string `other`.
    fileprivate func substring<Base: PredicateExpression, Other: PredicateExpression>(
        _ base: Base, _ other: Other, options: ObjectPredicate.Options, in expression: some PredicateExpression
    ) throws -> PredicateTerm {
        guard Base.Output.self is any StringProtocol.Type else {
            throw Self.untranslatable(expression, "contains() of a collection translates on strings only")
        }
        let haystack = try term(base)
        let needle = try term(other)
        switch (haystack, needle) {
        case (.path, _):
            return .predicate(
                .comparison(
                    .init(try operand(haystack, of: base), .contains, try operand(needle, of: other), options: options)
                ))
        case (.constant, .path):
            return .predicate(
                .comparison(
                    .init(try operand(needle, of: other), .in, try operand(haystack, of: base), options: options)))
        default:
            throw Self.untranslatable(expression, "contains() needs a stored string on one side")
        }
    }
}
