import StrataCore

/// The SQL of an aggregate fetch: the builder's query for the objects (entity, IDs, predicate,
/// the key paths read, with its joins and bound values) as a common table expression, grouped and
/// aggregated over it.
///
/// ```sql
/// WITH src(c0, c1, pk) AS (SELECT j1."name", t0."level", t0."_pk" FROM "s"."Employee" AS t0 ...)
/// SELECT (array_agg(c0 ORDER BY pk))[1], count(*), coalesce(sum(c1::numeric), 0), c0 FROM src GROUP BY c0
/// ```
///
/// Each result column reads as the in-memory evaluation's value: integer sums are exact (summed
/// as `numeric`, beyond `Int64` an overflow), sums of no values are zero, a group's value is its
/// first object's, and NaN is the smallest number for minimum and maximum (PostgreSQL orders it
/// above every number). The selected group keys come after the columns; the caller orders, filters
/// (having), deduplicates and pages the groups, which are few next to the objects. What SQL
/// cannot match exactly (a decimal, a minimum of binaries, a request without grouping, a predicate
/// SQL leaves undecided) declines, and the store answers in memory.
struct PostgresAggregateQuery {
    /// How to read one selected column.
    enum Column {
        /// A value of an attribute type.
        case value(PostgresColumnKind)
        /// A `numeric` integer sum, which must fit in `Int64`.
        case integerSum
        /// A `float8`.
        case double
        /// A `bigint` count.
        case count
    }

    var sql: String
    var parameters: [PostgresParameter]
    /// How to read each selected column: the request's columns, then the group keys.
    var columns: [Column]

    /// Builds the query for `request` (checked: `layout` is its layout) on `table`.
    ///
    /// - Throws: ``PostgresQueryBuilder/Decline`` for what SQL cannot answer exactly.
    init(
        _ request: AggregateRequest, layout: AggregateLayout, table: PostgresEntityTable, schema: PostgresSchema,
        storeIdentifier: String
    ) throws {
        func decline(_ reason: String) -> PostgresQueryBuilder.Decline { PostgresQueryBuilder.Decline(reason: reason) }
        // A distinct request of plain values is grouped by them, in the order of each group's first object.
        let isDistinctValues =
            !request.isGrouped && request.returnsDistinctResults && !request.propertiesToFetch.isEmpty
        guard request.isGrouped || isDistinctValues else {
            throw decline("no aggregate column or group key, and not distinct")
        }
        var paths: [PropertyPath] = []
        func column(_ path: PropertyPath) -> String {
            if let index = paths.firstIndex(of: path) { return "c\(index)" }
            paths.append(path)
            return "c\(paths.count - 1)"
        }
        var expressions: [String] = []
        var columns: [Column] = []
        for entry in layout.columns {
            let function = entry.property.function
            guard let path = entry.property.keyPath, let source = entry.sourceType else {
                expressions.append("count(*)")
                columns.append(.count)
                continue
            }
            if source == .decimal { throw decline("an aggregate of a decimal") }
            let c = column(path)
            let kind = PostgresColumnKind(source)
            let isFloat = source == .double || source == .float
            let isInteger = [.integer16, .integer32, .integer64].contains(source)
            let ordered = source == .string || source == .uri ? "\(c) COLLATE \"C\"" : c
            switch function.kind {
            case .value:
                expressions.append("(array_agg(\(c) ORDER BY pk))[1]")
                columns.append(.value(kind))
            case .count:
                expressions.append("count(\(c))")
                columns.append(.count)
            case .sum where isInteger:
                expressions.append("coalesce(sum(\(c)::numeric), 0)")
                columns.append(.integerSum)
            case .sum where isInteger || isFloat:
                expressions.append("coalesce(sum(\(c)::float8), 0)")
                columns.append(.double)
            case .average where isInteger || isFloat:
                expressions.append("avg(\(c)::float8)")
                columns.append(.double)
            case .minimum, .maximum:
                let isMinimum = function.kind == .minimum
                switch source {
                case .boolean:
                    expressions.append(isMinimum ? "bool_and(\(c))" : "bool_or(\(c))")
                case .binary, .uuid:
                    throw decline("a minimum or maximum of a \(source) attribute")
                case .double, .float:
                    let nan = "max(\(c)) FILTER (WHERE \(c) = 'NaN')"
                    expressions.append(
                        isMinimum
                            ? "coalesce(\(nan), min(\(c)))"
                            : "coalesce(max(\(c)) FILTER (WHERE \(c) <> 'NaN'), \(nan))")
                default:
                    expressions.append("\(isMinimum ? "min" : "max")(\(ordered))")
                }
                columns.append(.value(kind))
            default:
                throw decline("the aggregate function \(function) of a \(source) attribute")
            }
        }
        for key in layout.groupKeys {
            if key.type == .decimal { throw decline("a decimal group key") }
            expressions.append(column(key.path))
            columns.append(.value(PostgresColumnKind(key.type)))
        }
        var source = FetchRequest(
            entityName: request.entityName, predicate: request.predicate, objectIDs: request.objectIDs)
        source.resultType = .dictionaries
        source.propertiesToFetch = paths
        var builder = PostgresQueryBuilder(schema: schema, storeIdentifier: storeIdentifier)
        builder.selectsPrimaryKeyAfterProperties = true
        let inner = try builder.build(source, table: table)
        guard inner.answer == .exact else { throw decline("a predicate SQL leaves undecided") }
        let names = paths.indices.map { "c\($0)" } + ["pk"]
        var sql =
            "WITH src(\(names.joined(separator: ", "))) AS (\(inner.sql)) SELECT \(expressions.joined(separator: ", ")) FROM src"
        if !layout.groupKeys.isEmpty {
            sql += " GROUP BY " + layout.groupKeys.map { column($0.path) }.joined(separator: ", ")
        } else if isDistinctValues {
            sql += " GROUP BY " + paths.indices.map { "c\($0)" }.joined(separator: ", ") + " ORDER BY min(pk)"
        }
        self.sql = sql
        self.parameters = inner.parameters
        self.columns = columns
    }
}
