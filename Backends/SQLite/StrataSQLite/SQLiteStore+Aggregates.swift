import StrataCore

extension SQLiteStore: AggregateFetching {
    /// Answers an aggregate fetch in one SQL statement (``SQLiteAggregateQuery``): the objects are
    /// filtered, joined, grouped and aggregated by SQLite, and only the groups come back; their
    /// order, the having predicate, distinctness and paging are applied to the groups here, with
    /// the in-memory evaluation's rules. Requests SQL cannot answer exactly run in memory
    /// (``PersistentStore/fetchAggregatesInMemory(_:)``).
    ///
    /// - Throws: ``StrataError/Code/arithmeticOverflow`` for a sum of integers beyond `Int64`.
    public func fetchAggregatesNatively(_ request: AggregateRequest) throws -> [[String: Value]] {
        let layout = try request.layout(in: model)
        guard let table = schema.tables[request.entityName],
            let query = try? SQLiteAggregateQuery(
                request, layout: layout, table: table, schema: schema, storeIdentifier: identifier)
        else { return try fetchAggregatesInMemory(request) }
        let groups = try withReader { connection -> [[Value]]? in
            let statement: SQLiteStatement
            do {
                statement = try connection.prepare(query.sql)
            } catch {
                return nil
            }
            statement.bind(query.parameters)
            defer { statement.reset() }
            var rows: [[Value]] = []
            do {
                while try statement.step() {
                    rows.append(
                        try query.kinds.indices.map {
                            try SQLiteValueCoding.read(query.kinds[$0], at: Int32($0), from: statement)
                        })
                }
            } catch let error as StrataError where (error.underlying ?? error.message).contains("integer overflow") {
                throw StrataError(
                    .arithmeticOverflow,
                    "a sum of '\(request.entityName)' exceeds the 64-bit integer range",
                    location: ["entity": request.entityName], underlying: error.underlying ?? error.message)
            }
            return rows
        }
        guard let groups else { return try fetchAggregatesInMemory(request) }
        return try AggregateEvaluation.finish(groups, of: request, layout: layout)
    }
}
