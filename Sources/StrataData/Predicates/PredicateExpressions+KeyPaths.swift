import StrataCore

// Key paths, optional chaining, `??` and `!`.

extension PredicateExpressions.KeyPath: StrataTranslatableExpression {
    /// One step of a key path: a stored property (named by the model), the object's identifier,
    /// or `count`/`isEmpty` of a to-many relationship, `isEmpty` of a string.
    func strataTerm(in translator: PredicateTranslator) throws -> PredicateTerm {
        let base = try translator.term(root)
        guard case .path(let path) = base else {
            throw PredicateTranslator.untranslatable(
                self, "a key path must start at the predicate's input or a relationship, not at \(base.kindName)")
        }
        let step = keyPath as AnyKeyPath
        if translator.isIdentifier(step) { return .path(path) }
        if let name = translator.propertyName(step) { return .path(path + PropertyPath(name).components) }
        if let collection = Root.Output.self as? any CollectionProperty.Type,
            let term = collection.term(for: step, at: path)
        {
            return term
        }
        throw PredicateTranslator.untranslatable(
            self, "\(step) is not a stored property of a model (it is transient, computed, or not a model's)")
    }
}

/// The types whose `count` and `isEmpty` a predicate can test: to-many relationships (arrays of
/// model objects) and strings.
private protocol CollectionProperty {
    /// `count` or `isEmpty` of the collection at `path`, or nil when `step` is neither (or Strata
    /// has no counterpart).
    static func term(for step: AnyKeyPath, at path: [String]) -> PredicateTerm?
    /// Whether the type is a to-many relationship's.
    static var isToManyRelationship: Bool { get }
}

extension Array: CollectionProperty {
    /// Only arrays of objects are relationships; other arrays are attributes stored as JSON.
    fileprivate static var isToManyRelationship: Bool { Element.self is AnyObject.Type }

    fileprivate static func term(for step: AnyKeyPath, at path: [String]) -> PredicateTerm? {
        guard isToManyRelationship, !path.isEmpty else { return nil }
        if step == \Self.count as AnyKeyPath { return .count(path) }
        if step == \Self.isEmpty as AnyKeyPath {
            return .predicate(.comparison(.init(.count(PropertyPath(path)), .equal, .constant(.integer(0)))))
        }
        return nil
    }
}

extension String: CollectionProperty {
    fileprivate static var isToManyRelationship: Bool { false }

    fileprivate static func term(for step: AnyKeyPath, at path: [String]) -> PredicateTerm? {
        guard step == \String.isEmpty as AnyKeyPath, !path.isEmpty else { return nil }
        return .predicate(.comparison(.init(.keyPath(PropertyPath(path)), .equal, .constant(.string("")))))
    }
}

extension PredicateExpressions.OptionalFlatMap: StrataTranslatableExpression {
    /// Optional chaining (`$0.trip?.name`, which `#Predicate` writes as `flatMap`): the key path
    /// continues, and a nil relationship on the way reads as nil, as Strata's key paths do. An
    /// optional to-many relationship (`[Item]?`) is never nil in Strata, only empty.
    func strataTerm(in translator: PredicateTranslator) throws -> PredicateTerm {
        guard case .path(let path) = try translator.term(wrapped), !path.isEmpty else {
            throw PredicateTranslator.untranslatable(self, "only a stored optional can be unwrapped")
        }
        let isToMany = (Wrapped.self as? any CollectionProperty.Type)?.isToManyRelationship ?? false
        translator.bind(variable, to: path)
        switch try translator.term(transform) {
        case .path(let continued):
            return .path(continued)
        case .count(let counted) where isToMany:
            return .count(counted)
        case .predicate(let condition):
            return .optionalPredicate(guardPath: isToMany ? [] : path, condition)
        case .optionalPredicate(let guardPath, let condition) where guardPath.starts(with: path):
            return .optionalPredicate(guardPath: guardPath, condition)
        case let other:
            throw PredicateTranslator.untranslatable(
                self, "the optional's transform gives \(other.kindName), which has no Strata counterpart")
        }
    }
}

extension PredicateExpressions.NilCoalesce: StrataTranslatableExpression {
    func strataTerm(in translator: PredicateTranslator) throws -> PredicateTerm {
        let value = try translator.term(lhs)
        let fallback = try translator.term(rhs)
        switch value {
        case .constant(let constant):
            // `nil ?? $0.x` is `$0.x`; a non-nil constant is itself.
            if let optional = constant as? RHS.Output?, optional == nil { return fallback }
            return .constant(constant)
        case .count:
            // A to-many relationship's count is never nil.
            return value
        case .optionalPredicate(let guardPath, let condition):
            guard case .constant(let constant) = fallback, let bool = constant as? Bool else {
                throw PredicateTranslator.untranslatable(
                    self, "an optional condition can only fall back to true or false")
            }
            let isNil = PredicateTranslator.isNil(guardPath)
            return .predicate(
                .simplifiedOr([
                    .simplifiedAnd([.simplifiedNot(isNil), condition]),
                    .simplifiedAnd([isNil, bool ? .alwaysTrue : .alwaysFalse]),
                ]))
        default:
            return .coalesced(value, fallback: fallback)
        }
    }
}

extension PredicateExpressions.ForcedUnwrap: StrataTranslatableExpression {
    /// `$0.trip!.name`: the key path as is. Where `Predicate.evaluate` throws on nil, a store
    /// reads nil and compares it as any nil value.
    func strataTerm(in translator: PredicateTranslator) throws -> PredicateTerm {
        let term = try translator.term(inner)
        guard case .path = term else {
            throw PredicateTranslator.untranslatable(self, "only a stored optional can be force-unwrapped")
        }
        return term
    }
}
