import Foundation

/// How values compare in predicates and sorts: the rules every store must reproduce.
///
/// - Numbers compare numerically across integer, float, double and decimal: two integers
///   exactly, anything else as `Double`. NaN is unequal to everything in predicates (IEEE) and
///   sorts before every other number.
/// - Strings compare by Unicode scalar values, after ``StringFolding/fold(_:_:)`` when options are
///   given.
/// - Dates chronologically; Booleans `false < true`; UUIDs by bytes; binaries by bytes (a prefix
///   first); URIs by their text.
/// - ``Value/null`` equals only ``Value/null``; in sorts it comes before everything.
public enum ValueComparison {
    /// Predicate equality (`==`), with `[c]`/`[d]` options for strings.
    public static func equal(_ a: Value, _ b: Value, options: ObjectPredicate.Options = []) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (.string(let x), .string(let y)):
            return options.isEmpty
                ? x.unicodeScalars.elementsEqual(y.unicodeScalars)
                : StringFolding.fold(x, options).unicodeScalars.elementsEqual(
                    StringFolding.fold(y, options).unicodeScalars)
        default:
            if let order = numericOrder(a, b) { return order == 0 }
            if isNumber(a) || isNumber(b) { return false }
            return a == b
        }
    }

    /// Predicate ordering: -1, 0 or 1, or `nil` when the two values cannot be ordered (a null
    /// side, NaN, different kinds, or kinds without predicate ordering: binary, UUID, URI).
    public static func order(_ a: Value, _ b: Value, options: ObjectPredicate.Options = []) -> Int? {
        switch (a, b) {
        case (.string(let x), .string(let y)):
            return options.isEmpty
                ? StringFolding.compareScalars(x, y)
                : StringFolding.compareScalars(StringFolding.fold(x, options), StringFolding.fold(y, options))
        case (.date(let x), .date(let y)):
            return x < y ? -1 : (x > y ? 1 : 0)
        case (.bool(let x), .bool(let y)):
            return x == y ? 0 : (x ? 1 : -1)
        default:
            return numericOrder(a, b)
        }
    }

    /// The total order of sorts: null first, then by kind, then by value (see the type's notes).
    /// Returns -1, 0 or 1.
    public static func sortOrder(_ a: Value, _ b: Value, options: ObjectPredicate.Options = []) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        case (.uuid(let x), .uuid(let y)):
            return compareBytes(withUnsafeBytes(of: x.uuid) { Array($0) }, withUnsafeBytes(of: y.uuid) { Array($0) })
        case (.binary(let x), .binary(let y)):
            return compareBytes(Array(x), Array(y))
        case (.uri(let x), .uri(let y)):
            return StringFolding.compareScalars(x.absoluteString, y.absoluteString)
        default:
            if isNumber(a) && isNumber(b) {
                let x = double(a)!
                let y = double(b)!
                if x.isNaN || y.isNaN { return x.isNaN ? (y.isNaN ? 0 : -1) : 1 }
            }
            if let order = order(a, b, options: options) { return order }
            let ra = kindRank(a)
            let rb = kindRank(b)
            return ra < rb ? -1 : (ra > rb ? 1 : 0)
        }
    }

    /// Whether `value` is a number of any kind.
    public static func isNumber(_ value: Value) -> Bool {
        switch value {
        case .integer, .double, .float, .decimal: return true
        default: return false
        }
    }

    /// A numeric value as `Double` (`nil` for non-numbers).
    public static func double(_ value: Value) -> Double? {
        switch value {
        case .integer(let v): return Double(v)
        case .double(let v): return v
        case .float(let v): return Double(v)
        case .decimal(let v): return NSDecimalNumber(decimal: v).doubleValue
        default: return nil
        }
    }

    private static func numericOrder(_ a: Value, _ b: Value) -> Int? {
        if case .integer(let x) = a, case .integer(let y) = b { return x < y ? -1 : (x > y ? 1 : 0) }
        guard let x = double(a), let y = double(b), !x.isNaN, !y.isNaN else { return nil }
        return x < y ? -1 : (x > y ? 1 : 0)
    }

    private static func compareBytes(_ x: [UInt8], _ y: [UInt8]) -> Int {
        for (p, q) in zip(x, y) where p != q { return p < q ? -1 : 1 }
        return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
    }

    private static func kindRank(_ value: Value) -> Int {
        switch value {
        case .null: return 0
        case .bool: return 1
        case .integer, .double, .float, .decimal: return 2
        case .string: return 3
        case .date: return 4
        case .binary: return 5
        case .uuid: return 6
        case .uri: return 7
        }
    }
}
