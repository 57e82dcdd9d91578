import StrataCore

extension ObjectPredicate {
    /// The operands that are values (constants, object IDs, lists of them), depth first, left
    /// before right: the places ``replacingConstantOperands(with:)`` fills.
    var constantOperands: [Operand] {
        var operands: [Operand] = []
        forEachComparison { comparison in
            if comparison.lhs.isValue { operands.append(comparison.lhs) }
            if comparison.rhs.isValue { operands.append(comparison.rhs) }
        }
        return operands
    }

    /// This predicate with its value operands replaced, in ``constantOperands``' order, by
    /// `operands` (as many as it has).
    func replacingConstantOperands(with operands: [Operand]) -> ObjectPredicate {
        var next = 0
        let replaced = replacingConstantOperands(with: operands, next: &next)
        assert(next == operands.count, "a translation template takes \(next) constants, not \(operands.count)")
        return replaced
    }

    private func replacingConstantOperands(with operands: [Operand], next: inout Int) -> ObjectPredicate {
        switch self {
        case .alwaysTrue, .alwaysFalse:
            return self
        case .not(let inner):
            return .not(inner.replacingConstantOperands(with: operands, next: &next))
        case .and(let parts):
            return .and(parts.map { $0.replacingConstantOperands(with: operands, next: &next) })
        case .or(let parts):
            return .or(parts.map { $0.replacingConstantOperands(with: operands, next: &next) })
        case .comparison(var comparison):
            if comparison.lhs.isValue {
                comparison.lhs = operands[next]
                next += 1
            }
            if comparison.rhs.isValue {
                comparison.rhs = operands[next]
                next += 1
            }
            return .comparison(comparison)
        }
    }

    private func forEachComparison(_ body: (Comparison) -> Void) {
        switch self {
        case .alwaysTrue, .alwaysFalse: return
        case .not(let inner): inner.forEachComparison(body)
        case .and(let parts), .or(let parts): for part in parts { part.forEachComparison(body) }
        case .comparison(let comparison): body(comparison)
        }
    }
}

extension ObjectPredicate.Operand {
    /// Whether the operand is a value (not a key path, count or the evaluated object).
    fileprivate var isValue: Bool {
        switch self {
        case .constant, .objectID, .list: return true
        case .keyPath, .count, .evaluatedObject: return false
        }
    }
}
