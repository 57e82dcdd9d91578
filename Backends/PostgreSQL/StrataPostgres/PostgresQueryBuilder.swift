import Foundation
import StrataCore

/// Translates a ``FetchRequest`` into one PostgreSQL statement with the in-memory evaluator's
/// semantics (docs/PredicateSemantics.md), or declines.
///
/// Every comparison the builder can decide is written so that it is never `NULL`
/// (`x IS NOT NULL AND ...`, `IS DISTINCT FROM`), so `NOT`, `AND` and `OR` keep two-valued logic.
/// A comparison PostgreSQL cannot decide exactly for every row is written so that it is `NULL`
/// ("undecided") on the rows it cannot decide: `[c]`/`[d]` on text that is not ASCII
/// (PostgreSQL's `lower()` and `unaccent` are not Unicode case folding: `ß` folds to `ss`), and
/// `MATCHES` (ICU's expressions are not PostgreSQL's). `NOT`, `AND` and `OR` then follow
/// three-valued logic, so a row whose predicate is `FALSE` is certainly out; the query returns
/// the rest as candidates (``PostgresQuery/Answer/candidates``) and the evaluator decides them.
///
/// Whatever cannot be written at all throws ``Decline``; the store then answers the request in
/// memory.
struct PostgresQueryBuilder {
    /// The request (or a part of it) cannot be evaluated in SQL.
    struct Decline: Error {
        let reason: String
    }

    /// A boolean SQL expression and whether it can be `NULL` (undecided) on some rows.
    struct Condition {
        var sql: String
        var isDecided: Bool

        static let alwaysTrue = Condition(sql: "TRUE", isDecided: true)
        static let alwaysFalse = Condition(sql: "FALSE", isDecided: true)
        static func decided(_ sql: String) -> Condition { Condition(sql: sql, isDecided: true) }
    }

    let schema: PostgresSchema
    let storeIdentifier: String
    private(set) var parameters: [PostgresParameter] = []
    private var aliasCounter = 0
    /// Whether a dictionary query selects each object's primary key after the properties (for an
    /// aggregate query that orders its groups by their first object).
    var selectsPrimaryKeyAfterProperties = false

    init(schema: PostgresSchema, storeIdentifier: String) {
        self.schema = schema
        self.storeIdentifier = storeIdentifier
    }

    /// An alias scope: a table, its alias and the LEFT JOINs for to-one key paths from it.
    final class Scope {
        let table: PostgresEntityTable
        let alias: String
        var joins: [String] = []
        var joined: [String: (alias: String, table: PostgresEntityTable)] = [:]
        init(table: PostgresEntityTable, alias: String) {
            self.table = table
            self.alias = alias
        }
    }

    private mutating func newAlias(_ prefix: String) -> String {
        aliasCounter += 1
        return "\(prefix)\(aliasCounter)"
    }

    private func decline(_ reason: String) -> Decline { Decline(reason: reason) }

    /// Binds `parameter` and returns its placeholder.
    private mutating func bind(_ parameter: PostgresParameter) -> String {
        parameters.append(parameter)
        return "$\(parameters.count)"
    }

    private func q(_ identifier: String) -> String { pq(identifier) }

    // MARK: Whole request

    /// Builds the query for `request` on `table`; snapshot rows select ``PostgresEntityTable/selectList``.
    mutating func build(_ request: FetchRequest, table: PostgresEntityTable) throws -> PostgresQuery {
        let scope = Scope(table: table, alias: "t0")
        var filters: [String] = []
        var decided = true
        if let ids = request.objectIDs {
            let keys = ids.compactMap { id -> Int64? in
                guard id.entityName == table.name, id.storeIdentifier == storeIdentifier else { return nil }
                return id.primaryKey
            }
            if keys.isEmpty {
                filters.append("FALSE")
            } else if keys.count == 1 {
                filters.append("t0.\(q("_pk")) = \(bind(.int64(keys[0])))")
            } else {
                filters.append("t0.\(q("_pk")) = ANY(\(bind(.int64Array(keys))))")
            }
        }
        if let predicate = request.predicate {
            guard predicate.depth() <= ObjectPredicate.maximumDepth else {
                throw decline("the predicate nests more than \(ObjectPredicate.maximumDepth) levels deep")
            }
            let condition = try translate(predicate, in: scope)
            decided = condition.isDecided
            if condition.sql != "TRUE" {
                filters.append(decided ? condition.sql : "(\(condition.sql)) IS NOT FALSE")
            }
        }
        // Sorts with string options compare folded text, which only the evaluator folds exactly.
        if request.sorts.contains(where: { !$0.options.isEmpty }) { decided = false }

        guard decided else {
            var sql = "SELECT \(table.selectList) FROM \(table.qualified) AS t0"
            for join in scope.joins { sql += " " + join }
            if !filters.isEmpty { sql += " WHERE " + filters.joined(separator: " AND ") }
            return PostgresQuery(sql: sql, parameters: parameters, answer: .candidates)
        }

        var orderTerms: [String] = []
        for sort in request.sorts { orderTerms += try sortTerms(sort, in: scope) }
        orderTerms.append("t0.\(q("_pk"))")

        var dictionaryColumns: [(key: String, type: AttributeType)] = []
        let columns: String
        switch request.resultType {
        case .snapshots:
            columns = table.selectList
        case .objectIDs, .count:
            columns = "t0.\(q("_pk"))"
        case .dictionaries:
            var expressions: [String] = []
            for path in request.propertiesToFetch {
                guard case .attribute(let expression, let attribute) = try resolve(path.components[...], in: scope)
                else {
                    throw decline("a property to fetch (\(path)) is not an attribute")
                }
                expressions.append(expression)
                dictionaryColumns.append((path.description, attribute.type))
            }
            if selectsPrimaryKeyAfterProperties || expressions.isEmpty { expressions.append("t0.\(q("_pk"))") }
            columns = expressions.joined(separator: ", ")
        }

        let isPaged = request.limit != nil || request.offset > 0
        var sql = "SELECT \(columns) FROM \(table.qualified) AS t0"
        for join in scope.joins { sql += " " + join }
        if !filters.isEmpty { sql += " WHERE " + filters.joined(separator: " AND ") }
        if request.resultType != .count || isPaged {
            sql += " ORDER BY " + orderTerms.joined(separator: ", ")
        }
        if let limit = request.limit { sql += " LIMIT \(bind(.int64(Int64(limit))))" }
        if request.offset > 0 { sql += " OFFSET \(bind(.int64(Int64(request.offset))))" }
        if request.resultType == .count {
            sql = isPaged ? "SELECT count(*) FROM (\(sql)) AS page" : sql.replacingFirst(columns, with: "count(*)")
        }
        return PostgresQuery(sql: sql, parameters: parameters, answer: .exact, dictionaryColumns: dictionaryColumns)
    }

    /// The condition on `table`, aliased `t0`, that holds exactly for the rows `predicate`
    /// matches (`TRUE` for none), for a statement that changes them in place: `nil` when SQL
    /// cannot decide the predicate, or needs a join to (a to-one key path).
    mutating func exactCondition(_ predicate: ObjectPredicate?, table: PostgresEntityTable) -> String? {
        guard let predicate else { return "TRUE" }
        guard predicate.depth() <= ObjectPredicate.maximumDepth else { return nil }
        let scope = Scope(table: table, alias: "t0")
        guard let condition = try? translate(predicate, in: scope), condition.isDecided, scope.joins.isEmpty else {
            return nil
        }
        return condition.sql
    }

    /// The ORDER BY terms of `sort`: the evaluator's order (null first ascending, last
    /// descending; NaN before every number), then by the column.
    private mutating func sortTerms(_ sort: Sort, in scope: Scope) throws -> [String] {
        guard case .attribute(let expression, let attribute) = try resolve(sort.keyPath.components[...], in: scope)
        else {
            throw decline("sort key \(sort.keyPath) is not an attribute")
        }
        let direction = sort.ascending ? "ASC" : "DESC"
        let nulls = sort.ascending ? "NULLS FIRST" : "NULLS LAST"
        // A required attribute of the fetched entity itself holds no NULL: the plain column
        // order lets a model index serve the sort.
        let mayBeNull = attribute.isOptional || !expression.hasPrefix("t0.")
        switch attribute.type {
        case .double, .float, .decimal:
            let number = Self.numericExpression(expression, attribute.type)
            // NULL, then NaN (`x = 'NaN'` is true), then numbers; reversed when descending.
            return [
                "(\(number) = 'NaN'::float8) \(sort.ascending ? "DESC" : "ASC") \(nulls)", "\(number) \(direction)",
            ]
        case .string, .uri:
            return ["\(expression) COLLATE \"C\" \(direction)" + (mayBeNull ? " \(nulls)" : "")]
        default:
            return ["\(expression) \(direction)" + (mayBeNull ? " \(nulls)" : "")]
        }
    }

    /// The expression that compares as the evaluator compares numbers: doubles as they are,
    /// floats and decimals as `Double`.
    static func numericExpression(_ expression: String, _ type: AttributeType) -> String {
        switch type {
        case .float, .decimal: return "\(expression)::float8"
        default: return expression
        }
    }

    // MARK: Key paths

    enum Resolved {
        /// An attribute's value expression.
        case attribute(String, Attribute)
        /// A to-one relationship: the expression of the target's key (NULL when none).
        case toOne(String, Relationship)
        /// A to-many relationship of the object at `alias` in `table`.
        case toMany(alias: String, table: PostgresEntityTable, index: Int)
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
            if isLast { return .toOne(try targetKeyExpression(alias: alias, table: table, index: index), relationship) }
            prefix += "." + name
            if let existing = scope.joined[prefix] {
                (alias, table) = existing
                continue
            }
            guard let destination = schema.tables[relationship.destination] else {
                throw decline("unknown destination")
            }
            let joinAlias = newAlias("j")
            let key = try targetKeyExpression(alias: alias, table: table, index: index)
            scope.joins.append(
                "LEFT JOIN \(destination.qualified) AS \(joinAlias) ON \(joinAlias).\(q("_pk")) = \(key)")
            scope.joined[prefix] = (joinAlias, destination)
            alias = joinAlias
            table = destination
        }
        throw decline("an empty key path")
    }

    /// The expression of the key of a to-one relationship's target.
    private func targetKeyExpression(alias: String, table: PostgresEntityTable, index: Int) throws -> String {
        switch table.relationshipStorage[index] {
        case .foreignKey(let column):
            return "\(alias).\(q(column))"
        case .derivedToOne(let other, let column):
            return
                "(SELECT o.\(q("_pk")) FROM \(other) AS o WHERE o.\(q(column)) = \(alias).\(q("_pk")) ORDER BY o.\(q("_pk")) LIMIT 1)"
        default:
            throw decline("unexpected storage of a to-one relationship")
        }
    }

    /// The source listing the targets of a to-many relationship of the object at `alias`.
    private mutating func targetsSource(alias: String, table: PostgresEntityTable, index: Int, joinTargets: Bool) throws
        -> (
            from: String, ownerCondition: String, targetKey: String, targetAlias: String?,
            destination: PostgresEntityTable
        )
    {
        let relationship = table.entity.relationships[index]
        guard let destination = schema.tables[relationship.destination] else { throw decline("unknown destination") }
        switch table.relationshipStorage[index] {
        case .foreignKeyToMany(_, let column, _):
            let target = newAlias("s")
            return (
                "\(destination.qualified) AS \(target)", "\(target).\(q(column)) = \(alias).\(q("_pk"))",
                "\(target).\(q("_pk"))", target, destination
            )
        case .joinTable(let join):
            let link = newAlias("x")
            let condition = "\(link).\(q(join.ownColumn)) = \(alias).\(q("_pk"))"
            let key = "\(link).\(q(join.targetColumn))"
            guard joinTargets else { return ("\(join.qualified) AS \(link)", condition, key, nil, destination) }
            let target = newAlias("s")
            return (
                "\(join.qualified) AS \(link) JOIN \(destination.qualified) AS \(target) ON \(target).\(q("_pk")) = \(key)",
                condition, "\(target).\(q("_pk"))", target, destination
            )
        default:
            throw decline("unexpected storage of a to-many relationship")
        }
    }

    // MARK: Predicates

    /// The condition of `predicate`: two-valued where decided, `NULL` on rows it leaves undecided.
    mutating func translate(_ predicate: ObjectPredicate, in scope: Scope) throws -> Condition {
        switch predicate {
        case .alwaysTrue: return .alwaysTrue
        case .alwaysFalse: return .alwaysFalse
        case .not(let inner):
            let condition = try translate(inner, in: scope)
            return Condition(sql: "(NOT \(condition.sql))", isDecided: condition.isDecided)
        case .and(let parts):
            return try junction(parts, and: true, in: scope)
        case .or(let parts):
            return try junction(parts, and: false, in: scope)
        case .comparison(let comparison):
            switch comparison.modifier {
            case .direct:
                return try direct(comparison.lhs, comparison.op, comparison.rhs, comparison.options, in: scope)
            case .any, .all, .none:
                return try aggregate(comparison, in: scope)
            }
        }
    }

    /// An `AND` (or `OR`) of `parts`, nested lists of the same kind spliced in (PostgreSQL's parser
    /// reads a flat list of any length).
    private mutating func junction(_ parts: [ObjectPredicate], and: Bool, in scope: Scope) throws -> Condition {
        var terms: [String] = []
        var decided = true
        var pending: [ObjectPredicate] = parts.reversed()
        while let part = pending.popLast() {
            switch part {
            case .and(let inner) where and, .or(let inner) where !and:
                pending += inner.reversed()
            default:
                let condition = try translate(part, in: scope)
                decided = decided && condition.isDecided
                terms.append(condition.sql)
            }
        }
        if terms.isEmpty { return and ? .alwaysTrue : .alwaysFalse }
        if terms.count == 1 { return Condition(sql: terms[0], isDecided: decided) }
        return Condition(sql: "(" + terms.joined(separator: and ? " AND " : " OR ") + ")", isDecided: decided)
    }

    /// `ANY`/`ALL`/`NONE` over a key path through one or more to-many relationships: `ANY` is
    /// `EXISTS(... cond)`, `ALL` is `NOT EXISTS(... NOT cond)`, `NONE` is `NOT EXISTS(... cond)`,
    /// one nested `EXISTS` per to-many step.
    private mutating func aggregate(_ comparison: ObjectPredicate.Comparison, in scope: Scope) throws -> Condition {
        guard case .keyPath(let path) = comparison.lhs else {
            throw decline("\(comparison.modifier.rawValue) needs a key path")
        }
        guard firstToManyStep(path.components[...], from: scope.table) != nil else {
            throw decline("\(comparison.modifier.rawValue) over a key path without a to-many relationship")
        }
        let components = path.components[...]
        switch comparison.modifier {
        case .any:
            return try exists(components, in: scope, comparison, negated: false)
        case .all:
            let inner = try exists(components, in: scope, comparison, negated: true)
            return Condition(sql: "(NOT \(inner.sql))", isDecided: inner.isDecided)
        default:
            let inner = try exists(components, in: scope, comparison, negated: false)
            return Condition(sql: "(NOT \(inner.sql))", isDecided: inner.isDecided)
        }
    }

    /// The offset of the first to-many step reached through to-ones from `table`, or `nil`.
    private func firstToManyStep(_ components: ArraySlice<String>, from table: PostgresEntityTable) -> Int? {
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

    /// Whether some target of the first to-many step of `components` satisfies the comparison
    /// (negated when asked). When the inner condition is undecided on some targets, the answer
    /// is three-valued: TRUE when a target certainly satisfies it, NULL when none certainly does
    /// but some may, FALSE otherwise.
    private mutating func exists(
        _ components: ArraySlice<String>, in scope: Scope, _ comparison: ObjectPredicate.Comparison, negated: Bool
    ) throws -> Condition {
        guard let offset = firstToManyStep(components, from: scope.table) else { throw decline("no to-many step") }
        let split = components.startIndex + offset
        guard case .toMany(let alias, let owner, let index) = try resolve(components[...split], in: scope) else {
            throw decline("unexpected key path")
        }
        let rest = components[(split + 1)...]
        let source = try targetsSource(alias: alias, table: owner, index: index, joinTargets: true)
        let inner = Scope(table: source.destination, alias: source.targetAlias!)
        var condition: Condition
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
            if negated { condition.sql = "(NOT \(condition.sql))" }
        }
        let from = ([source.from] + inner.joins).joined(separator: " ")
        let some = "EXISTS (SELECT 1 FROM \(from) WHERE \(source.ownerCondition) AND \(condition.sql))"
        guard !condition.isDecided else { return .decided(some) }
        let maybe = "EXISTS (SELECT 1 FROM \(from) WHERE \(source.ownerCondition) AND (\(condition.sql)) IS NULL)"
        return Condition(sql: "(CASE WHEN \(some) THEN TRUE WHEN \(maybe) THEN NULL ELSE FALSE END)", isDecided: false)
    }

    private mutating func direct(
        _ lhs: ObjectPredicate.Operand, _ op: ObjectPredicate.Operator, _ rhs: ObjectPredicate.Operand,
        _ options: ObjectPredicate.Options, in scope: Scope
    ) throws -> Condition {
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
            return try scalarComparison(count, type: .integer64, isNullable: false, op, rhs, [])
        case .keyPath(let path):
            switch try resolve(path.components[...], in: scope) {
            case .attribute(let expression, let attribute):
                return try scalarComparison(expression, type: attribute.type, isNullable: true, op, rhs, options)
            case .toOne(let expression, let relationship):
                guard options.isEmpty else { throw decline("options on a relationship") }
                return try objectComparison(expression, entityName: relationship.destination, op, rhs)
            case .toMany(let alias, let owner, let index):
                guard op == .contains, options.isEmpty, case .objectID(let id) = rhs else {
                    throw decline("a to-many key path is only compared with CONTAINS of an object")
                }
                let key = try objectKey(id, entityName: owner.entity.relationships[index].destination)
                let source = try targetsSource(alias: alias, table: owner, index: index, joinTargets: false)
                return .decided(
                    "EXISTS (SELECT 1 FROM \(source.from) WHERE \(source.ownerCondition) AND \(source.targetKey) = \(bind(.int64(key))))"
                )
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
    ) throws -> Condition {
        switch (op, rhs) {
        case (.equal, .constant(.null)): return .decided("(\(expression) IS NULL)")
        case (.notEqual, .constant(.null)): return .decided("(\(expression) IS NOT NULL)")
        case (.equal, .objectID(let id)):
            let key = try objectKey(id, entityName: entityName)
            return .decided("(\(expression) IS NOT NULL AND \(expression) = \(bind(.int64(key))))")
        case (.notEqual, .objectID(let id)):
            let key = try objectKey(id, entityName: entityName)
            return .decided("(\(expression) IS DISTINCT FROM \(bind(.int64(key))))")
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
                parts.append("(\(expression) IS NOT NULL AND \(expression) = ANY(\(bind(.int64Array(keys)))))")
            }
            return .decided(parts.isEmpty ? "FALSE" : "(" + parts.joined(separator: " OR ") + ")")
        default:
            throw decline("\(op.rawValue) between objects")
        }
    }

    /// Compares an attribute (or count) expression of `type` with constants.
    private mutating func scalarComparison(
        _ expression: String, type: AttributeType, isNullable: Bool, _ op: ObjectPredicate.Operator,
        _ rhs: ObjectPredicate.Operand, _ options: ObjectPredicate.Options
    ) throws -> Condition {
        let domain = PostgresComparisonDomain(type)
        if !options.isEmpty && domain != .text {
            throw decline("string options on a \(type) attribute")
        }
        let notNull = isNullable ? "\(expression) IS NOT NULL AND " : ""
        if domain == .text && (!options.isEmpty || op == .matches) {
            return try foldedTextComparison(expression, op, rhs, options)
        }
        switch op {
        case .equal, .notEqual:
            guard case .constant(let value) = rhs else { throw decline("\(op.rawValue) with a non-constant") }
            if value.isNull {
                return .decided(op == .equal ? "(\(expression) IS NULL)" : "(\(expression) IS NOT NULL)")
            }
            guard let operand = try domain.operand(value, type: type, for: .equal) else {
                // The value equals no stored value (NaN, a date between microseconds).
                return op == .equal ? .alwaysFalse : .alwaysTrue
            }
            let column = domain.columnExpression(expression, type: type, operandIsFloat: operand.isFloat)
            let placeholder = bind(operand.parameter)
            if op == .equal { return .decided("(\(notNull)\(column) = \(placeholder))") }
            return .decided("(\(column) IS DISTINCT FROM \(placeholder))")

        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            guard case .constant(let value) = rhs else { throw decline("\(op.rawValue) with a non-constant") }
            guard domain.isOrdered(type) else { throw decline("ordering a \(type) attribute") }
            if value.isNull { return .alwaysFalse }
            guard let operand = try domain.operand(value, type: type, for: op) else { return .alwaysFalse }
            return .decided(
                "(\(notNull)\(orderedComparison(expression, type: type, domain: domain, op, operand)))")

        case .between:
            guard case .list(let bounds) = rhs, bounds.count == 2,
                case .constant(let low) = bounds[0], case .constant(let high) = bounds[1], !low.isNull, !high.isNull
            else {
                throw decline("BETWEEN needs two non-nil constants")
            }
            guard domain.isOrdered(type) else { throw decline("ordering a \(type) attribute") }
            guard let lower = try domain.operand(low, type: type, for: .greaterOrEqual),
                let upper = try domain.operand(high, type: type, for: .lessOrEqual)
            else { return .alwaysFalse }
            let first = orderedComparison(expression, type: type, domain: domain, .greaterOrEqual, lower)
            let second = orderedComparison(expression, type: type, domain: domain, .lessOrEqual, upper)
            return .decided("(\(notNull)\(first) AND \(second))")

        case .in:
            guard case .list(let elements) = rhs else { throw decline("IN with something other than a list") }
            var values: [Value] = []
            var hasNull = false
            for element in elements {
                guard case .constant(let value) = element else { throw decline("IN with a non-constant element") }
                if value.isNull { hasNull = true } else { values.append(value) }
            }
            var parts: [String] = []
            if hasNull && isNullable { parts.append("(\(expression) IS NULL)") }
            if let list = try domain.arrayOperand(values, type: type) {
                let column = domain.columnExpression(expression, type: type, operandIsFloat: list.isFloat)
                parts.append("(\(notNull)\(column) = ANY(\(bind(list.parameter))))")
            }
            return .decided(parts.isEmpty ? "FALSE" : "(" + parts.joined(separator: " OR ") + ")")

        case .beginsWith, .endsWith, .contains, .like:
            guard domain == .text, type == .string else { throw decline("\(op.rawValue) on a \(type) attribute") }
            guard case .constant(let value) = rhs else { throw decline("\(op.rawValue) with a non-constant") }
            if value.isNull { return .alwaysFalse }
            guard case .string(let text) = value else { throw decline("\(op.rawValue) with a non-string operand") }
            guard let pattern = PostgresLikePattern(op, text) else {
                throw decline("a text constant PostgreSQL cannot hold (a NUL character)")
            }
            if pattern.matchesEverything { return .decided("(\(expression) IS NOT NULL)") }
            return .decided(
                "(\(notNull)\(expression) COLLATE \"C\" LIKE \(bind(.text(pattern.sql))))")

        case .matches:
            throw decline("MATCHES on a \(type) attribute")
        }
    }

    /// `expression op operand` in the evaluator's order; doubles guard against NaN, which
    /// PostgreSQL orders above every number but the evaluator orders with nothing.
    private mutating func orderedComparison(
        _ expression: String, type: AttributeType, domain: PostgresComparisonDomain, _ op: ObjectPredicate.Operator,
        _ operand: PostgresComparisonDomain.Operand
    ) -> String {
        let column = domain.columnExpression(expression, type: type, operandIsFloat: operand.isFloat)
        let symbol: String
        switch op {
        case .less: symbol = "<"
        case .lessOrEqual: symbol = "<="
        case .greater: symbol = ">"
        default: symbol = ">="
        }
        let collation = domain == .text ? " COLLATE \"C\"" : ""
        let placeholder = bind(operand.parameter)
        let nanGuard =
            operand.isFloat && (op == .greater || op == .greaterOrEqual) ? " AND \(column) <> 'NaN'::float8" : ""
        return "\(column)\(collation) \(symbol) \(placeholder)\(nanGuard)"
    }

    /// A string comparison with `[c]`/`[d]`, or `MATCHES`: decided in SQL on ASCII text (where
    /// folding is ASCII lower case for `[c]` and nothing for `[d]`), undecided (NULL) elsewhere;
    /// `MATCHES` is undecided on every non-null value.
    private mutating func foldedTextComparison(
        _ expression: String, _ op: ObjectPredicate.Operator, _ rhs: ObjectPredicate.Operand,
        _ options: ObjectPredicate.Options
    ) throws -> Condition {
        let notNull = "\(expression) IS NOT NULL"
        func undecidedUnlessASCII(_ decided: String) -> Condition {
            Condition(
                sql:
                    "(\(notNull) AND CASE WHEN octet_length(\(expression)) = char_length(\(expression)) THEN \(decided) END)",
                isDecided: false)
        }
        let folded =
            options.contains(.caseInsensitive) ? "lower(\(expression) COLLATE \"C\")" : "\(expression) COLLATE \"C\""
        func foldedText(_ value: Value) throws -> String {
            guard case .string(let text) = value else { throw decline("\(op.rawValue) with a non-string operand") }
            let folded = StringFolding.fold(text, options)
            guard !PostgresLikePattern.needsEscaping(folded) else {
                throw decline("a U+0000 or U+FFFE character in a text constant")
            }
            return folded
        }
        switch op {
        case .matches:
            guard case .constant(let value) = rhs else { throw decline("MATCHES with a non-constant") }
            if value.isNull { return .alwaysFalse }
            guard case .string(let pattern) = value,
                (try? StringMatching.RegexPattern(pattern, options: options)) != nil
            else {
                throw decline("an invalid regular expression")
            }
            return Condition(sql: "(\(notNull) AND NULL::boolean)", isDecided: false)
        case .equal, .notEqual:
            guard case .constant(let value) = rhs else { throw decline("\(op.rawValue) with a non-constant") }
            if value.isNull {
                return .decided(op == .equal ? "(\(expression) IS NULL)" : "(\(expression) IS NOT NULL)")
            }
            let text = try foldedText(value)
            let placeholder = bind(.text(text))
            if op == .equal { return undecidedUnlessASCII("\(folded) = \(placeholder)") }
            // NULL != "x" is true: decided for NULL, undecided for non-ASCII text.
            return Condition(
                sql:
                    "(\(expression) IS NULL OR CASE WHEN octet_length(\(expression)) = char_length(\(expression)) THEN \(folded) <> \(placeholder) END)",
                isDecided: false)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            guard case .constant(let value) = rhs else { throw decline("\(op.rawValue) with a non-constant") }
            if value.isNull { return .alwaysFalse }
            let text = try foldedText(value)
            let symbol = [.less: "<", .lessOrEqual: "<=", .greater: ">", .greaterOrEqual: ">="][op]!
            return undecidedUnlessASCII("\(folded) \(symbol) \(bind(.text(text)))")
        case .between:
            guard case .list(let bounds) = rhs, bounds.count == 2,
                case .constant(let low) = bounds[0], case .constant(let high) = bounds[1], !low.isNull, !high.isNull
            else {
                throw decline("BETWEEN needs two non-nil text constants")
            }
            let lower = try foldedText(low)
            let upper = try foldedText(high)
            return undecidedUnlessASCII("\(folded) >= \(bind(.text(lower))) AND \(folded) <= \(bind(.text(upper)))")
        case .in:
            guard case .list(let elements) = rhs else { throw decline("IN with something other than a list") }
            var texts: [String] = []
            var hasNull = false
            for element in elements {
                guard case .constant(let value) = element else { throw decline("IN with a non-constant element") }
                if value.isNull {
                    hasNull = true
                } else {
                    texts.append(try foldedText(value))
                }
            }
            var parts: [String] = []
            if hasNull { parts.append("(\(expression) IS NULL)") }
            if !texts.isEmpty {
                parts.append(undecidedUnlessASCII("\(folded) = ANY(\(bind(.textArray(texts))))").sql)
            }
            return parts.isEmpty
                ? .alwaysFalse : Condition(sql: "(" + parts.joined(separator: " OR ") + ")", isDecided: texts.isEmpty)
        case .beginsWith, .endsWith, .contains, .like:
            guard case .constant(let value) = rhs else { throw decline("\(op.rawValue) with a non-constant") }
            if value.isNull { return .alwaysFalse }
            guard let pattern = PostgresLikePattern(op, try foldedText(value)) else {
                throw decline("a NUL character in a text constant")
            }
            if pattern.matchesEverything { return .decided("(\(expression) IS NOT NULL)") }
            return undecidedUnlessASCII("\(folded) LIKE \(bind(.text(pattern.sql)))")
        }
    }
}

extension String {
    /// `self` with the first occurrence of `target` replaced.
    fileprivate func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = range(of: target) else { return self }
        return replacingCharacters(in: range, with: replacement)
    }
}
