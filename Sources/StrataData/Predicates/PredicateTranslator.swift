import StrataCore

/// Walks the expression tree of one `#Predicate` and builds the ``ObjectPredicate`` that means
/// the same on every Strata store.
///
/// Every subexpression that reads no variable is evaluated once, here, and becomes a constant
/// (captured values, literals, arithmetic on them, `Date` computations), so the tree that reaches
/// a store holds only comparisons of stored properties with values. The rest is translated by
/// the expression types' ``StrataTranslatableExpression`` conformances; an expression with no
/// conformance, or one whose operands have no Strata counterpart, is an `invalidPredicate`
/// ``StrataError`` naming it.
final class PredicateTranslator {
    /// The stored property name of one key path step (nil: not a stored property).
    let propertyName: (AnyKeyPath) -> String?
    /// Whether one key path step reads the object's identifier (`\.persistentModelID`).
    let isIdentifier: (AnyKeyPath) -> Bool
    /// The object ID of a model instance or identifier used as a constant (nil: neither).
    let objectID: (Any) throws -> ObjectID?
    /// What each variable of the predicate stands for: a key path from the evaluated object.
    private var bindings: [PredicateExpressions.VariableID: [String]] = [:]
    /// How many sequence elements (`contains(where:)`, `allSatisfy`) have been given a marker.
    private var elementCount = 0

    init(
        propertyName: @escaping (AnyKeyPath) -> String?, isIdentifier: @escaping (AnyKeyPath) -> Bool,
        objectID: @escaping (Any) throws -> ObjectID?
    ) {
        self.propertyName = propertyName
        self.isIdentifier = isIdentifier
        self.objectID = objectID
    }

    /// The predicate `expression` means when `root` is the evaluated object.
    func translate<Root>(_ expression: some PredicateExpression<Bool>, root: PredicateExpressions.Variable<Root>)
        throws -> ObjectPredicate
    {
        bind(root, to: [])
        return try condition(term(expression), of: expression)
    }

    // MARK: Variables

    /// Makes `variable` stand for `path`.
    func bind<T>(_ variable: PredicateExpressions.Variable<T>, to path: [String]) {
        bindings[variable.key] = path
    }

    /// The key path `variable` stands for.
    func path<T>(of variable: PredicateExpressions.Variable<T>) throws -> [String] {
        guard let path = bindings[variable.key] else {
            throw Self.untranslatable(variable, "the variable is not bound by the predicate")
        }
        return path
    }

    /// A fresh key path component standing for the element of a sequence while its condition is
    /// translated; ``PredicateQuantifier`` replaces it with the sequence's key path. It cannot
    /// clash with a property name (they are identifiers).
    func elementMarker() -> String {
        elementCount += 1
        return "#element\(elementCount)"
    }

    // MARK: Terms

    /// What `expression` translates to.
    func term(_ expression: some PredicateExpression) throws -> PredicateTerm {
        if let value = Self.constantValue(of: expression) { return .constant(value) }
        guard let translatable = expression as? any StrataTranslatableExpression else {
            throw Self.untranslatable(expression, "Strata's predicates have no counterpart of this expression")
        }
        return try translatable.strataTerm(in: self)
    }

    /// The value of `expression` when it reads no variable; nil otherwise.
    ///
    /// Evaluating with no bindings throws `PredicateError.undefinedVariable` at the first
    /// variable, so whatever evaluates is a constant, computed as `Predicate.evaluate` would.
    private static func constantValue(of expression: some PredicateExpression) -> Any? {
        do {
            return try expression.evaluate(PredicateBindings()) as Any
        } catch {
            return nil
        }
    }

    /// `term` as a condition: a `Bool` key path compares with `true`, a `Bool` constant is
    /// `TRUEPREDICATE` or `FALSEPREDICATE`.
    func condition(_ term: PredicateTerm, of expression: some PredicateExpression) throws -> ObjectPredicate {
        switch term {
        case .predicate(let predicate):
            return predicate
        case .constant(let value):
            guard let bool = value as? Bool else {
                throw Self.untranslatable(expression, "the constant \(value) is not a Boolean")
            }
            return bool ? .alwaysTrue : .alwaysFalse
        case .path(let path):
            return .comparison(.init(try operand(.path(path), of: expression), .equal, .constant(.bool(true))))
        case .coalesced:
            // `$0.isArchived ?? false`
            return try comparison(
                term, .equal, .constant(true),
                constantTest: { a, b in (a as? Bool).flatMap { a in (b as? Bool).map { a == $0 } } }, in: expression)
        case .count, .optionalPredicate:
            throw Self.untranslatable(expression, "\(term.kindName) is not a condition")
        }
    }

    /// `term` as an operand of a comparison.
    func operand(_ term: PredicateTerm, of expression: some PredicateExpression) throws -> ObjectPredicate.Operand {
        switch term {
        case .path(let path):
            return path.isEmpty ? .evaluatedObject : .keyPath(PropertyPath(path))
        case .count(let path):
            return .count(PropertyPath(path))
        case .constant(let value):
            return try PredicateConstant.operand(for: value, objectID: objectID, in: expression)
        case .predicate, .coalesced, .optionalPredicate:
            throw Self.untranslatable(expression, "\(term.kindName) cannot be compared here")
        }
    }

    // MARK: Errors

    /// The error for an expression Strata cannot run: names the expression and says why.
    static func untranslatable(_ expression: some PredicateExpression, _ reason: String) -> StrataError {
        let text = String(describing: expression)
        let shortened = text.count > 300 ? String(text.prefix(300)) + "…" : text
        return StrataError(
            .invalidPredicate, "#Predicate cannot be translated to a Strata predicate: \(reason): \(shortened)",
            location: ["expression": shortened, "expressionType": Self.typeName(of: expression)])
    }

    /// `PredicateExpressions.Arithmetic` for `PredicateExpressions.Arithmetic<...>`.
    private static func typeName(of expression: some PredicateExpression) -> String {
        let full = String(describing: type(of: expression))
        return String(full.prefix { $0 != "<" })
    }
}
