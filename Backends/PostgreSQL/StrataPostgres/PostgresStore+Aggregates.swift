import StrataCore

extension PostgresStore: AggregateFetching {
    /// Answers an aggregate fetch in one SQL statement (``PostgresAggregateQuery``): the objects
    /// are filtered, joined, grouped and aggregated by PostgreSQL, and only the groups come back;
    /// their order, the having predicate, distinctness and paging are applied to the groups here,
    /// with the in-memory evaluation's rules. Requests SQL cannot answer exactly run in memory
    /// (``PersistentStore/fetchAggregatesInMemory(_:)``).
    ///
    /// - Throws: ``StrataError/Code/arithmeticOverflow`` for a sum of integers beyond `Int64`.
    public func fetchAggregatesNatively(_ request: AggregateRequest) throws -> [[String: Value]] {
        let layout = try request.layout(in: model)
        guard let table = schema.tables[request.entityName],
            let query = try? PostgresAggregateQuery(
                request, layout: layout, table: table, schema: schema, storeIdentifier: identifier)
        else {
            queryCounter.withLock { $0.inMemory += 1 }
            return try fetchAggregatesInMemory(request)
        }
        queryCounter.withLock { $0.native += 1 }
        let result = try pool.withConnection { try $0.query(query.sql, query.parameters) }
        var groups: [[Value]] = []
        groups.reserveCapacity(result.rowCount)
        for row in 0..<result.rowCount {
            var values: [Value] = []
            values.reserveCapacity(query.columns.count)
            for (index, column) in query.columns.enumerated() {
                values.append(try value(of: column, result, row: row, column: index, request: request))
            }
            groups.append(values)
        }
        return try AggregateEvaluation.finish(groups, of: request, layout: layout)
    }

    private func value(
        of column: PostgresAggregateQuery.Column, _ result: PostgresResult, row: Int, column index: Int,
        request: AggregateRequest
    ) throws -> Value {
        if result.isNull(row, index) { return .null }
        switch column {
        case .value(let kind): return try PostgresValueCoding.read(kind, result, row: row, column: index)
        case .count: return .integer(result.int64(row, index))
        case .double: return .double(result.double(row, index))
        case .integerSum:
            let text = result.numericText(row, index)
            guard let sum = Int64(text) else {
                throw StrataError(
                    .arithmeticOverflow, "a sum of '\(request.entityName)' exceeds the 64-bit integer range",
                    location: ["entity": request.entityName, "sum": text])
            }
            return .integer(sum)
        }
    }
}
