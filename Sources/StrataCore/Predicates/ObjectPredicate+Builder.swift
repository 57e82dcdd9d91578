import Foundation

extension ObjectPredicate {
    /// The left side of a comparison in the type-safe builder: a key path (or its `@count`)
    /// with an optional `ANY`/`ALL`/`NONE` modifier.
    ///
    /// Start one with ``ObjectPredicate/key(_:)``, ``ObjectPredicate/any(_:)``,
    /// ``ObjectPredicate/all(_:)`` or ``ObjectPredicate/none(_:)`` and finish it with an operator
    /// or a method. Every form builds exactly the tree the format parser builds for the same text:
    ///
    /// ```swift
    /// let p: ObjectPredicate = .key("height") > 1.8 && .key("name").beginsWith("l", .caseInsensitive)
    /// // == try ObjectPredicate(format: "height > 1.8 AND name BEGINSWITH[c] 'l'")
    /// ```
    ///
    /// The comparison operators are declared for `Key` on the left only, so they never make an
    /// ordinary Swift comparison ambiguous.
    public struct Key: Sendable {
        /// The operand: ``Operand/keyPath(_:)``, ``Operand/count(_:)`` or ``Operand/evaluatedObject``.
        public var operand: Operand
        /// The modifier the comparison gets when this key is on its left.
        public var modifier: Modifier

        /// A key for `operand` with `modifier`.
        public init(_ operand: Operand, modifier: Modifier = .direct) {
            self.operand = operand
            self.modifier = modifier
        }

        /// The key path `path` (`"department.name"`); a final `@count` component
        /// (`"employees.@count"`) counts, as in the format language.
        public static func key(_ path: PropertyPath) -> Key { Key(operand(path)) }
        /// `ANY path`: some value of a to-many key path satisfies the comparison.
        public static func any(_ path: PropertyPath) -> Key { Key(operand(path), modifier: .any) }
        /// `ALL path`: every value of a to-many key path satisfies the comparison.
        public static func all(_ path: PropertyPath) -> Key { Key(operand(path), modifier: .all) }
        /// `NONE path`: no value of a to-many key path satisfies the comparison.
        public static func none(_ path: PropertyPath) -> Key { Key(operand(path), modifier: .none) }

        private static func operand(_ path: PropertyPath) -> Operand {
            guard path.components.count > 1, path.components.last?.lowercased() == "@count" else {
                return .keyPath(path)
            }
            return .count(PropertyPath(Array(path.components.dropLast())))
        }
        /// `SELF`: the evaluated object (compare it with an ``ObjectID`` or test `IN` a list of them).
        public static var evaluatedObject: Key { Key(.evaluatedObject) }

        /// `path.@count`: the number of targets of this to-many key path. A key that is not a
        /// plain key path (already counted, or `SELF`) is returned unchanged.
        public var count: Key {
            guard case .keyPath(let path) = operand else { return self }
            return Key(.count(path), modifier: modifier)
        }

        private func compare(_ op: Operator, _ rhs: Operand, _ options: Options = []) -> ObjectPredicate {
            .comparison(Comparison(operand, op, rhs, modifier: modifier, options: options))
        }

        // MARK: Comparison operators

        /// `key == value`.
        public static func == (lhs: Key, rhs: some PredicateArgument) -> ObjectPredicate {
            lhs.compare(.equal, rhs.predicateOperand)
        }
        /// `key != value`.
        public static func != (lhs: Key, rhs: some PredicateArgument) -> ObjectPredicate {
            lhs.compare(.notEqual, rhs.predicateOperand)
        }
        /// `key < value`.
        public static func < (lhs: Key, rhs: some PredicateArgument) -> ObjectPredicate {
            lhs.compare(.less, rhs.predicateOperand)
        }
        /// `key <= value`.
        public static func <= (lhs: Key, rhs: some PredicateArgument) -> ObjectPredicate {
            lhs.compare(.lessOrEqual, rhs.predicateOperand)
        }
        /// `key > value`.
        public static func > (lhs: Key, rhs: some PredicateArgument) -> ObjectPredicate {
            lhs.compare(.greater, rhs.predicateOperand)
        }
        /// `key >= value`.
        public static func >= (lhs: Key, rhs: some PredicateArgument) -> ObjectPredicate {
            lhs.compare(.greaterOrEqual, rhs.predicateOperand)
        }

        /// `key == nil`.
        public static func == (lhs: Key, rhs: _OptionalNilComparisonType) -> ObjectPredicate {
            lhs.compare(.equal, .constant(.null))
        }
        /// `key != nil`.
        public static func != (lhs: Key, rhs: _OptionalNilComparisonType) -> ObjectPredicate {
            lhs.compare(.notEqual, .constant(.null))
        }

        /// `key == otherKey` (the right key's modifier is not used).
        public static func == (lhs: Key, rhs: Key) -> ObjectPredicate { lhs.compare(.equal, rhs.operand) }
        /// `key != otherKey` (the right key's modifier is not used).
        public static func != (lhs: Key, rhs: Key) -> ObjectPredicate { lhs.compare(.notEqual, rhs.operand) }
        /// `key < otherKey` (the right key's modifier is not used).
        public static func < (lhs: Key, rhs: Key) -> ObjectPredicate { lhs.compare(.less, rhs.operand) }
        /// `key <= otherKey` (the right key's modifier is not used).
        public static func <= (lhs: Key, rhs: Key) -> ObjectPredicate { lhs.compare(.lessOrEqual, rhs.operand) }
        /// `key > otherKey` (the right key's modifier is not used).
        public static func > (lhs: Key, rhs: Key) -> ObjectPredicate { lhs.compare(.greater, rhs.operand) }
        /// `key >= otherKey` (the right key's modifier is not used).
        public static func >= (lhs: Key, rhs: Key) -> ObjectPredicate { lhs.compare(.greaterOrEqual, rhs.operand) }

        // MARK: Named operators

        /// `key ==[options] value`: equality with `[c]`/`[d]` folding.
        public func equals(_ value: some PredicateArgument, _ options: Options = []) -> ObjectPredicate {
            compare(.equal, value.predicateOperand, options)
        }
        /// `key BEGINSWITH[options] prefix`.
        public func beginsWith(_ prefix: some PredicateArgument, _ options: Options = []) -> ObjectPredicate {
            compare(.beginsWith, prefix.predicateOperand, options)
        }
        /// `key ENDSWITH[options] suffix`.
        public func endsWith(_ suffix: some PredicateArgument, _ options: Options = []) -> ObjectPredicate {
            compare(.endsWith, suffix.predicateOperand, options)
        }
        /// `key CONTAINS[options] value`: a substring, or membership for a to-many key path.
        public func contains(_ value: some PredicateArgument, _ options: Options = []) -> ObjectPredicate {
            compare(.contains, value.predicateOperand, options)
        }
        /// `key LIKE[options] pattern`: `*` matches any run, `?` one character.
        public func like(_ pattern: some PredicateArgument, _ options: Options = []) -> ObjectPredicate {
            compare(.like, pattern.predicateOperand, options)
        }
        /// `key MATCHES[options] regex`: an ICU regular expression matching the whole string.
        public func matches(_ regex: some PredicateArgument, _ options: Options = []) -> ObjectPredicate {
            compare(.matches, regex.predicateOperand, options)
        }
        /// `key IN[options] values`: membership in a list (an array or set gives `{...}`).
        public func `in`(_ values: some PredicateArgument, _ options: Options = []) -> ObjectPredicate {
            compare(.in, values.predicateOperand, options)
        }
        /// `key IN otherKey`: membership in a to-many key path.
        public func `in`(_ other: Key, _ options: Options = []) -> ObjectPredicate {
            compare(.in, other.operand, options)
        }
        /// `key BETWEEN {low, high}`, inclusive at both ends.
        public func between(_ low: some PredicateArgument, _ high: some PredicateArgument) -> ObjectPredicate {
            compare(.between, .list([low.predicateOperand, high.predicateOperand]))
        }
    }

    /// The key path `path`, to compare: `.key("height") > 1.8`.
    public static func key(_ path: PropertyPath) -> Key { Key.key(path) }
    /// `ANY path`, to compare: `.any("employees.name") == "ada"`.
    public static func any(_ path: PropertyPath) -> Key { Key.any(path) }
    /// `ALL path`, to compare: `.all("employees.salary") > 1000`.
    public static func all(_ path: PropertyPath) -> Key { Key.all(path) }
    /// `NONE path`, to compare: `.none("employees.name") == "eve"`.
    public static func none(_ path: PropertyPath) -> Key { Key.none(path) }
    /// `SELF`, to compare with object IDs: `ObjectPredicate.evaluatedObject.in(ids)`.
    public static var evaluatedObject: Key { Key.evaluatedObject }

    /// `lhs AND rhs`. A left side that is already an `AND` list is extended, as the parser reads
    /// `a AND b AND c` as one list of three.
    public static func && (lhs: ObjectPredicate, rhs: ObjectPredicate) -> ObjectPredicate {
        if case .and(let terms) = lhs { return .and(terms + [rhs]) }
        return .and([lhs, rhs])
    }

    /// `lhs OR rhs`. A left side that is already an `OR` list is extended, as the parser reads
    /// `a OR b OR c` as one list of three.
    public static func || (lhs: ObjectPredicate, rhs: ObjectPredicate) -> ObjectPredicate {
        if case .or(let terms) = lhs { return .or(terms + [rhs]) }
        return .or([lhs, rhs])
    }

    /// `NOT predicate`.
    public static prefix func ! (predicate: ObjectPredicate) -> ObjectPredicate { .not(predicate) }
}
