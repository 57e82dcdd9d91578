import StrataCore

/// What a `#Predicate` is apart from its constants, and its constants: the key of a translation
/// kept by ``PredicateTranslationCache`` and the values read out of each new predicate.
///
/// Two predicates of one shape translate to the same ``ObjectPredicate`` but for the constant
/// operands, which come, in order, from ``constants``. The expression tree's type fixes the
/// tree; ``parts`` add what varies between trees of one type: the key paths read, the
/// comparison operators, which variable each variable expression is.
struct PredicateShape {
    /// The hashable part: the expression tree's type and what varies within it.
    struct Key: Hashable {
        /// The type of the predicate's expression (its whole tree).
        let expressionType: ObjectIdentifier
        /// The key paths, operators and variable numbers, in the order the tree is walked.
        var parts: [Part] = []
    }

    /// One part of a shape.
    enum Part: Hashable {
        /// A key path step.
        case keyPath(AnyKeyPath)
        /// An operator or a variable's number.
        case code(Int)
    }

    /// The key of the translation.
    var key: Key
    /// The constants, as operands, in the order the tree is walked (left before right).
    var constants: [ObjectPredicate.Operand] = []
    /// Whether the constants may not stand in for another predicate's (a constant that changes
    /// the translation's form, such as the empty string `localizedStandardContains` never finds).
    var isVetoed = false
    /// The variables in the order they are bound (the predicate's input first).
    private var variables: [PredicateExpressions.VariableID]

    /// The shape of a predicate whose input is `root`, before its expression is walked.
    init<Root>(expressionType: Any.Type, root: PredicateExpressions.Variable<Root>) {
        key = Key(expressionType: ObjectIdentifier(expressionType))
        variables = [root.key]
    }

    /// Records that `variable` is bound from here on (by an optional chain).
    mutating func bind<T>(_ variable: PredicateExpressions.Variable<T>) {
        variables.append(variable.key)
        key.parts.append(.code(-variables.count))
    }

    /// Records a use of `variable`: its number, or a veto when it is not bound.
    mutating func use<T>(_ variable: PredicateExpressions.Variable<T>) {
        guard let number = variables.firstIndex(of: variable.key) else {
            isVetoed = true
            return
        }
        key.parts.append(.code(number))
    }
}

/// An expression of a `#Predicate` whose translation depends on its constants only through the
/// operands they become: a key path, a constant, or an optional chain of key paths.
///
/// Conformances are conditional on the children's, so a tree conforms exactly when every node
/// does; do not declare conformances outside StrataData.
protocol PredicateShapeOperand: PredicateExpression {
    /// Appends this expression's parts and constants to `shape`, children left to right.
    func appendShape(to shape: inout PredicateShape)
}

/// A condition of a `#Predicate` whose translation depends on its constants only through the
/// operands they become: comparisons of operands, substring and membership tests, and `&&`,
/// `||`, `!` of such conditions.
protocol PredicateShapeCondition: PredicateExpression<Bool> {
    /// Appends this expression's parts and constants to `shape`, children left to right.
    func appendShape(to shape: inout PredicateShape)
}

/// A type of constant whose operand is known without the translator: the operand
/// ``PredicateConstant`` makes of it.
protocol PredicateShapeConstant {
    /// The operand, or nil when the value has none (an integer beyond 64 bits).
    var shapeOperand: ObjectPredicate.Operand? { get }
}

extension String: PredicateShapeConstant {
    var shapeOperand: ObjectPredicate.Operand? { .constant(.string(self)) }
}

extension Bool: PredicateShapeConstant {
    var shapeOperand: ObjectPredicate.Operand? { .constant(.bool(self)) }
}

extension Double: PredicateShapeConstant {
    var shapeOperand: ObjectPredicate.Operand? { .constant(.double(self)) }
}

extension Float: PredicateShapeConstant {
    var shapeOperand: ObjectPredicate.Operand? { .constant(.float(self)) }
}

extension Decimal: PredicateShapeConstant {
    var shapeOperand: ObjectPredicate.Operand? { .constant(.decimal(self)) }
}

extension Date: PredicateShapeConstant {
    var shapeOperand: ObjectPredicate.Operand? { .constant(.date(self)) }
}

extension Data: PredicateShapeConstant {
    var shapeOperand: ObjectPredicate.Operand? { .constant(.binary(self)) }
}

extension UUID: PredicateShapeConstant {
    var shapeOperand: ObjectPredicate.Operand? { .constant(.uuid(self)) }
}

extension URL: PredicateShapeConstant {
    var shapeOperand: ObjectPredicate.Operand? { .constant(.uri(self)) }
}

/// An integer type: its value when it fits in a Strata integer.
protocol PredicateShapeInteger: PredicateShapeConstant, BinaryInteger {}

extension PredicateShapeInteger {
    var shapeOperand: ObjectPredicate.Operand? { Int64(exactly: self).map { .constant(.integer($0)) } }
}

extension Int: PredicateShapeInteger {}
extension Int8: PredicateShapeInteger {}
extension Int16: PredicateShapeInteger {}
extension Int32: PredicateShapeInteger {}
extension Int64: PredicateShapeInteger {}
extension UInt: PredicateShapeInteger {}
extension UInt8: PredicateShapeInteger {}
extension UInt16: PredicateShapeInteger {}
extension UInt32: PredicateShapeInteger {}
extension UInt64: PredicateShapeInteger {}

extension Optional: PredicateShapeConstant where Wrapped: PredicateShapeConstant {
    var shapeOperand: ObjectPredicate.Operand? {
        guard let wrapped = self else { return .constant(.null) }
        return wrapped.shapeOperand
    }
}

extension Array: PredicateShapeConstant where Element: PredicateShapeConstant {
    var shapeOperand: ObjectPredicate.Operand? {
        var operands: [ObjectPredicate.Operand] = []
        operands.reserveCapacity(count)
        for element in self {
            guard let operand = element.shapeOperand else { return nil }
            operands.append(operand)
        }
        return .list(operands)
    }
}

extension Set: PredicateShapeConstant where Element: PredicateShapeConstant {
    var shapeOperand: ObjectPredicate.Operand? { Array(self).shapeOperand }
}

extension PersistentIdentifier: PredicateShapeConstant {
    var shapeOperand: ObjectPredicate.Operand? { .objectID(objectID) }
}
