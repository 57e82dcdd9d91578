import StrataCore

/// The SQL of an aggregate fetch: the builder's query for the objects (entity, IDs, predicate,
/// the key paths read, with its joins and bound values) as a common table expression, grouped and
/// aggregated over it.
///
/// ```sql
/// WITH src(c0, c1) AS (SELECT t1."name", t0."level" FROM "Employee" AS t0 LEFT JOIN ... WHERE ...)
/// SELECT c0, count(*), coalesce(sum(c1), 0) FROM src GROUP BY c0
/// ```
///
/// Each result column reads as the in-memory evaluation's value: integer sums are exact (SQLite
/// raises its overflow error), sums of no values are zero, and doubles stored as the NaN marker
/// (SQLite cannot hold a NaN) are NaN in sums and averages and the smallest number for minimum and
/// maximum. The selected group keys come after the columns; the caller orders, filters (having),
/// deduplicates and pages the groups, which are few next to the objects. What SQL cannot match
/// exactly (a decimal, a request without grouping) declines, and the store answers in memory.
struct SQLiteAggregateQuery {
    /// The statement's text and parameters.
    var sql: String
    var parameters: [SQLiteParameter]
    /// How to read each selected column: the request's columns, then the group keys.
    var kinds: [SQLiteColumnKind]

    /// Builds the query for `request` (checked: `layout` is its layout) on `table`.
    ///
    /// - Throws: ``SQLiteQueryBuilder/Decline`` for what SQL cannot answer exactly.
    init(
        _ request: AggregateRequest, layout: AggregateLayout, table: SQLiteEntityTable, schema: SQLiteSchema,
        storeIdentifier: String
    ) throws {
        // A distinct request of plain values is grouped by them, in the order of each group's first object.
        let isDistinctValues =
            !request.isGrouped && request.returnsDistinctResults && !request.propertiesToFetch.isEmpty
        guard request.isGrouped || isDistinctValues else {
            throw SQLiteQueryBuilder.Decline(reason: "no aggregate column or group key, and not distinct")
        }
        var paths: [PropertyPath] = []
        func column(_ path: PropertyPath) -> String {
            if let index = paths.firstIndex(of: path) { return "c\(index)" }
            paths.append(path)
            return "c\(paths.count - 1)"
        }
        var expressions: [String] = []
        var kinds: [SQLiteColumnKind] = []
        for entry in layout.columns {
            let function = entry.property.function
            guard let path = entry.property.keyPath, let source = entry.sourceType else {
                expressions.append("count(*)")
                kinds.append(.integer)
                continue
            }
            if source == .decimal { throw SQLiteQueryBuilder.Decline(reason: "an aggregate of a decimal") }
            let c = column(path)
            let sourceKind = SQLiteColumnKind(source)
            let isReal = sourceKind == .double || sourceKind == .float || sourceKind == .date
            let hasNaN = "max(typeof(\(c)) = 'text')"
            let real = "(CASE WHEN typeof(\(c)) <> 'text' THEN \(c) END)"
            switch function {
            case .value:
                expressions.append(c)
                kinds.append(sourceKind)
            case .count:
                expressions.append("count(\(c))")
                kinds.append(.integer)
            case .sum where sourceKind == .integer:
                expressions.append("coalesce(sum(\(c)), 0)")
                kinds.append(.integer)
            case .sum:
                expressions.append("(CASE WHEN \(hasNaN) THEN 'NaN' ELSE total(\(real)) END)")
                kinds.append(.double)
            case .average:
                expressions.append(isReal ? "(CASE WHEN \(hasNaN) THEN 'NaN' ELSE avg(\(real)) END)" : "avg(\(c))")
                kinds.append(.double)
            case .minimum:
                expressions.append(isReal ? "(CASE WHEN \(hasNaN) THEN 'NaN' ELSE min(\(c)) END)" : "min(\(c))")
                kinds.append(sourceKind)
            case .maximum:
                expressions.append(
                    isReal ? "coalesce(max(\(real)), CASE WHEN \(hasNaN) THEN 'NaN' END)" : "max(\(c))")
                kinds.append(sourceKind)
            default:
                throw SQLiteQueryBuilder.Decline(reason: "the aggregate function \(function)")
            }
        }
        for key in layout.groupKeys {
            if key.type == .decimal { throw SQLiteQueryBuilder.Decline(reason: "a decimal group key") }
            expressions.append(column(key.path))
            kinds.append(SQLiteColumnKind(key.type))
        }
        var source = FetchRequest(
            entityName: request.entityName, predicate: request.predicate, objectIDs: request.objectIDs)
        if paths.isEmpty {
            source.resultType = .objectIDs
        } else {
            source.resultType = .dictionaries
            source.propertiesToFetch = paths
        }
        var builder = SQLiteQueryBuilder(schema: schema, storeIdentifier: storeIdentifier)
        builder.selectsPrimaryKeyAfterProperties = isDistinctValues
        let inner = try builder.build(source, table: table)
        var names = (0..<max(paths.count, 1)).map { "c\($0)" }
        if isDistinctValues { names.append("pk") }
        var sql =
            "WITH src(\(names.joined(separator: ", "))) AS (\(inner.sql)) SELECT \(expressions.joined(separator: ", ")) FROM src"
        if !layout.groupKeys.isEmpty {
            sql += " GROUP BY " + layout.groupKeys.map { column($0.path) }.joined(separator: ", ")
        } else if isDistinctValues {
            sql += " GROUP BY " + paths.indices.map { "c\($0)" }.joined(separator: ", ") + " ORDER BY min(pk)"
        }
        self.sql = sql
        self.parameters = inner.parameters
        self.kinds = kinds
    }
}
