import Foundation
import StrataCore

/// A generated query: SQL text (identifiers quoted, no value inlined) and its parameters in order.
struct SQLiteQuery {
    var sql: String
    var parameters: [SQLiteParameter]
    /// For dictionary fetches: each selected key path and how to read it.
    var dictionaryColumns: [(key: String, kind: SQLiteColumnKind)] = []
}

/// Translates a ``FetchRequest`` into one SQL query with exactly the in-memory evaluator's
/// semantics, or declines.
///
/// Every comparison is translated to an expression that is never `NULL` (`IS`, `IS NOT`, and
/// `x IS NOT NULL AND ...` guards), so `NOT`, `AND` and `OR` keep two-valued logic. Whatever cannot
/// be matched exactly throws ``Decline``; ``SQLiteStore/fetch(_:)`` then answers the request
/// with the in-memory evaluator. The list of what declines is in docs/SQLiteStore.md.
struct SQLiteQueryBuilder {
    /// The request (or a part of it) cannot be evaluated in SQL exactly.
    struct Decline: Error {
        let reason: String
    }

    let schema: SQLiteSchema
    let storeIdentifier: String
    private(set) var parameters: [SQLiteParameter] = []
    private var aliasCounter = 0
    /// Whether a dictionary query selects each object's primary key after the properties (for an
    /// aggregate query that orders its groups by their first object).
    var selectsPrimaryKeyAfterProperties = false

    init(schema: SQLiteSchema, storeIdentifier: String) {
        self.schema = schema
        self.storeIdentifier = storeIdentifier
    }

    /// An alias scope: a table, its alias and the LEFT JOINs for to-one key paths from it.
    final class Scope {
        let table: SQLiteEntityTable
        let alias: String
        var joins: [String] = []
        var joined: [String: (alias: String, table: SQLiteEntityTable)] = [:]
        init(table: SQLiteEntityTable, alias: String) {
            self.table = table
            self.alias = alias
        }
    }

    private mutating func newAlias(_ prefix: String) -> String {
        aliasCounter += 1
        return "\(prefix)\(aliasCounter)"
    }

    private func decline(_ reason: String) -> Decline { Decline(reason: reason) }

    // MARK: Whole request

    /// Builds the query for `request` on `table`.
    mutating func build(_ request: FetchRequest, table: SQLiteEntityTable) throws -> SQLiteQuery {
        let scope = Scope(table: table, alias: "t0")
        var filters: [String] = []
        if let ids = request.objectIDs {
            let keys = ids.compactMap { id -> Int64? in
                guard id.entityName == table.name, id.storeIdentifier == storeIdentifier else { return nil }
                return id.primaryKey
            }
            if keys.isEmpty {
                filters.append("0")
            } else if keys.count == 1 {
                filters.append("t0.\(q("_pk")) = ?")
                parameters.append(.integer(keys[0]))
            } else {
                filters.append("t0.\(q("_pk")) IN (SELECT value FROM json_each(?))")
                parameters.append(.text("[" + keys.map(String.init).joined(separator: ",") + "]"))
            }
        }
        if let predicate = request.predicate {
            guard predicate.depth() <= ObjectPredicate.maximumDepth else {
                throw decline("the predicate nests more than \(ObjectPredicate.maximumDepth) levels deep")
            }
            let condition = try translate(predicate, in: scope)
            if condition != "1" { filters.append(condition) }
        }
        var orderTerms: [String] = []
        for sort in request.sorts { orderTerms.append(try sortTerm(sort, in: scope)) }
        orderTerms.append("t0.\(q("_pk"))")

        var dictionaryColumns: [(key: String, kind: SQLiteColumnKind)] = []
        let selectList: String
        switch request.resultType {
        case .snapshots:
            selectList = table.selectList
        case .objectIDs, .count:
            selectList = "t0.\(q("_pk"))"
        case .dictionaries:
            var expressions: [String] = []
            for path in request.propertiesToFetch {
                guard case .attribute(let expression, let attribute) = try resolve(path.components[...], in: scope)
                else {
                    throw decline("a property to fetch (\(path)) is not an attribute")
                }
                expressions.append(expression)
                dictionaryColumns.append((path.description, SQLiteColumnKind(attribute.type)))
            }
            if selectsPrimaryKeyAfterProperties { expressions.append("t0.\(q("_pk"))") }
            selectList = expressions.joined(separator: ", ")
        }

        var sql = "SELECT \(selectList) FROM \(table.quotedName) AS t0"
        for join in scope.joins { sql += " " + join }
        if !filters.isEmpty { sql += " WHERE " + filters.joined(separator: " AND ") }
        if request.resultType != .count || request.limit != nil || request.offset > 0 {
            sql += " ORDER BY " + orderTerms.joined(separator: ", ")
        }
        if request.limit != nil || request.offset > 0 {
            sql += " LIMIT ? OFFSET ?"
            parameters.append(.integer(request.limit.map(Int64.init) ?? -1))
            parameters.append(.integer(Int64(request.offset)))
        }
        if request.resultType == .count { sql = "SELECT count(*) FROM (\(sql))" }
        return SQLiteQuery(sql: sql, parameters: parameters, dictionaryColumns: dictionaryColumns)
    }

    private mutating func sortTerm(_ sort: Sort, in scope: Scope) throws -> String {
        guard case .attribute(let expression, let attribute) = try resolve(sort.keyPath.components[...], in: scope)
        else {
            throw decline("sort key \(sort.keyPath) is not an attribute")
        }
        let kind = SQLiteColumnKind(attribute.type)
        let direction = sort.ascending ? " ASC" : " DESC"
        switch kind {
        case .string:
            let term = sort.options.isEmpty ? expression : "strata_fold(\(expression), \(sort.options.rawValue))"
            return term + direction
        case .decimal:
            guard sort.options.isEmpty else { throw decline("string options on a non-string sort") }
            // The evaluator's sort order: null, then NaN, then numbers (as Double).
            return
                "(CASE WHEN \(expression) IS NULL THEN 0 WHEN strata_decimal(\(expression)) IS NULL THEN 1 ELSE 2 END)\(direction), strata_decimal(\(expression))\(direction)"
        default:
            guard sort.options.isEmpty else { throw decline("string options on a non-string sort") }
            // Doubles and floats: null, then NaN (stored as text), then numbers, by a key pair their
            // indexes hold. Integers, Booleans (0/1), dates (REAL), and binaries, UUIDs (BLOB,
            // memcmp then length) and URIs (TEXT, scalar order) by the column, as the evaluator's
            // sort order compares them.
            return kind.sortKeys(expression).map { $0 + direction }.joined(separator: ", ")
        }
    }

    // MARK: Key paths

    enum Resolved {
        /// An attribute's value expression.
        case attribute(String, Attribute)
        /// A to-one relationship: the expression of the target's key (NULL when none).
        case toOne(String, Relationship)
        /// A to-many relationship of the object at `alias` in `table`.
        case toMany(alias: String, table: SQLiteEntityTable, index: Int)
    }

    /// Resolves a key path from `scope`, LEFT JOINing through to-one relationships.
    private mutating func resolve(_ components: ArraySlice<String>, in scope: Scope) throws -> Resolved {
        guard !components.isEmpty else { throw decline("an empty key path") }
        var alias = scope.alias
        var table = scope.table
        var prefix = ""
        for (offset, name) in components.enumerated() {
            let isLast = offset == components.count - 1
            if let index = table.entity.attributeIndex(named: name) {
                guard isLast else { throw decline("a key path continues after the attribute '\(name)'") }
                return .attribute("\(alias).\(q(table.attributeColumns[index]))", table.entity.attributes[index])
            }
            guard let index = table.entity.relationshipIndex(named: name) else {
                throw decline("'\(table.name)' has no key '\(name)'")
            }
            let relationship = table.entity.relationships[index]
            if relationship.isToMany {
                guard isLast else { throw decline("a to-many relationship in the middle of a key path") }
                return .toMany(alias: alias, table: table, index: index)
            }
            if isLast { return .toOne(targetKeyExpression(alias: alias, table: table, index: index), relationship) }
            prefix += "." + name
            if let existing = scope.joined[prefix] {
                (alias, table) = existing
                continue
            }
            guard let destination = schema.tables[relationship.destination] else {
                throw decline("unknown destination")
            }
            let joinAlias = newAlias("j")
            switch table.relationshipStorage[index] {
            case .foreignKey(let column):
                scope.joins.append(
                    "LEFT JOIN \(destination.quotedName) AS \(joinAlias) ON \(joinAlias).\(q("_pk")) = \(alias).\(q(column))"
                )
            case .derivedToOne(_, let column):
                scope.joins.append(
                    "LEFT JOIN \(destination.quotedName) AS \(joinAlias) ON \(joinAlias).\(q("_pk")) = (SELECT o.\(q("_pk")) FROM \(destination.quotedName) AS o WHERE o.\(q(column)) = \(alias).\(q("_pk")) ORDER BY o.\(q("_pk")) LIMIT 1)"
                )
            default:
                throw decline("unexpected storage")
            }
            scope.joined[prefix] = (joinAlias, destination)
            alias = joinAlias
            table = destination
        }
        throw decline("an empty key path")
    }

    /// The expression of the key of a to-one relationship's target.
    private func targetKeyExpression(alias: String, table: SQLiteEntityTable, index: Int) -> String {
        switch table.relationshipStorage[index] {
        case .foreignKey(let column):
            return "\(alias).\(q(column))"
        case .derivedToOne(let other, let column):
            return
                "(SELECT o.\(q("_pk")) FROM \(q(other)) AS o WHERE o.\(q(column)) = \(alias).\(q("_pk")) ORDER BY o.\(q("_pk")) LIMIT 1)"
        default:
            return "NULL"
        }
    }

    /// `FROM ... WHERE` (without the keyword FROM) listing the targets of a to-many relationship
    /// of the object at `alias`; the targets' table gets alias `targetAlias` when `joinTargets`.
    private mutating func targetsSource(alias: String, table: SQLiteEntityTable, index: Int, joinTargets: Bool) throws
        -> (
            from: String, ownerCondition: String, targetKey: String, targetAlias: String?,
            destination: SQLiteEntityTable
        )
    {
        let relationship = table.entity.relationships[index]
        guard let destination = schema.tables[relationship.destination] else { throw decline("unknown destination") }
        switch table.relationshipStorage[index] {
        case .foreignKeyToMany(_, let column, _):
            let target = newAlias("s")
            return (
                "\(destination.quotedName) AS \(target)", "\(target).\(q(column)) = \(alias).\(q("_pk"))",
                "\(target).\(q("_pk"))", target, destination
            )
        case .joinTable(let join):
            let link = newAlias("x")
            let condition = "\(link).\(q(join.ownColumn)) = \(alias).\(q("_pk"))"
            let key = "\(link).\(q(join.targetColumn))"
            guard joinTargets else { return ("\(q(join.table)) AS \(link)", condition, key, nil, destination) }
            let target = newAlias("s")
            return (
                "\(q(join.table)) AS \(link) JOIN \(destination.quotedName) AS \(target) ON \(target).\(q("_pk")) = \(key)",
                condition, "\(target).\(q("_pk"))", target, destination
            )
        default:
            throw decline("unexpected storage")
        }
    }

    // MARK: Predicates

    /// A condition that is 0 or 1, never NULL.
    ///
    /// `NOT NOT p` is `p` (the logic is two-valued); `AND` and `OR` lists are flattened, runs of
    /// `==` on one key in an `OR` (and of `!=` in an `AND`) become one `IN` list, and the terms
    /// are grouped into a tree of at most ``junctionFanOut`` terms per group. SQLite parses
    /// `a OR b OR c ...` into a chain as deep as it is long, which a thousand terms overflow
    /// (`SQLITE_MAX_EXPR_DEPTH`); grouped, the depth grows with the logarithm of the length.
    mutating func translate(_ predicate: ObjectPredicate, in scope: Scope) throws -> String {
        var predicate = predicate
        var negated = false
        while case .not(let inner) = predicate {
            negated.toggle()
            predicate = inner
        }
        let condition: String
        switch predicate {
        case .alwaysTrue: condition = "1"
        case .alwaysFalse: condition = "0"
        case .not(let inner): condition = "(NOT \(try translate(inner, in: scope)))"
        case .and(let parts):
            let terms = Self.mergingInLists(Self.flattened(parts, and: true), and: true)
            condition = terms.isEmpty ? "1" : try junction(terms, separator: " AND ", in: scope)
        case .or(let parts):
            let terms = Self.mergingInLists(Self.flattened(parts, and: false), and: false)
            condition = terms.isEmpty ? "0" : try junction(terms, separator: " OR ", in: scope)
        case .comparison(let comparison):
            condition = try translate(comparison, in: scope)
        }
        return negated ? "(NOT \(condition))" : condition
    }

    /// The most terms joined in one group of a long `AND` or `OR`.
    static let junctionFanOut = 16

    /// The terms joined by `separator`, in groups of at most ``junctionFanOut``, groups of groups,
    /// and so on: the expression is O(log n) deep for n terms.
    private mutating func junction(_ terms: [ObjectPredicate], separator: String, in scope: Scope) throws -> String {
        var level = try terms.map { try translate($0, in: scope) }
        repeat {
            var next: [String] = []
            next.reserveCapacity(level.count / Self.junctionFanOut + 1)
            var start = 0
            while start < level.count {
                let end = min(start + Self.junctionFanOut, level.count)
                next.append(
                    end - start == 1 ? level[start] : "(" + level[start..<end].joined(separator: separator) + ")")
                start = end
            }
            level = next
        } while level.count > 1
        return level[0]
    }

    /// The terms of an `AND` (or `OR`) list with nested lists of the same kind spliced in, and
    /// one-term lists of either kind unwrapped, in order and without recursion.
    static func flattened(_ parts: [ObjectPredicate], and: Bool) -> [ObjectPredicate] {
        var result: [ObjectPredicate] = []
        result.reserveCapacity(parts.count)
        var pending: [ObjectPredicate] = parts.reversed()
        while let part = pending.popLast() {
            switch part {
            case .and(let inner) where and, .or(let inner) where !and:
                pending += inner.reversed()
            case .and(let inner) where inner.count == 1, .or(let inner) where inner.count == 1:
                pending.append(inner[0])
            default:
                result.append(part)
            }
        }
        return result
    }

    /// In an `OR`, the direct `==` comparisons of one key path (same options) with constants or
    /// objects become one `IN` list at the place of the first; in an `AND`, the `!=` ones become
    /// `NOT (... IN list)`. The evaluator gives these the same answer (`IN` is `==` with any
    /// member, `!=` is not `==`), and SQLite reads a list of any length as one expression.
    static func mergingInLists(_ terms: [ObjectPredicate], and: Bool) -> [ObjectPredicate] {
        let op: ObjectPredicate.Operator = and ? .notEqual : .equal
        struct Key: Hashable {
            let path: PropertyPath
            let options: ObjectPredicate.Options
        }
        func mergeable(_ term: ObjectPredicate) -> (Key, ObjectPredicate.Operand)? {
            guard case .comparison(let c) = term, c.modifier == .direct, c.op == op, case .keyPath(let path) = c.lhs
            else { return nil }
            switch c.rhs {
            case .constant, .objectID: return (Key(path: path, options: c.options), c.rhs)
            default: return nil
            }
        }
        var members: [Key: [ObjectPredicate.Operand]] = [:]
        for term in terms {
            if let (key, value) = mergeable(term) { members[key, default: []].append(value) }
        }
        guard members.values.contains(where: { $0.count > 1 }) else { return terms }
        var result: [ObjectPredicate] = []
        var placed: Set<Key> = []
        for term in terms {
            guard let (key, _) = mergeable(term), let values = members[key], values.count > 1 else {
                result.append(term)
                continue
            }
            guard placed.insert(key).inserted else { continue }
            let list = ObjectPredicate.comparison(.init(.keyPath(key.path), .in, .list(values), options: key.options))
            result.append(and ? .not(list) : list)
        }
        return result
    }

    private mutating func translate(_ comparison: ObjectPredicate.Comparison, in scope: Scope) throws -> String {
        switch comparison.modifier {
        case .direct:
            return try direct(comparison.lhs, comparison.op, comparison.rhs, comparison.options, in: scope)
        case .any, .all, .none:
            return try aggregate(comparison, in: scope)
        }
    }

    /// `ANY`/`ALL`/`NONE` over a key path through one or more to-many relationships (the values
    /// are flattened, as the evaluator does): `ANY` is `EXISTS(... cond)`, `ALL` is
    /// `NOT EXISTS(... NOT cond)`, `NONE` is `NOT EXISTS(... cond)`, with one nested `EXISTS` per
    /// to-many step.
    private mutating func aggregate(_ comparison: ObjectPredicate.Comparison, in scope: Scope) throws -> String {
        guard case .keyPath(let path) = comparison.lhs else {
            throw decline("\(comparison.modifier.rawValue) needs a key path")
        }
        guard firstToManyStep(path.components[...], from: scope.table) != nil else {
            throw decline("\(comparison.modifier.rawValue) over a key path without a to-many relationship")
        }
        switch comparison.modifier {
        case .any: return try exists(path.components[...], in: scope, comparison, negated: false)
        case .all: return "(NOT \(try exists(path.components[...], in: scope, comparison, negated: true)))"
        default: return "(NOT \(try exists(path.components[...], in: scope, comparison, negated: false)))"
        }
    }

    /// The offset (within `components`) of the first to-many step reached through to-ones from
    /// `table`, or `nil` when the path reaches an attribute or ends first.
    private func firstToManyStep(_ components: ArraySlice<String>, from table: SQLiteEntityTable) -> Int? {
        var table = table
        for (offset, name) in components.enumerated() {
            guard let index = table.entity.relationshipIndex(named: name) else { return nil }
            let relationship = table.entity.relationships[index]
            if relationship.isToMany { return offset }
            guard let next = schema.tables[relationship.destination] else { return nil }
            table = next
        }
        return nil
    }

    /// `EXISTS` over the targets of the first to-many step of `components`, recursing through
    /// further to-many steps; the innermost condition is the comparison (negated when asked).
    private mutating func exists(
        _ components: ArraySlice<String>, in scope: Scope, _ comparison: ObjectPredicate.Comparison, negated: Bool
    ) throws -> String {
        guard let offset = firstToManyStep(components, from: scope.table) else { throw decline("no to-many step") }
        let split = components.startIndex + offset
        guard case .toMany(let alias, let owner, let index) = try resolve(components[...split], in: scope) else {
            throw decline("unexpected key path")
        }
        let rest = components[(split + 1)...]
        let source = try targetsSource(alias: alias, table: owner, index: index, joinTargets: true)
        let inner = Scope(table: source.destination, alias: source.targetAlias!)
        var condition: String
        if !rest.isEmpty, firstToManyStep(rest, from: source.destination) != nil {
            condition = try exists(rest, in: inner, comparison, negated: negated)
        } else {
            if rest.isEmpty {
                guard comparison.options.isEmpty else { throw decline("options on an object comparison") }
                condition = try objectComparison(
                    source.targetKey, entityName: source.destination.name, comparison.op, comparison.rhs)
            } else {
                condition = try direct(
                    .keyPath(PropertyPath(Array(rest))), comparison.op, comparison.rhs, comparison.options, in: inner)
            }
            if negated { condition = "(NOT \(condition))" }
        }
        let from = ([source.from] + inner.joins).joined(separator: " ")
        return "EXISTS (SELECT 1 FROM \(from) WHERE \(source.ownerCondition) AND \(condition))"
    }

    private mutating func direct(
        _ lhs: ObjectPredicate.Operand, _ op: ObjectPredicate.Operator, _ rhs: ObjectPredicate.Operand,
        _ options: ObjectPredicate.Options, in scope: Scope
    ) throws -> String {
        switch lhs {
        case .evaluatedObject:
            guard options.isEmpty else { throw decline("options on SELF") }
            return try objectComparison("\(scope.alias).\(q("_pk"))", entityName: scope.table.name, op, rhs)
        case .count(let path):
            guard options.isEmpty else { throw decline("options on @count") }
            guard case .toMany(let alias, let owner, let index) = try resolve(path.components[...], in: scope) else {
                throw decline("@count of something that is not a to-many relationship")
            }
            let source = try targetsSource(alias: alias, table: owner, index: index, joinTargets: false)
            let count = "(SELECT count(*) FROM \(source.from) WHERE \(source.ownerCondition))"
            return try scalarComparison(count, kind: .integer, isNullable: false, op, rhs, [])
        case .keyPath(let path):
            switch try resolve(path.components[...], in: scope) {
            case .attribute(let expression, let attribute):
                return try scalarComparison(
                    expression, kind: SQLiteColumnKind(attribute.type), isNullable: true, op, rhs, options)
            case .toOne(let expression, let relationship):
                guard options.isEmpty else { throw decline("options on a relationship") }
                return try objectComparison(expression, entityName: relationship.destination, op, rhs)
            case .toMany(let alias, let owner, let index):
                guard op == .contains, options.isEmpty, case .objectID(let id) = rhs else {
                    throw decline("a to-many key path is only compared with CONTAINS of an object")
                }
                let key = try objectKey(id, entityName: owner.entity.relationships[index].destination)
                let source = try targetsSource(alias: alias, table: owner, index: index, joinTargets: false)
                parameters.append(.integer(key))
                return
                    "EXISTS (SELECT 1 FROM \(source.from) WHERE \(source.ownerCondition) AND \(source.targetKey) = ?)"
            }
        default:
            throw decline("the left side is not a key path, @count or SELF")
        }
    }

    private func objectKey(_ id: ObjectID, entityName: String) throws -> Int64 {
        guard id.entityName == entityName, id.storeIdentifier == storeIdentifier, let key = id.primaryKey else {
            throw decline("an object of another entity or store, or a temporary ID")
        }
        return key
    }

    /// Compares an object key expression (NULL for none) with an object, nil, or a list of them.
    private mutating func objectComparison(
        _ expression: String, entityName: String, _ op: ObjectPredicate.Operator, _ rhs: ObjectPredicate.Operand
    ) throws -> String {
        switch (op, rhs) {
        case (.equal, .constant(.null)): return "(\(expression) IS NULL)"
        case (.notEqual, .constant(.null)): return "(\(expression) IS NOT NULL)"
        case (.equal, .objectID(let id)):
            parameters.append(.integer(try objectKey(id, entityName: entityName)))
            return "(\(expression) IS ?)"
        case (.notEqual, .objectID(let id)):
            parameters.append(.integer(try objectKey(id, entityName: entityName)))
            return "(\(expression) IS NOT ?)"
        case (.in, .list(let elements)):
            var keys: [Int64] = []
            var hasNull = false
            for element in elements {
                switch element {
                case .objectID(let id): keys.append(try objectKey(id, entityName: entityName))
                case .constant(.null): hasNull = true
                default: throw decline("a list element that is not an object")
                }
            }
            var parts: [String] = []
            if hasNull { parts.append("\(expression) IS NULL") }
            if !keys.isEmpty {
                parts.append(
                    "(\(expression) IS NOT NULL AND \(expression) IN (\(Array(repeating: "?", count: keys.count).joined(separator: ", "))))"
                )
                parameters += keys.map { .integer($0) }
            }
            return parts.isEmpty ? "0" : "(" + parts.joined(separator: " OR ") + ")"
        default:
            throw decline("\(op.rawValue) between objects")
        }
    }

    /// The parameter for comparing `value` with a column of `kind`, or a decline when the
    /// evaluator would compare them differently (or fail).
    private func compatibleParameter(_ value: Value, kind: SQLiteColumnKind, options: ObjectPredicate.Options) throws
        -> SQLiteParameter
    {
        try Self.parameter(value, comparedWith: kind, options: options)
    }

    /// The parameter for comparing `value` with a column of `kind`, or a decline when the
    /// evaluator would compare them differently (or fail); for ``SQLiteQueryShape`` as well.
    static func parameter(_ value: Value, comparedWith kind: SQLiteColumnKind, options: ObjectPredicate.Options) throws
        -> SQLiteParameter
    {
        func decline(_ reason: String) -> Decline { Decline(reason: reason) }
        switch (kind, value) {
        case (.integer, .integer), (.double, .integer), (.float, .integer),
            (.integer, .double), (.double, .double), (.float, .double),
            (.integer, .float), (.double, .float), (.float, .float),
            (.boolean, .bool), (.date, .date), (.binary, .binary), (.uuid, .uuid), (.uri, .uri):
            guard let parameter = SQLiteValueCoding.parameter(value) else {
                throw decline("NaN or a value without an SQL form")
            }
            return parameter
        case (.string, .string(let text)):
            return .text(StringFolding.fold(text, options))
        case (.decimal, .integer), (.decimal, .double), (.decimal, .float), (.decimal, .decimal),
            (.integer, .decimal), (.double, .decimal), (.float, .decimal):
            guard let number = ValueComparison.double(value), !number.isNaN else { throw decline("NaN") }
            return .real(number)
        default:
            throw decline("comparing a \(kind) attribute with a \(value.typeName)")
        }
    }

    private static func sqlOperator(_ op: ObjectPredicate.Operator) -> String {
        switch op {
        case .less: return "<"
        case .lessOrEqual: return "<="
        case .greater: return ">"
        default: return ">="
        }
    }

    /// Compares an attribute (or count) expression with constants.
    private mutating func scalarComparison(
        _ expression: String, kind: SQLiteColumnKind, isNullable: Bool, _ op: ObjectPredicate.Operator,
        _ rhs: ObjectPredicate.Operand, _ options: ObjectPredicate.Options
    ) throws -> String {
        if !options.isEmpty && kind != .string { throw decline("string options on a non-string attribute") }
        // Decimals compare as the evaluator compares them: as Double (NaN as NULL, unequal to all).
        let folded =
            kind == .decimal
            ? "strata_decimal(\(expression))"
            : options.isEmpty ? expression : "strata_fold(\(expression), \(options.rawValue))"
        let notNull =
            kind == .decimal ? "\(folded) IS NOT NULL AND " : isNullable ? "\(expression) IS NOT NULL AND " : ""
        // A double or float column's index leads with the first of its sort keys (`x < ''`: 1 for
        // a number, NULL for NULL); naming it lets the index serve the comparison.
        let sortKeys = kind.sortKeys(expression)
        let numberKey = sortKeys.count > 1 ? "\(sortKeys[0]) IS 1 AND " : ""
        let nullKey = sortKeys.count > 1 ? "\(sortKeys[0]) IS NULL AND " : ""
        switch op {
        case .equal, .notEqual:
            guard case .constant(let value) = rhs else { throw decline("\(op.rawValue) with a non-constant") }
            if value.isNull {
                return op == .equal ? "(\(nullKey)\(expression) IS NULL)" : "(\(expression) IS NOT NULL)"
            }
            parameters.append(try compatibleParameter(value, kind: kind, options: options))
            return op == .equal ? "(\(numberKey)\(folded) IS ?)" : "(\(folded) IS NOT ?)"

        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            guard case .constant(let value) = rhs else { throw decline("\(op.rawValue) with a non-constant") }
            switch kind {
            case .binary, .uuid, .uri: throw decline("ordering a \(kind) attribute")
            default: break
            }
            if value.isNull { return "0" }
            parameters.append(try compatibleParameter(value, kind: kind, options: options))
            let guardNaN =
                kind.mayHoldNaNMarker && (op == .greater || op == .greaterOrEqual) ? " AND \(expression) < ''" : ""
            return "(\(numberKey)\(notNull)\(folded) \(Self.sqlOperator(op)) ?\(guardNaN))"

        case .between:
            guard case .list(let bounds) = rhs, bounds.count == 2,
                case .constant(let low) = bounds[0], case .constant(let high) = bounds[1], !low.isNull, !high.isNull
            else {
                throw decline("BETWEEN needs two non-nil constants")
            }
            switch kind {
            case .binary, .uuid, .uri: throw decline("ordering a \(kind) attribute")
            default: break
            }
            parameters.append(try compatibleParameter(low, kind: kind, options: options))
            parameters.append(try compatibleParameter(high, kind: kind, options: options))
            return "(\(numberKey)\(notNull)\(folded) >= ? AND \(folded) <= ?)"

        case .in:
            guard case .list(let elements) = rhs else { throw decline("IN with something other than a list") }
            var values: [SQLiteParameter] = []
            var hasNull = false
            for element in elements {
                guard case .constant(let value) = element else { throw decline("IN with a non-constant element") }
                if value.isNull {
                    hasNull = true
                } else {
                    values.append(try compatibleParameter(value, kind: kind, options: options))
                }
            }
            var parts: [String] = []
            if hasNull && isNullable { parts.append("(\(nullKey)\(expression) IS NULL)") }
            if !values.isEmpty {
                parts.append(
                    "(\(numberKey)\(notNull)\(folded) IN (\(Array(repeating: "?", count: values.count).joined(separator: ", "))))"
                )
                parameters += values
            }
            return parts.isEmpty ? "0" : "(" + parts.joined(separator: " OR ") + ")"

        case .beginsWith, .endsWith, .contains, .like, .matches:
            guard kind == .string else { throw decline("\(op.rawValue) on a \(kind) attribute") }
            guard case .constant(let value) = rhs else { throw decline("\(op.rawValue) with a non-constant") }
            if value.isNull { return "0" }
            guard case .string(let text) = value else { throw decline("\(op.rawValue) with a non-string operand") }
            if [.beginsWith, .endsWith, .contains].contains(op) && StringFolding.fold(text, options).isEmpty {
                // Every string starts with, ends with and contains the empty string.
                return "(\(expression) IS NOT NULL)"
            }
            switch op {
            case .beginsWith, .endsWith:
                let pattern = StringFolding.fold(text, options)
                let length = Int64(pattern.unicodeScalars.count)
                parameters.append(.integer(op == .beginsWith ? 1 : -length))
                if op == .beginsWith { parameters.append(.integer(length)) }
                parameters.append(.text(pattern))
                return op == .beginsWith
                    ? "(\(notNull)substr(\(folded), ?, ?) = ?)"
                    : "(\(notNull)substr(\(folded), ?) = ?)"
            case .contains:
                parameters.append(.text(StringFolding.fold(text, options)))
                return "(\(notNull)instr(\(folded), ?) > 0)"
            case .like:
                parameters.append(.text(text))
                return "(\(notNull)strata_like(\(expression), ?, \(options.rawValue)) = 1)"
            default:
                guard (try? StringMatching.matches("", text, options: options)) != nil else {
                    throw decline("an invalid regular expression")
                }
                parameters.append(.text(text))
                return "(\(notNull)strata_matches(\(expression), ?, \(options.rawValue)) = 1)"
            }
        }
    }
}
