import StrataCore

extension PredicateTranslator {
    /// `lhs op rhs` as a condition.
    ///
    /// - Two constants compare here, with Swift's own operator (`constantTest`).
    /// - A constant on the left of a key path moves to the right (`3 < $0.days` is `days > 3`).
    /// - `value ?? fallback` on either side splits into the case where `value` is nil and the
    ///   case where it is not.
    /// - Conditions compare as Booleans (`$0.isDone == false`, `($0.a > 1) == ($0.b > 1)`).
    func comparison(
        _ lhs: PredicateTerm, _ op: ObjectPredicate.Operator, _ rhs: PredicateTerm,
        options: ObjectPredicate.Options = [], constantTest: (Any, Any) -> Bool?,
        in expression: some PredicateExpression
    ) throws -> ObjectPredicate {
        switch (lhs, rhs) {
        case (.coalesced(let value, let fallback), _):
            return try coalescedComparison(
                value, fallback: fallback, op, rhs, options: options, constantTest: constantTest, in: expression)
        case (_, .coalesced):
            return try comparison(rhs, op.mirrored, lhs, options: options, constantTest: constantTest, in: expression)
        case (.constant(let a), .constant(let b)):
            guard let result = constantTest(a, b) else {
                throw Self.untranslatable(expression, "the constants \(a) and \(b) cannot be compared")
            }
            return result ? .alwaysTrue : .alwaysFalse
        case (.predicate, _), (.optionalPredicate, _), (_, .predicate), (_, .optionalPredicate):
            return try booleanComparison(lhs, op, rhs, in: expression)
        case (.constant, .path), (.constant, .count):
            guard op.hasMirror else {
                throw Self.untranslatable(expression, "a constant cannot be on the left of '\(op.rawValue)'")
            }
            return try comparison(rhs, op.mirrored, lhs, options: options, constantTest: constantTest, in: expression)
        case (.path, _), (.count, _):
            return .comparison(
                .init(try operand(lhs, of: expression), op, try operand(rhs, of: expression), options: options))
        }
    }

    /// `(value ?? fallback) op other`: `(value != nil AND value op other) OR (value == nil AND
    /// fallback op other)`, with the constant parts evaluated.
    private func coalescedComparison(
        _ value: PredicateTerm, fallback: PredicateTerm, _ op: ObjectPredicate.Operator, _ other: PredicateTerm,
        options: ObjectPredicate.Options, constantTest: (Any, Any) -> Bool?, in expression: some PredicateExpression
    ) throws -> ObjectPredicate {
        let isNil: ObjectPredicate
        switch value {
        case .path(let path) where !path.isEmpty:
            isNil = .comparison(.init(.keyPath(PropertyPath(path)), .equal, .constant(.null)))
        case .coalesced(let inner, let innerFallback):
            // `(a ?? b) ?? c` is `a ?? (b ?? c)`.
            return try coalescedComparison(
                inner, fallback: .coalesced(innerFallback, fallback: fallback), op, other, options: options,
                constantTest: constantTest, in: expression)
        default:
            throw Self.untranslatable(expression, "the left side of '??' must be a key path, not \(value.kindName)")
        }
        let whenSet = try comparison(value, op, other, options: options, constantTest: constantTest, in: expression)
        let whenNil = try comparison(fallback, op, other, options: options, constantTest: constantTest, in: expression)
        return .simplifiedOr([.simplifiedAnd([.simplifiedNot(isNil), whenSet]), .simplifiedAnd([isNil, whenNil])])
    }

    /// `lhs == rhs` or `lhs != rhs` where at least one side is a condition.
    private func booleanComparison(
        _ lhs: PredicateTerm, _ op: ObjectPredicate.Operator, _ rhs: PredicateTerm,
        in expression: some PredicateExpression
    ) throws -> ObjectPredicate {
        guard op == .equal || op == .notEqual else {
            throw Self.untranslatable(expression, "conditions compare only with == and !=")
        }
        if case .optionalPredicate(let guardPath, let inner) = lhs {
            return try optionalComparison(guardPath, inner, op, rhs, in: expression)
        }
        if case .optionalPredicate = rhs { return try booleanComparison(rhs, op, lhs, in: expression) }
        let a = try condition(lhs, of: expression)
        let b = try condition(rhs, of: expression)
        let equal = PredicateTranslator.equivalence(a, b)
        return op == .equal ? equal : .simplifiedNot(equal)
    }

    /// `optional op rhs` where `optional` is nil when `guardPath` is nil and `inner` otherwise.
    private func optionalComparison(
        _ guardPath: [String], _ inner: ObjectPredicate, _ op: ObjectPredicate.Operator, _ rhs: PredicateTerm,
        in expression: some PredicateExpression
    ) throws -> ObjectPredicate {
        let isNil = Self.isNil(guardPath)
        guard case .constant(let value) = rhs else {
            throw Self.untranslatable(expression, "an optional condition compares only with true, false or nil")
        }
        let equal: ObjectPredicate
        switch value {
        case let bool as Bool:
            equal = .simplifiedAnd([.simplifiedNot(isNil), bool ? inner : .simplifiedNot(inner)])
        case let optional as Bool?:
            guard let bool = optional else {
                equal = isNil
                break
            }
            equal = .simplifiedAnd([.simplifiedNot(isNil), bool ? inner : .simplifiedNot(inner)])
        default:
            throw Self.untranslatable(expression, "an optional condition compares only with true, false or nil")
        }
        return op == .equal ? equal : .simplifiedNot(equal)
    }

    /// Whether an optional condition is nil: its guard path is nil (never, without a guard path).
    static func isNil(_ guardPath: [String]) -> ObjectPredicate {
        guard !guardPath.isEmpty else { return .alwaysFalse }
        return .comparison(.init(.keyPath(PropertyPath(guardPath)), .equal, .constant(.null)))
    }

    /// `a == b` for conditions: both true or both false.
    static func equivalence(_ a: ObjectPredicate, _ b: ObjectPredicate) -> ObjectPredicate {
        switch (a, b) {
        case (.alwaysTrue, _): return b
        case (_, .alwaysTrue): return a
        case (.alwaysFalse, _): return .simplifiedNot(b)
        case (_, .alwaysFalse): return .simplifiedNot(a)
        default: return .or([.and([a, b]), .and([.not(a), .not(b)])])
        }
    }
}

extension ObjectPredicate.Operator {
    /// Whether `a op b` can be written `b op' a`.
    var hasMirror: Bool {
        switch self {
        case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual: return true
        default: return false
        }
    }

    /// The operator `op'` with `a op b` equal to `b op' a` (itself for the others).
    var mirrored: ObjectPredicate.Operator {
        switch self {
        case .less: return .greater
        case .lessOrEqual: return .greaterOrEqual
        case .greater: return .less
        case .greaterOrEqual: return .lessOrEqual
        default: return self
        }
    }
}

extension ObjectPredicate {
    /// `AND` of `parts`, with `TRUEPREDICATE` parts dropped, nested `AND`s flattened, and
    /// `FALSEPREDICATE` when a part is.
    static func simplifiedAnd(_ parts: [ObjectPredicate]) -> ObjectPredicate {
        var kept: [ObjectPredicate] = []
        for part in parts {
            switch part {
            case .alwaysTrue: continue
            case .alwaysFalse: return .alwaysFalse
            case .and(let inner): kept += inner
            default: kept.append(part)
            }
        }
        if kept.isEmpty { return .alwaysTrue }
        return kept.count == 1 ? kept[0] : .and(kept)
    }

    /// `OR` of `parts`, with `FALSEPREDICATE` parts dropped, nested `OR`s flattened, and
    /// `TRUEPREDICATE` when a part is.
    static func simplifiedOr(_ parts: [ObjectPredicate]) -> ObjectPredicate {
        var kept: [ObjectPredicate] = []
        for part in parts {
            switch part {
            case .alwaysFalse: continue
            case .alwaysTrue: return .alwaysTrue
            case .or(let inner): kept += inner
            default: kept.append(part)
            }
        }
        if kept.isEmpty { return .alwaysFalse }
        return kept.count == 1 ? kept[0] : .or(kept)
    }

    /// `NOT p`, with constants folded and double negation removed.
    static func simplifiedNot(_ p: ObjectPredicate) -> ObjectPredicate {
        switch p {
        case .alwaysTrue: return .alwaysFalse
        case .alwaysFalse: return .alwaysTrue
        case .not(let inner): return inner
        default: return .not(p)
        }
    }
}
