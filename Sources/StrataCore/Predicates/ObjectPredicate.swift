/// A condition on objects of one entity: the `WHERE` of a fetch.
///
/// The same tree comes from three places and means the same thing everywhere:
/// - text in the NSPredicate format language: `try ObjectPredicate(format: "department.name BEGINSWITH[cd] %@", "eng")`;
/// - the type-safe builder: `.key("height") > 1.8 && .key("name").beginsWith("l", .caseInsensitive)`;
/// - code that builds the cases directly.
///
/// Every store either translates the tree natively or leaves it to ``PredicateEvaluator``; the
/// conformance kit checks that both give the same answer. The exact semantics (nulls, numeric
/// promotion, string comparison, `[c]`/`[d]`, `ANY`/`ALL`/`NONE` over empty sets) are written down
/// in `docs/Predicates.md` and implemented once, in ``PredicateEvaluator``.
public indirect enum ObjectPredicate: Sendable, Hashable {
    /// `TRUEPREDICATE`: every object.
    case alwaysTrue
    /// `FALSEPREDICATE`: no object.
    case alwaysFalse
    /// `NOT p`.
    case not(ObjectPredicate)
    /// `p1 AND p2 AND ...` (an empty list is true).
    case and([ObjectPredicate])
    /// `p1 OR p2 OR ...` (an empty list is false).
    case or([ObjectPredicate])
    /// A comparison between two operands.
    case comparison(Comparison)

    /// One comparison: `[modifier] lhs op[options] rhs`.
    public struct Comparison: Sendable, Hashable {
        /// `ANY`, `ALL`, `NONE`, or none (a direct comparison).
        public var modifier: Modifier
        /// The left operand; for `ANY`/`ALL`/`NONE` a key path through a to-many relationship.
        public var lhs: Operand
        /// The operator.
        public var op: Operator
        /// The right operand.
        public var rhs: Operand
        /// `[c]`, `[d]`, `[cd]` on string operators.
        public var options: Options

        /// Creates a comparison.
        public init(_ lhs: Operand, _ op: Operator, _ rhs: Operand, modifier: Modifier = .direct, options: Options = [])
        {
            self.modifier = modifier
            self.lhs = lhs
            self.op = op
            self.rhs = rhs
            self.options = options
        }
    }

    /// How a comparison treats a left operand that yields several values (a to-many key path).
    public enum Modifier: String, Sendable, Hashable {
        /// A plain comparison. A to-many key path on the left is an error unless the operator
        /// is `CONTAINS` (membership) or the operand is `@count`.
        case direct = ""
        /// True when at least one value satisfies the comparison (false for no values).
        case any = "ANY"
        /// True when every value satisfies the comparison (true for no values).
        case all = "ALL"
        /// True when no value satisfies the comparison (true for no values).
        case none = "NONE"
    }

    /// The comparison operators of the format language.
    public enum Operator: String, Sendable, Hashable, CaseIterable {
        /// `==` (also `=`).
        case equal = "=="
        /// `!=` (also `<>`).
        case notEqual = "!="
        /// `<`.
        case less = "<"
        /// `<=` (also `=<`).
        case lessOrEqual = "<="
        /// `>`.
        case greater = ">"
        /// `>=` (also `=>`).
        case greaterOrEqual = ">="
        /// `BEGINSWITH`: string prefix.
        case beginsWith = "BEGINSWITH"
        /// `ENDSWITH`: string suffix.
        case endsWith = "ENDSWITH"
        /// `CONTAINS`: substring for strings; membership for a to-many key path or a list.
        case contains = "CONTAINS"
        /// `LIKE`: wildcard match of the whole string; `?` is one character, `*` any run.
        case like = "LIKE"
        /// `MATCHES`: ICU regular expression matching the whole string.
        case matches = "MATCHES"
        /// `IN`: membership of the left value in the right list, to-many key path, or string (substring).
        case `in` = "IN"
        /// `BETWEEN`: `lhs BETWEEN {low, high}`, inclusive at both ends.
        case between = "BETWEEN"
    }

    /// String comparison options.
    public struct Options: OptionSet, Sendable, Hashable {
        /// The raw bits.
        public let rawValue: UInt8
        /// Creates options from bits.
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// `[c]`: case-insensitive (Unicode case folding, so Cyrillic folds as Latin does).
        public static let caseInsensitive = Options(rawValue: 1)
        /// `[d]`: diacritic-insensitive (`é` matches `e`).
        public static let diacriticInsensitive = Options(rawValue: 2)
    }

    /// One side of a comparison.
    public indirect enum Operand: Sendable, Hashable {
        /// A key path from the evaluated object: attribute, relationship, or a chain through
        /// relationships (`department.company.name`).
        case keyPath(PropertyPath)
        /// `keyPath.@count`: the number of targets of a to-many relationship.
        case count(PropertyPath)
        /// A literal value (`nil` is ``Value/null``).
        case constant(Value)
        /// An object, by ID (compares with relationships and with ``evaluatedObject``).
        case objectID(ObjectID)
        /// An aggregate literal: `{1, 2, 3}` or an array argument.
        case list([Operand])
        /// `SELF`: the evaluated object itself.
        case evaluatedObject
    }
}

/// A dotted key path, split into its components: `department.company.name`.
public struct PropertyPath: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The components, from the evaluated object outward.
    public var components: [String]

    /// A path from its components.
    public init(_ components: [String]) { self.components = components }
    /// A path from dotted text (`"department.name"`).
    public init(_ dotted: String) {
        // Most paths name one property: they need no split (a lookup builds one per call).
        guard dotted.utf8.contains(UInt8(ascii: ".")) else {
            self.components = [dotted]
            return
        }
        self.components = dotted.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }
    /// A path from a string literal.
    public init(stringLiteral value: String) { self.init(value) }
    /// The dotted text.
    public var description: String { components.joined(separator: ".") }
}
