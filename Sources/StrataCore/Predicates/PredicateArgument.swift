import Foundation

/// A Swift value that can stand in a predicate: an argument of
/// ``ObjectPredicate/init(format:_:)`` (`%@`, `%d`, `%f`, `%K`) or the right-hand side of a
/// builder comparison (`.key("height") > 1.8`).
///
/// Scalars become ``ObjectPredicate/Operand/constant(_:)`` (a `String` gives a
/// ``Value/string(_:)``, an `Int` a ``Value/integer(_:)``, `nil` gives ``Value/null``), an
/// ``ObjectID`` becomes ``ObjectPredicate/Operand/objectID(_:)``, and arrays and sets become
/// ``ObjectPredicate/Operand/list(_:)``:
///
/// ```swift
/// try ObjectPredicate(format: "name IN %@ AND manager == %@", ["ada", "grace"], bossID)
/// ```
public protocol PredicateArgument: Sendable {
    /// This value as a predicate operand.
    var predicateOperand: ObjectPredicate.Operand { get }
}

extension PredicateArgument where Self: ValueConvertible {
    /// The constant ``ValueConvertible/strataValue``.
    public var predicateOperand: ObjectPredicate.Operand { .constant(strataValue) }
}

extension Int: PredicateArgument {}
extension Int16: PredicateArgument {}
extension Int32: PredicateArgument {}
extension Int64: PredicateArgument {}
extension Double: PredicateArgument {}
extension Float: PredicateArgument {}
extension Decimal: PredicateArgument {}
extension String: PredicateArgument {}
extension Bool: PredicateArgument {}
extension Date: PredicateArgument {}
extension Data: PredicateArgument {}
extension UUID: PredicateArgument {}
extension URL: PredicateArgument {}
extension Value: PredicateArgument {}

extension ObjectID: PredicateArgument {
    /// ``ObjectPredicate/Operand/objectID(_:)``: compares with relationships and `SELF`.
    public var predicateOperand: ObjectPredicate.Operand { .objectID(self) }
}

extension PropertyPath: PredicateArgument {
    /// ``ObjectPredicate/Operand/keyPath(_:)``: the path itself, not a string constant.
    public var predicateOperand: ObjectPredicate.Operand { .keyPath(self) }
}

extension ObjectPredicate.Operand: PredicateArgument {
    /// The operand itself.
    public var predicateOperand: ObjectPredicate.Operand { self }
}

extension Optional: PredicateArgument where Wrapped: PredicateArgument {
    /// The wrapped value's operand, or the constant ``Value/null`` for `nil`.
    public var predicateOperand: ObjectPredicate.Operand { self?.predicateOperand ?? .constant(.null) }
}

extension Array: PredicateArgument where Element: PredicateArgument {
    /// A ``ObjectPredicate/Operand/list(_:)`` of the elements' operands, in order. O(n).
    public var predicateOperand: ObjectPredicate.Operand { .list(map(\.predicateOperand)) }
}

extension Set: PredicateArgument where Element: PredicateArgument {
    /// A ``ObjectPredicate/Operand/list(_:)`` of the elements' operands, sorted by their
    /// format text so that the same set always gives the same predicate. O(n log n).
    public var predicateOperand: ObjectPredicate.Operand {
        .list(map(\.predicateOperand).map { ($0.description, $0) }.sorted { $0.0 < $1.0 }.map(\.1))
    }
}
