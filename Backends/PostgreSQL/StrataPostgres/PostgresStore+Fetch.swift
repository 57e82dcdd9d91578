import Foundation
import StrataCore

extension PostgresStore {
    /// Answers a fetch with one SQL statement (``PostgresQueryBuilder``), with the in-memory
    /// evaluator's answers:
    ///
    /// - what PostgreSQL decides exactly (every operator on every kind of attribute, through
    ///   to-one and to-many relationships, sorts, limit and offset) runs there, and only the
    ///   answer comes back;
    /// - with `[c]`/`[d]` on text that is not ASCII, or `MATCHES`, the statement returns every
    ///   object it cannot rule out, and the evaluator decides, sorts and pages those;
    /// - a request the builder cannot write (see docs/PostgreSQLStore.md) is answered by
    ///   ``PersistentStore/fetchInMemory(_:)``.
    ///
    /// ``queryCounts`` counts each way. The connection prepares each statement text once.
    public func fetch(_ request: FetchRequest) throws -> FetchResult {
        let table = try table(for: request.entityName)
        try request.checkUnlessValidated(for: model, entityIsKnown: true)
        if Self.isPlain(request) { return .snapshots(try snapshots(of: request.entityName, among: request.objectIDs)) }
        var builder = PostgresQueryBuilder(schema: schema, storeIdentifier: identifier)
        let query: PostgresQuery
        do {
            query = try builder.build(request, table: table)
        } catch is PostgresQueryBuilder.Decline {
            queryCounter.withLock { $0.inMemory += 1 }
            return try fetchInMemory(request.markedValidated(for: model))
        }
        let reader = self.reader(for: table)
        switch query.answer {
        case .exact:
            queryCounter.withLock { $0.native += 1 }
            return try run(query, request: request, reader: reader)
        case .candidates:
            queryCounter.withLock { $0.candidates += 1 }
            let candidates = try readSnapshots(query, reader: reader)
            var rest = request
            rest.objectIDs = nil
            let related = SnapshotCache(store: self)
            let evaluator = PredicateEvaluator(model: model, resolve: related.snapshot(for:))
            return try QueryEvaluation.run(rest, over: candidates, evaluator: evaluator)
        }
    }

    /// The reason ``fetch(_:)`` answers `request` in memory rather than in SQL, or `nil` when
    /// SQL answers it (in full, or its candidates). For diagnostics and tests.
    public func nativeEvaluationDeclineReason(_ request: FetchRequest) -> String? {
        guard let table = schema.tables[request.entityName] else { return "unknown entity '\(request.entityName)'" }
        if Self.isPlain(request) { return nil }
        var builder = PostgresQueryBuilder(schema: schema, storeIdentifier: identifier)
        do {
            _ = try builder.build(request, table: table)
            return nil
        } catch let decline as PostgresQueryBuilder.Decline {
            return decline.reason
        } catch {
            return "\(error)"
        }
    }

    /// How many fetches ``fetch(_:)`` answered in SQL, how many it decided in memory over the
    /// candidates SQL returned, and how many it answered in memory entirely; for tests.
    package var queryCounts: PostgresQueryCounts { queryCounter.withLock { $0 } }

    /// How many statements the store ran, and how many of them were a `COPY`; for tests.
    package var statementCounts: PostgresStatementCounts { pool.statementCounts }

    /// Whether `request` is every snapshot of an entity, optionally limited to some IDs.
    static func isPlain(_ request: FetchRequest) -> Bool {
        request.predicate == nil && request.sorts.isEmpty && request.limit == nil && request.offset == 0
            && request.resultType == .snapshots
    }

    /// Runs `query`, which answers `request` exactly.
    private func run(_ query: PostgresQuery, request: FetchRequest, reader: PostgresRowReader) throws -> FetchResult {
        switch request.resultType {
        case .snapshots:
            return .snapshots(try readSnapshots(query, reader: reader))
        case .objectIDs:
            let result = try pool.withConnection { try $0.query(query.sql, query.parameters) }
            let scope = ObjectID.Scope(entityName: reader.table.name, storeIdentifier: identifier)
            return .objectIDs((0..<result.rowCount).map { scope.id(primaryKey: result.int64($0, 0)) })
        case .count:
            let result = try pool.withConnection { try $0.query(query.sql, query.parameters) }
            return .count(result.rowCount > 0 ? Int(result.int64(0, 0)) : 0)
        case .dictionaries:
            let result = try pool.withConnection { try $0.query(query.sql, query.parameters) }
            let kinds = query.dictionaryColumns.map { PostgresColumnKind($0.type) }
            var rows: [[String: Value]] = []
            rows.reserveCapacity(result.rowCount)
            for row in 0..<result.rowCount {
                var values: [String: Value] = [:]
                for (column, entry) in query.dictionaryColumns.enumerated() {
                    values[entry.key] = try PostgresValueCoding.read(kinds[column], result, row: row, column: column)
                }
                rows.append(values)
            }
            return .dictionaries(rows)
        }
    }

    /// The snapshots `query` selects, with their to-many relationships read in the same
    /// transaction when there are any.
    private func readSnapshots(_ query: PostgresQuery, reader: PostgresRowReader) throws -> [Snapshot] {
        func read(on connection: PostgresConnection) throws -> [Snapshot] {
            var snapshots = try reader.snapshots(try connection.query(query.sql, query.parameters))
            try reader.fillToMany(&snapshots, on: connection)
            return snapshots
        }
        return reader.needsTransaction ? try inReadTransaction(read) : try pool.withConnection(read)
    }
}

/// How a PostgreSQL store answered its fetches (see ``PostgresStore/fetch(_:)``).
package struct PostgresQueryCounts: Sendable, Equatable {
    /// Answered in SQL entirely.
    package var native = 0
    /// SQL returned the candidates; the evaluator decided them.
    package var candidates = 0
    /// Answered in memory entirely (the builder declined the request).
    package var inMemory = 0

    package init() {}
}
