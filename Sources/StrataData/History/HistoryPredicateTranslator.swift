import Foundation
import StrataCore

/// Turns the predicate of a ``HistoryDescriptor`` into a ``HistoryFilter``: the transactions
/// after, up to or at a token (`$0.token > token`), saved by some authors (`$0.author == "app"`,
/// several joined with `||`), or committed before a date (`$0.timestamp < date`), any of them
/// joined with `&&`. Any other condition is an `invalidPredicate` ``StrataError`` naming it.
final class HistoryPredicateTranslator {
    /// What a subexpression stands for.
    enum Term {
        /// The transaction the predicate tests.
        case transaction
        /// One of the transaction's properties.
        case property(Property)
        /// A value that reads no variable.
        case constant(Any)
        /// A condition.
        case filter(HistoryFilter)
    }

    /// The transaction properties a history predicate can test.
    enum Property: String {
        case token, author, timestamp
    }

    private let root: PredicateExpressions.VariableID

    private init(root: PredicateExpressions.VariableID) {
        self.root = root
    }

    /// The filter `predicate` means.
    ///
    /// - Throws: `.invalidPredicate` naming the expression (`location["expression"]`)
    ///   and the whole predicate (`location["predicate"]`).
    static func filter<Transaction>(_ predicate: Predicate<Transaction>) throws -> HistoryFilter {
        let translator = HistoryPredicateTranslator(root: predicate.variable.key)
        do {
            return try translator.condition(predicate.expression)
        } catch var error as StrataError {
            let text = String(describing: predicate.expression)
            error.location["predicate"] = text.count > 300 ? String(text.prefix(300)) + "…" : text
            throw error
        }
    }

    /// `expression` as a condition.
    func condition(_ expression: some PredicateExpression) throws -> HistoryFilter {
        switch try term(expression) {
        case .filter(let filter):
            return filter
        case .constant(let value as Bool):
            var filter = HistoryFilter.everything
            filter.matchesNothing = !value
            return filter
        case .transaction, .property, .constant:
            throw Self.untranslatable(expression, "it is not a condition")
        }
    }

    /// What `expression` stands for.
    func term(_ expression: some PredicateExpression) throws -> Term {
        // Evaluating with no bindings fails at the first variable: whatever evaluates is a constant.
        if let value = try? (expression.evaluate(PredicateBindings()) as Any) { return .constant(value) }
        guard let translatable = expression as? any HistoryTranslatableExpression else {
            throw Self.untranslatable(expression, "a history predicate has no counterpart of this expression")
        }
        return try translatable.historyTerm(in: self)
    }

    /// Whether `variable` is the predicate's input.
    func isRoot(_ variable: PredicateExpressions.VariableID) -> Bool { variable == root }

    /// The property of ``DefaultHistoryTransaction`` `keyPath` reads, if a predicate can test it.
    static func property(_ keyPath: AnyKeyPath) -> Property? {
        switch keyPath {
        case \DefaultHistoryTransaction.token: .token
        case \DefaultHistoryTransaction.author: .author
        case \DefaultHistoryTransaction.timestamp: .timestamp
        default: nil
        }
    }

    /// The filter of `property` compared by `op` with `value` (property on the left).
    func comparison(
        _ property: Property, _ op: ComparisonOperator, _ value: Any, in expression: some PredicateExpression
    ) throws -> HistoryFilter {
        var filter = HistoryFilter.everything
        switch property {
        case .token:
            guard let token = (value as? DefaultHistoryToken)?.token else {
                throw Self.untranslatable(expression, "a token compares with a DefaultHistoryToken, not \(value)")
            }
            let previous = StrataCore.HistoryToken(storeIdentifier: token.storeIdentifier, sequence: token.sequence - 1)
            switch op {
            case .equal: (filter.after, filter.through) = (previous, token)
            case .greater: filter.after = token
            case .greaterOrEqual: filter.after = previous
            case .less: filter.through = previous
            case .lessOrEqual: filter.through = token
            }
        case .author:
            guard op == .equal else {
                throw Self.untranslatable(expression, "an author can only be tested for equality")
            }
            guard let author = value as? String ?? (value as? String?).flatMap({ $0 }) else {
                throw Self.untranslatable(
                    expression, "an author compares with a string; Strata's history cannot select saves without one")
            }
            filter.authors = [author]
        case .timestamp:
            guard let date = value as? Date ?? (value as? Date?).flatMap({ $0 }) else {
                throw Self.untranslatable(expression, "a timestamp compares with a Date, not \(value)")
            }
            switch op {
            case .less: filter.before = date
            case .lessOrEqual:
                filter.before = Date(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate.nextUp)
            case .equal, .greater, .greaterOrEqual:
                throw Self.untranslatable(
                    expression,
                    "a timestamp can only bound the history from above (<, <=); bound it from below with a token")
            }
        }
        return filter
    }

    /// A comparison's operator, with the property on its left.
    enum ComparisonOperator {
        case equal, less, lessOrEqual, greater, greaterOrEqual

        /// The operator with the operands swapped.
        var mirrored: ComparisonOperator {
            switch self {
            case .equal: .equal
            case .less: .greater
            case .lessOrEqual: .greaterOrEqual
            case .greater: .less
            case .greaterOrEqual: .lessOrEqual
            }
        }
    }

    /// The filter of `lhs op rhs`, one of them a property and the other a constant.
    func comparison(
        _ lhs: some PredicateExpression, _ op: ComparisonOperator, _ rhs: some PredicateExpression,
        in expression: some PredicateExpression
    ) throws -> Term {
        switch (try term(lhs), try term(rhs)) {
        case (.property(let property), .constant(let value)):
            return .filter(try comparison(property, op, value, in: expression))
        case (.constant(let value), .property(let property)):
            return .filter(try comparison(property, op.mirrored, value, in: expression))
        default:
            throw Self.untranslatable(expression, "a history predicate compares a transaction's property with a value")
        }
    }

    /// The error for an expression a history fetch cannot run: names the expression and says why.
    static func untranslatable(_ expression: some PredicateExpression, _ reason: String) -> StrataError {
        let text = String(describing: expression)
        let shortened = text.count > 300 ? String(text.prefix(300)) + "…" : text
        return StrataError(
            .invalidPredicate, "#Predicate cannot select history transactions: \(reason): \(shortened)",
            location: ["expression": shortened])
    }
}

/// A Foundation predicate expression a history predicate can hold. Do not declare new
/// conformances outside StrataData.
protocol HistoryTranslatableExpression: PredicateExpression {
    /// What the expression stands for.
    func historyTerm(in translator: HistoryPredicateTranslator) throws -> HistoryPredicateTranslator.Term
}

extension PredicateExpressions.Variable: HistoryTranslatableExpression {
    func historyTerm(in translator: HistoryPredicateTranslator) throws -> HistoryPredicateTranslator.Term {
        guard translator.isRoot(key) else {
            throw HistoryPredicateTranslator.untranslatable(self, "the variable is not the predicate's transaction")
        }
        return .transaction
    }
}

extension PredicateExpressions.KeyPath: HistoryTranslatableExpression {
    func historyTerm(in translator: HistoryPredicateTranslator) throws -> HistoryPredicateTranslator.Term {
        guard case .transaction = try translator.term(root), let property = HistoryPredicateTranslator.property(keyPath)
        else {
            throw HistoryPredicateTranslator.untranslatable(
                self, "a history predicate tests a transaction's token, author or timestamp")
        }
        return .property(property)
    }
}

extension PredicateExpressions.Equal: HistoryTranslatableExpression {
    func historyTerm(in translator: HistoryPredicateTranslator) throws -> HistoryPredicateTranslator.Term {
        try translator.comparison(lhs, .equal, rhs, in: self)
    }
}

extension PredicateExpressions.Comparison: HistoryTranslatableExpression {
    func historyTerm(in translator: HistoryPredicateTranslator) throws -> HistoryPredicateTranslator.Term {
        let op: HistoryPredicateTranslator.ComparisonOperator =
            switch self.op {
            case .lessThan: .less
            case .lessThanOrEqual: .lessOrEqual
            case .greaterThan: .greater
            case .greaterThanOrEqual: .greaterOrEqual
            }
        return try translator.comparison(lhs, op, rhs, in: self)
    }
}

extension PredicateExpressions.Conjunction: HistoryTranslatableExpression {
    func historyTerm(in translator: HistoryPredicateTranslator) throws -> HistoryPredicateTranslator.Term {
        .filter(try translator.condition(lhs).intersected(with: translator.condition(rhs), in: self))
    }
}

extension PredicateExpressions.Disjunction: HistoryTranslatableExpression {
    func historyTerm(in translator: HistoryPredicateTranslator) throws -> HistoryPredicateTranslator.Term {
        .filter(try translator.condition(lhs).united(with: translator.condition(rhs), in: self))
    }
}
