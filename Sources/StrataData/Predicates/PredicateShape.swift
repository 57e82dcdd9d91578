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

    /// The key of the translation (empty parts when the shape is matched against a known key,
    /// see ``init(expressionType:root:matching:)``).
    var key: Key
    /// The constants, as operands, in the order the tree is walked (left before right).
    var constants: [ObjectPredicate.Operand] = []
    /// Whether the constants may not stand in for another predicate's (a constant that changes
    /// the translation's form, such as the empty string `localizedStandardContains` never finds).
    var isVetoed = false
    /// The predicate's input, variable number 0.
    private let root: PredicateExpressions.VariableID
    /// The variables bound by optional chains, in the order they are bound (numbers 1 and up).
    private var bound: [PredicateExpressions.VariableID] = []
    /// The parts expected, when the walk compares the parts with a known key instead of
    /// recording them.
    private let expected: [Part]?
    /// How many of the expected parts the walk has met, or nil after a part that differs.
    private var matchedParts: Int? = 0

    /// The shape of a predicate whose input is the variable `root`, before its expression is
    /// walked.
    init(expressionType: Any.Type, root: PredicateExpressions.VariableID) {
        key = Key(expressionType: ObjectIdentifier(expressionType))
        self.root = root
        expected = nil
    }

    /// A walk that compares the parts of a predicate whose input is the variable `root` with
    /// `key`'s, in order, and reads only the constants: ``matchesExpectedKey`` says whether the
    /// shape's key is `key`, and ``key`` is left without parts.
    init(root: PredicateExpressions.VariableID, matching key: Key) {
        self.key = Key(expressionType: key.expressionType)
        self.root = root
        expected = key.parts
    }

    /// Whether the walk met exactly the parts of the key it was to match.
    var matchesExpectedKey: Bool { expected != nil && matchedParts == expected?.count }

    /// Records one part of the key (or compares it with the part expected next).
    mutating func record(_ part: Part) {
        guard let expected else {
            key.parts.append(part)
            return
        }
        if let matched = matchedParts, matched < expected.count, expected[matched] == part {
            matchedParts = matched + 1
        } else {
            matchedParts = nil
        }
    }

    /// Records that `variable` is bound from here on (by an optional chain).
    mutating func bind<T>(_ variable: PredicateExpressions.Variable<T>) {
        bound.append(variable.key)
        record(.code(-(bound.count + 1)))
    }

    /// Records a use of `variable`: its number, or a veto when it is not bound.
    mutating func use<T>(_ variable: PredicateExpressions.Variable<T>) {
        if variable.key == root {
            record(.code(0))
        } else if let index = bound.firstIndex(of: variable.key) {
            record(.code(index + 1))
        } else {
            isVetoed = true
        }
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

extension PredicateShapeCondition {
    /// The shape of a predicate whose expression is `expression` and whose input is `root`, or
    /// nil when the expression is not of this type or its shape is vetoed.
    static func shape(
        of expression: any StandardPredicateExpression<Bool>, root: PredicateExpressions.VariableID
    ) -> PredicateShape? {
        var shape = PredicateShape(expressionType: Self.self, root: root)
        guard walk(expression, into: &shape), !shape.isVetoed else { return nil }
        return shape
    }

    /// The constants of a predicate whose expression is `expression` and whose input is
    /// `root`, when its shape's key is `key`; nil otherwise.
    static func constants(
        of expression: any StandardPredicateExpression<Bool>, root: PredicateExpressions.VariableID,
        ifItsKeyIs key: PredicateShape.Key
    ) -> [ObjectPredicate.Operand]? {
        var shape = PredicateShape(root: root, matching: key)
        guard walk(expression, into: &shape), !shape.isVetoed, shape.matchesExpectedKey else { return nil }
        return shape.constants
    }

    /// Walks `expression` into `shape` when it is of this type, and says whether it was.
    ///
    /// Called on the expression's type found once (`type(of: expression) as? any
    /// PredicateShapeCondition.Type`), it compares the types' identities instead of asking the
    /// runtime to cast: the cast (with the metadata of `Self?` it needs) cost about as much
    /// again as the walk of `$0.key == key`.
    private static func walk(
        _ expression: any StandardPredicateExpression<Bool>, into shape: inout PredicateShape
    ) -> Bool {
        func open<Expression: StandardPredicateExpression<Bool>>(_ expression: Expression) -> Bool {
            guard Expression.self == Self.self else { return false }
            withUnsafePointer(to: expression) { pointer in
                // The types are the same, so the pointee is a `Self`.
                UnsafeRawPointer(pointer).assumingMemoryBound(to: Self.self).pointee.appendShape(to: &shape)
            }
            return true
        }
        return open(expression)
    }
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
