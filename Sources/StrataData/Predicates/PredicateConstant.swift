import StrataCore

/// Converts the Swift values a `#Predicate` captures into the operands of Strata's predicates.
///
/// | Swift value | operand |
/// |---|---|
/// | `String`, `Substring`, `Character` | `.string` |
/// | every integer type | `.integer` (a `UInt`/`UInt64` above `Int64.max` is an error) |
/// | `Double`, `Float`, `Decimal`, `Bool`, `Date`, `Data`, `UUID`, `URL` | their own case |
/// | `nil` of any optional | `.null`; a non-nil optional converts its value |
/// | a model instance (or identifier) | `.objectID`, through the model context's hook |
/// | `RawRepresentable` (enums) | its raw value |
/// | arrays and sets of the above | `.list` |
enum PredicateConstant {
    /// The operand for `value`, a constant of `expression`.
    ///
    /// - Throws: ``StrataError/Code/invalidPredicate`` naming the value and its type when Strata
    ///   has no counterpart.
    static func operand(
        for value: Any, objectID: (Any) throws -> ObjectID?, in expression: some PredicateExpression
    ) throws -> ObjectPredicate.Operand {
        if let optional = value as? any OptionalConstant {
            guard let wrapped = optional.wrappedConstant else { return .constant(.null) }
            return try operand(for: wrapped, objectID: objectID, in: expression)
        }
        if let scalar = try self.value(of: value, in: expression) { return .constant(scalar) }
        if let id = value as? ObjectID { return .objectID(id) }
        if let id = try objectID(value) { return .objectID(id) }
        if let raw = value as? any RawRepresentable {
            return try operand(for: rawValue(of: raw), objectID: objectID, in: expression)
        }
        if let sequence = value as? any Sequence {
            var operands: [ObjectPredicate.Operand] = []
            for element in elements(of: sequence) {
                operands.append(try operand(for: element, objectID: objectID, in: expression))
            }
            return .list(operands)
        }
        throw PredicateTranslator.untranslatable(
            expression, "the value \(value) of type \(type(of: value)) has no Strata counterpart")
    }

    /// The attribute value `value` is, or nil when it is not one of the attribute types.
    private static func value(of value: Any, in expression: some PredicateExpression) throws -> Value? {
        switch value {
        case let v as Value: return v
        case let v as String: return .string(v)
        case let v as Substring: return .string(String(v))
        case let v as Character: return .string(String(v))
        case let v as Bool: return .bool(v)
        case let v as Double: return .double(v)
        case let v as Float: return .float(v)
        case let v as Decimal: return .decimal(v)
        case let v as Date: return .date(v)
        case let v as Data: return .binary(v)
        case let v as UUID: return .uuid(v)
        case let v as URL: return .uri(v)
        case let v as any BinaryInteger:
            guard let integer = Int64(exactly: v) else {
                throw PredicateTranslator.untranslatable(
                    expression, "the integer \(v) does not fit in the 64 bits of a Strata integer")
            }
            return .integer(integer)
        default: return nil
        }
    }

    private static func rawValue(of value: some RawRepresentable) -> Any { value.rawValue }

    private static func elements(of sequence: some Sequence) -> [Any] { sequence.map { $0 as Any } }
}

/// An optional seen through `Any`: whether it holds a value, and which.
private protocol OptionalConstant {
    var wrappedConstant: Any? { get }
}

extension Optional: OptionalConstant {
    fileprivate var wrappedConstant: Any? { self.map { $0 as Any } }
}
