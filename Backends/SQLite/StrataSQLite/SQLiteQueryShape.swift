import Foundation
import StrataCore

/// What the SQL text of a fetch depends on, with the request's constants taken out: the key of
/// a connection's plan cache (see ``SQLiteConnection/plan(for:)``).
///
/// Two requests of one shape get the same SQL from ``SQLiteQueryBuilder`` and differ only in the
/// parameters bound to it, so a request whose shape was seen before skips the builder and binds
/// the parameters ``of(_:table:storeIdentifier:)`` extracts. The shape holds everything the SQL
/// text depends on: the entity, the result type, whether a limit or offset applies, how many of
/// the request's object IDs count (none, one, several), the sorts, the properties to fetch, and
/// the predicate's structure (after the builder's own flattening and merging into `IN` lists)
/// with, for each constant, its kind and whatever changes the SQL: `nil` (`IS NULL`), an empty
/// pattern after folding, the number of members of an `IN` list and whether `nil` is among them.
///
/// Only requests whose comparisons are on attributes of the fetched entity itself (no key paths
/// through relationships, `@count`, `SELF`, `ANY`/`ALL`/`NONE`, objects as constants, or
/// `MATCHES`, whose pattern decides whether SQLite evaluates it) have a shape; the others are
/// built anew for every fetch. Whatever the builder would decline, the walk declines too.
struct SQLiteQueryShape: Hashable {
    /// The entity fetched.
    var entityName: String
    /// The header, then the predicate's structure, one token at a time.
    var tokens: [Int]
    /// The sorts, as given (they hold no constants).
    var sorts: [Sort]
    /// The properties of a dictionary fetch, as given.
    var propertiesToFetch: [PropertyPath]

    /// `request`'s shape and the parameters of its SQL in the order the builder binds them, or
    /// `nil` for a request that has no shape (see ``SQLiteQueryShape``) or that the builder
    /// declines.
    static func of(
        _ request: FetchRequest, table: SQLiteEntityTable, storeIdentifier: String
    ) -> (shape: SQLiteQueryShape, parameters: [SQLiteParameter])? {
        var walk = Walk(table: table)
        walk.tokens.reserveCapacity(16)
        walk.parameters.reserveCapacity(4)
        switch request.resultType {
        case .snapshots: walk.tokens.append(0)
        case .objectIDs: walk.tokens.append(1)
        case .count: walk.tokens.append(2)
        case .dictionaries: walk.tokens.append(3)
        }
        walk.tokens.append(request.limit != nil || request.offset > 0 ? 1 : 0)
        if let ids = request.objectIDs {
            var keys: [Int64] = []
            for id in ids where id.entityName == table.name && id.storeIdentifier == storeIdentifier {
                if let key = id.primaryKey { keys.append(key) }
            }
            switch keys.count {
            case 0: walk.tokens.append(Token.noObjects)
            case 1:
                walk.tokens.append(Token.oneObject)
                walk.parameters.append(.integer(keys[0]))
            default:
                walk.tokens.append(Token.objects)
                walk.parameters.append(.text("[" + keys.map(String.init).joined(separator: ",") + "]"))
            }
        } else {
            walk.tokens.append(Token.anyObject)
        }
        if let predicate = request.predicate {
            guard isShallow(predicate) || predicate.depth() <= ObjectPredicate.maximumDepth, walk.add(predicate)
            else { return nil }
        } else {
            walk.tokens.append(Token.noPredicate)
        }
        if request.limit != nil || request.offset > 0 {
            walk.parameters.append(.integer(request.limit.map(Int64.init) ?? -1))
            walk.parameters.append(.integer(Int64(request.offset)))
        }
        let shape = SQLiteQueryShape(
            entityName: table.name, tokens: walk.tokens, sorts: request.sorts,
            propertiesToFetch: request.resultType == .dictionaries ? request.propertiesToFetch : [])
        return (shape, walk.parameters)
    }

    /// Whether `predicate` is one comparison without lists (two levels deep): most lookups are,
    /// and for them the builder's depth check needs no walk.
    private static func isShallow(_ predicate: ObjectPredicate) -> Bool {
        guard case .comparison(let comparison) = predicate else { return false }
        if case .list = comparison.lhs { return false }
        if case .list = comparison.rhs { return false }
        return true
    }

    /// The tokens of a shape besides attribute indexes, operators, options and counts.
    private enum Token {
        static let anyObject = -1
        static let noObjects = -2
        static let oneObject = -3
        static let objects = -4
        static let noPredicate = -5
        static let alwaysTrue = -6
        static let alwaysFalse = -7
        static let and = -8
        static let or = -9
        static let comparison = -10
        static let negated = -11
        static let null = -12
        static let emptyPattern = -13
        /// A constant: this minus the index of its kind (see ``kind(_:)``).
        static let constant = -100

        /// An operator, as a number (`allCases` would allocate an array for every comparison).
        static func number(of op: ObjectPredicate.Operator) -> Int {
            switch op {
            case .equal: return 0
            case .notEqual: return 1
            case .less: return 2
            case .lessOrEqual: return 3
            case .greater: return 4
            case .greaterOrEqual: return 5
            case .beginsWith: return 6
            case .endsWith: return 7
            case .contains: return 8
            case .like: return 9
            case .matches: return 10
            case .in: return 11
            case .between: return 12
            }
        }

        /// The kind of a constant, as a number.
        static func kind(_ value: Value) -> Int {
            switch value {
            case .null: return constant
            case .integer: return constant - 1
            case .double: return constant - 2
            case .float: return constant - 3
            case .decimal: return constant - 4
            case .string: return constant - 5
            case .bool: return constant - 6
            case .date: return constant - 7
            case .binary: return constant - 8
            case .uuid: return constant - 9
            case .uri: return constant - 10
            }
        }
    }

    /// The walk of a predicate in the builder's order.
    private struct Walk {
        let table: SQLiteEntityTable
        var tokens: [Int] = []
        var parameters: [SQLiteParameter] = []

        init(table: SQLiteEntityTable) { self.table = table }

        /// Adds `predicate` as ``SQLiteQueryBuilder/translate(_:in:)`` reads it; `false` when it
        /// has no shape or the builder declines it.
        mutating func add(_ predicate: ObjectPredicate) -> Bool {
            var predicate = predicate
            var negated = false
            while case .not(let inner) = predicate {
                negated.toggle()
                predicate = inner
            }
            if negated { tokens.append(Token.negated) }
            switch predicate {
            case .alwaysTrue:
                tokens.append(Token.alwaysTrue)
            case .alwaysFalse:
                tokens.append(Token.alwaysFalse)
            case .not:
                return false
            case .and(let parts), .or(let parts):
                let and: Bool
                if case .and = predicate { and = true } else { and = false }
                let terms = SQLiteQueryBuilder.mergingInLists(SQLiteQueryBuilder.flattened(parts, and: and), and: and)
                tokens.append(and ? Token.and : Token.or)
                tokens.append(terms.count)
                for term in terms {
                    guard add(term) else { return false }
                }
            case .comparison(let comparison):
                return add(comparison)
            }
            return true
        }

        /// Adds a comparison of an attribute of the entity with constants, as
        /// ``SQLiteQueryBuilder``'s `scalarComparison` reads it; `false` for any other comparison.
        private mutating func add(_ comparison: ObjectPredicate.Comparison) -> Bool {
            guard comparison.modifier == .direct, case .keyPath(let path) = comparison.lhs,
                path.components.count == 1, let index = table.entity.attributeIndex(named: path.components[0])
            else { return false }
            let kind = SQLiteColumnKind(table.entity.attributes[index].type)
            let op = comparison.op
            let options = comparison.options
            if !options.isEmpty && kind != .string { return false }
            tokens.append(Token.comparison)
            tokens.append(index)
            tokens.append(Token.number(of: op))
            tokens.append(Int(options.rawValue))
            switch op {
            case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual:
                guard case .constant(let value) = comparison.rhs else { return false }
                if op != .equal && op != .notEqual {
                    switch kind {
                    case .binary, .uuid, .uri: return false
                    default: break
                    }
                }
                if value.isNull {
                    tokens.append(Token.null)
                    return true
                }
                return add(value, kind: kind, options: options)

            case .between:
                guard case .list(let bounds) = comparison.rhs, bounds.count == 2,
                    case .constant(let low) = bounds[0], case .constant(let high) = bounds[1], !low.isNull,
                    !high.isNull
                else { return false }
                switch kind {
                case .binary, .uuid, .uri: return false
                default: break
                }
                return add(low, kind: kind, options: options) && add(high, kind: kind, options: options)

            case .in:
                guard case .list(let elements) = comparison.rhs else { return false }
                var hasNull = false
                var count = 0
                for element in elements {
                    guard case .constant(let value) = element else { return false }
                    if value.isNull {
                        hasNull = true
                    } else {
                        guard add(value, kind: kind, options: options) else { return false }
                        count += 1
                    }
                }
                tokens.append(hasNull ? 1 : 0)
                tokens.append(count)
                return true

            case .beginsWith, .endsWith, .contains, .like, .matches:
                guard kind == .string, op != .matches, case .constant(let value) = comparison.rhs else { return false }
                if value.isNull {
                    tokens.append(Token.null)
                    return true
                }
                guard case .string(let text) = value else { return false }
                if op == .like {
                    tokens.append(Token.kind(value))
                    parameters.append(.text(text))
                    return true
                }
                let pattern = StringFolding.fold(text, options)
                if pattern.isEmpty {
                    tokens.append(Token.emptyPattern)
                    return true
                }
                tokens.append(Token.kind(value))
                let length = Int64(pattern.unicodeScalars.count)
                switch op {
                case .beginsWith:
                    parameters += [.integer(1), .integer(length), .text(pattern)]
                case .endsWith:
                    parameters += [.integer(-length), .text(pattern)]
                default:
                    parameters.append(.text(pattern))
                }
                return true
            }
        }

        /// Adds a constant compared with a column of `kind`: its kind and its parameter.
        private mutating func add(_ value: Value, kind: SQLiteColumnKind, options: ObjectPredicate.Options) -> Bool {
            guard let parameter = try? SQLiteQueryBuilder.parameter(value, comparedWith: kind, options: options) else {
                return false
            }
            tokens.append(Token.kind(value))
            parameters.append(parameter)
            return true
        }
    }
}
