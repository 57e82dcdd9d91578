import Foundation
import StrataCore

/// How an attribute compares in SQL with the evaluator's rules (``ValueComparison``): integers
/// with integers exactly, every other pair of numbers as `Double` (`float8`); text by Unicode
/// scalars (`COLLATE "C"`: UTF-8 byte order); dates by their stored microseconds.
enum PostgresComparisonDomain: Equatable {
    case integer, number, text, boolean, date, binary, uuid

    init(_ type: AttributeType) {
        switch type {
        case .integer16, .integer32, .integer64: self = .integer
        case .double, .float, .decimal: self = .number
        case .string, .uri: self = .text
        case .boolean: self = .boolean
        case .date: self = .date
        case .binary: self = .binary
        case .uuid: self = .uuid
        }
    }

    /// Whether `<`, `<=`, `>`, `>=` and `BETWEEN` apply (not to binaries, UUIDs and URIs).
    func isOrdered(_ type: AttributeType) -> Bool {
        switch self {
        case .binary, .uuid: return false
        case .text: return type == .string
        default: return true
        }
    }

    /// A bound value and whether it is a `float8` the column must be compared as.
    struct Operand {
        let parameter: PostgresParameter
        let isFloat: Bool
    }

    /// The column's expression for comparing with an operand: as `float8` when the operand is.
    func columnExpression(_ expression: String, type: AttributeType, operandIsFloat: Bool) -> String {
        guard operandIsFloat else { return expression }
        switch type {
        case .double: return expression
        default: return "\(expression)::float8"
        }
    }

    /// The operand for comparing the column with `value` by `op`, or `nil` when no stored value
    /// satisfies `==` (NaN, a date between two microseconds) or no value satisfies `op` (NaN).
    ///
    /// A date is stored to the microsecond: the bound is the stored date on the right side of
    /// `value` for `op`, so `x < d` holds in SQL exactly when the stored date is before `d`.
    ///
    /// - Throws: ``PostgresQueryBuilder/Decline`` for a value of another kind, a text with a NUL
    ///   character, or a date that is not finite.
    func operand(_ value: Value, type: AttributeType, for op: ObjectPredicate.Operator) throws -> Operand? {
        func decline() -> PostgresQueryBuilder.Decline {
            PostgresQueryBuilder.Decline(reason: "comparing a \(type) attribute with a \(value.typeName)")
        }
        switch (self, value) {
        case (.integer, .integer(let v)):
            return Operand(parameter: .int64(v), isFloat: false)
        case (.integer, .double), (.integer, .float), (.integer, .decimal), (.number, .integer), (.number, .double),
            (.number, .float), (.number, .decimal):
            guard let number = ValueComparison.double(value), !number.isNaN else { return nil }
            return Operand(parameter: .double(number), isFloat: true)
        case (.text, .string(let text)) where type == .string:
            // Equal texts are equal as stored (``PostgresValueCoding/storedText(_:)`` escapes
            // U+0000 and a leading U+FFFE); other comparisons need the text as it is.
            if op == .equal { return Operand(parameter: .text(PostgresValueCoding.storedText(text)), isFloat: false) }
            guard !PostgresLikePattern.needsEscaping(text) else {
                throw PostgresQueryBuilder.Decline(reason: "a U+0000 or U+FFFE character in a text constant")
            }
            return Operand(parameter: .text(text), isFloat: false)
        case (.text, .uri(let url)) where type == .uri:
            return Operand(parameter: .text(url.absoluteString), isFloat: false)
        case (.boolean, .bool(let v)):
            return Operand(parameter: .bool(v), isFloat: false)
        case (.date, .date(let date)):
            guard let micros = try Self.storedMicroseconds(bounding: date, for: op) else { return nil }
            return Operand(parameter: .timestampMicroseconds(micros), isFloat: false)
        case (.binary, .binary(let data)):
            return Operand(parameter: .bytea(data), isFloat: false)
        case (.uuid, .uuid(let uuid)):
            return Operand(parameter: .uuid(uuid), isFloat: false)
        default:
            throw decline()
        }
    }

    /// The bound array for `column = ANY($n)` over `values` (none null), or `nil` when no stored
    /// value can equal any of them.
    func arrayOperand(_ values: [Value], type: AttributeType) throws -> Operand? {
        var operands: [Operand] = []
        for value in values {
            if let operand = try operand(value, type: type, for: .equal) { operands.append(operand) }
        }
        guard !operands.isEmpty else { return nil }
        if operands.contains(where: \.isFloat) {
            // Integer constants among doubles compare as doubles too, as the evaluator does.
            let numbers = values.compactMap(ValueComparison.double).filter { !$0.isNaN }
            return Operand(parameter: .doubleArray(numbers), isFloat: true)
        }
        let element = operands[0].parameter.type
        let arrayType: UInt32
        switch element {
        case PostgresType.int8: arrayType = PostgresType.int8Array
        case PostgresType.text: arrayType = PostgresType.textArray
        case PostgresType.bool: arrayType = 1000
        case PostgresType.bytea: arrayType = 1001
        case PostgresType.timestamptz: arrayType = 1185
        case PostgresType.uuid: arrayType = 2951
        default: throw PostgresQueryBuilder.Decline(reason: "IN over a \(type) attribute")
        }
        return Operand(
            parameter: .array(of: element, arrayType: arrayType, operands.map(\.parameter.bytes)), isFloat: false)
    }

    /// The microseconds `m` such that `stored op m` holds exactly when the stored date of
    /// `stored` microseconds compares with `date` by `op` (for `==`: the microseconds whose stored
    /// date equals `date`, or `nil` when none does). Dates are stored to the nearest microsecond
    /// (``PostgresValueCoding/microseconds(of:)``), so a constant between two microseconds
    /// bounds on the side `op` needs.
    ///
    /// - Throws: ``PostgresQueryBuilder/Decline`` for NaN or a date PostgreSQL cannot hold.
    static func storedMicroseconds(bounding date: Date, for op: ObjectPredicate.Operator) throws -> Int64? {
        guard let nearest = try? PostgresValueCoding.microseconds(of: date) else {
            throw PostgresQueryBuilder.Decline(reason: "a date PostgreSQL cannot hold")
        }
        guard nearest != Int64.max, nearest != Int64.min else { return op == .equal ? nearest : nearest }
        let stored = PostgresValueCoding.date(microseconds: nearest)
        switch op {
        case .equal: return stored == date ? nearest : nil
        case .less: return stored >= date ? nearest : nearest + 1
        case .lessOrEqual: return stored <= date ? nearest : nearest - 1
        case .greater: return stored <= date ? nearest : nearest - 1
        default: return stored >= date ? nearest : nearest + 1
        }
    }
}

/// A `BEGINSWITH`, `ENDSWITH`, `CONTAINS` or `LIKE` operand as a PostgreSQL `LIKE` pattern, its
/// `%`, `_` and `\` escaped with `\` (PostgreSQL's default escape).
struct PostgresLikePattern {
    let sql: String
    /// Whether every string matches (the empty prefix, suffix or substring).
    let matchesEverything: Bool

    /// `nil` for a text with U+0000 or U+FFFE, which the store keeps escaped.
    init?(_ op: ObjectPredicate.Operator, _ text: String) {
        guard !Self.needsEscaping(text) else { return nil }
        switch op {
        case .beginsWith:
            sql = Self.escaped(text) + "%"
        case .endsWith:
            sql = "%" + Self.escaped(text)
        case .contains:
            sql = "%" + Self.escaped(text) + "%"
        default:
            sql = Self.translatedLike(text)
        }
        matchesEverything = op != .like && text.isEmpty
    }

    /// Whether `text` holds U+0000 or U+FFFE, which stored text holds escaped
    /// (``PostgresValueCoding/storedText(_:)``): patterns and orderings decline those.
    static func needsEscaping(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0 == "\u{0}" || $0 == "\u{FFFE}" }
    }

    static func escaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar == "%" || scalar == "_" || scalar == "\\" { result.unicodeScalars.append("\\") }
            result.unicodeScalars.append(scalar)
        }
        return result
    }

    /// Strata's `LIKE` (`*` any run, `?` one scalar, `\` makes the next literal; a trailing `\`
    /// is itself) in PostgreSQL's syntax.
    static func translatedLike(_ pattern: String) -> String {
        var result = ""
        var escaping = false
        for scalar in pattern.unicodeScalars {
            if escaping {
                result += escaped(String(scalar))
                escaping = false
                continue
            }
            switch scalar {
            case "\\": escaping = true
            case "*": if !result.hasSuffix("%") || result.hasSuffix("\\%") { result += "%" }
            case "?": result += "_"
            default: result += escaped(String(scalar))
            }
        }
        if escaping { result += "\\\\" }
        return result
    }
}
