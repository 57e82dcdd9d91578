import CStrataSQLite
import Foundation
import StrataCore

extension SQLiteStore {
    /// The stored snapshots of `entityName` (all, or those among `ids`), in key order, with
    /// their to-many relationships read in the same transaction.
    public func snapshots(of entityName: String, among ids: [ObjectID]?) throws -> [Snapshot] {
        try snapshots(in: try table(for: entityName), among: ids)
    }

    /// The stored snapshots of `table`'s entity (all, or those among `ids`), in key order.
    private func snapshots(in table: SQLiteEntityTable, among ids: [ObjectID]?) throws -> [Snapshot] {
        try withReader { connection in
            try readTransaction(on: connection, needed: !table.toManyIndexes.isEmpty) {
                try plainFetch(ids, table: table, on: connection)
            }
        }
    }

    /// Answers a fetch, planned once: the query builder translates the whole request into one
    /// SQL statement with the evaluator's exact semantics, run in one read transaction on a
    /// reader connection. A request it cannot translate (see docs/SQLiteStore.md), or whose
    /// statement SQLite refuses to compile (beyond its limits on expression depth, parser
    /// nesting, bound parameters, tables in a join or SQL length), is answered by
    /// ``PersistentStore/fetchInMemory(_:)`` instead.
    ///
    /// Each reader connection keeps the statements of the request shapes it ran (see
    /// ``SQLiteQueryShape``): a request of a shape seen before only binds its constants.
    public func fetch(_ request: FetchRequest) throws -> FetchResult {
        try fetch(request, reusingPlans: true)
    }

    /// ``fetch(_:)``, building the SQL anew unless `reusingPlans`: for tests that compare the two.
    package func fetch(_ request: FetchRequest, reusingPlans: Bool) throws -> FetchResult {
        let table = try table(for: request.entityName)
        try request.checkUnlessValidated(for: model, entityIsKnown: true)
        if Self.isPlain(request) { return .snapshots(try snapshots(in: table, among: request.objectIDs)) }
        let shaped = reusingPlans ? SQLiteQueryShape.of(request, table: table, storeIdentifier: identifier) : nil
        let readsToMany = request.resultType == .snapshots && !table.toManyIndexes.isEmpty
        let answer = try withReader { connection -> FetchResult? in
            guard let planned = try plan(request, shaped: shaped, table: table, on: connection) else { return nil }
            planned.plan.statement.bind(planned.parameters)
            return try readTransaction(on: connection, needed: readsToMany) {
                try run(planned.plan, request: request, table: table, on: connection)
            }
        }
        return try answer ?? fetchInMemory(request.markedValidated(for: model))
    }

    /// The plan of `request` on `connection` and the parameters to bind to it: the one the
    /// connection keeps for the request's shape, or one built now (and kept when the request
    /// has a shape); `nil` when the builder declines the request or SQLite refuses its SQL.
    private func plan(
        _ request: FetchRequest, shaped: (shape: SQLiteQueryShape, parameters: [SQLiteParameter])?,
        table: SQLiteEntityTable, on connection: SQLiteConnection
    ) throws -> (plan: SQLiteConnection.Plan, parameters: [SQLiteParameter])? {
        if let shaped, let plan = connection.plan(for: shaped.shape) { return (plan, shaped.parameters) }
        var builder = SQLiteQueryBuilder(schema: schema, storeIdentifier: identifier)
        let query: SQLiteQuery
        do {
            query = try builder.build(request, table: table)
        } catch is SQLiteQueryBuilder.Decline {
            return nil
        }
        queryBuilds.withLock { $0.builds += 1 }
        let statement: SQLiteStatement
        do {
            statement = try connection.prepare(query.sql)
        } catch let error as StrataError where Self.isRefusal(error) {
            return nil
        }
        let plan = SQLiteConnection.Plan(statement: statement, dictionaryColumns: query.dictionaryColumns)
        if let shaped {
            if shaped.parameters == query.parameters {
                connection.remember(plan, for: shaped.shape)
            } else {
                queryBuilds.withLock { $0.shapeMismatches += 1 }
            }
        }
        return (plan, query.parameters)
    }

    /// How many times ``fetch(_:)`` built SQL, and how many times the parameters a request's
    /// shape gave differed from the builder's (the shape is then not kept); for tests.
    package var queryBuildCounts: (builds: Int, shapeMismatches: Int) {
        queryBuilds.withLock { ($0.builds, $0.shapeMismatches) }
    }

    /// The reason ``fetch(_:)`` answers `request` in memory rather than in SQL, or `nil` when it
    /// runs it in SQL. For diagnostics and tests.
    public func nativeEvaluationDeclineReason(_ request: FetchRequest) -> String? {
        guard let table = schema.tables[request.entityName] else { return "unknown entity '\(request.entityName)'" }
        if Self.isPlain(request) { return nil }
        var builder = SQLiteQueryBuilder(schema: schema, storeIdentifier: identifier)
        let query: SQLiteQuery
        do {
            query = try builder.build(request, table: table)
        } catch let decline as SQLiteQueryBuilder.Decline {
            return decline.reason
        } catch {
            return "\(error)"
        }
        return sqliteRefusal(of: query.sql)
    }

    /// SQLite's reason for refusing to compile `sql` (a statement beyond its limits), or `nil`
    /// when it compiles it, or fails for another reason (I/O, a closed store) that the fetch
    /// itself will report.
    private func sqliteRefusal(of sql: String) -> String? {
        do {
            _ = try withReader { try $0.prepare(sql) }
            return nil
        } catch let error as StrataError where Self.isRefusal(error) {
            return "SQLite refuses the query: \(error.underlying ?? error.message)"
        } catch {
            return nil
        }
    }

    /// Whether `error`, thrown while preparing a statement, is SQLite refusing the statement
    /// itself (`SQLITE_ERROR`, `SQLITE_TOOBIG`) rather than a failure of the file or connection.
    private static func isRefusal(_ error: StrataError) -> Bool {
        guard let code = error.location["sqliteCode"].flatMap(Int32.init) else { return false }
        let primary = code & 0xFF
        return primary == SQLITE_ERROR || primary == SQLITE_TOOBIG
    }

    /// The table of `entityName`.
    ///
    /// - Throws: ``StrataError/Code/unknownEntity`` for an entity the model lacks.
    private func table(for entityName: String) throws -> SQLiteEntityTable {
        if let table = schema.tables[entityName] { return table }
        _ = try model.requireEntity(entityName)
        throw StrataError(.unknownEntity, "the model has no entity '\(entityName)'", location: ["entity": entityName])
    }

    /// Whether `request` is every snapshot of an entity, optionally limited to some IDs.
    static func isPlain(_ request: FetchRequest) -> Bool {
        request.predicate == nil && request.sorts.isEmpty && request.limit == nil && request.offset == 0
            && request.resultType == .snapshots
    }

    /// Runs `body` in a read transaction when several statements must see one state.
    func readTransaction<T>(on connection: SQLiteConnection, needed: Bool, _ body: () throws -> T) throws -> T {
        guard needed else { return try body() }
        try connection.execute("BEGIN")
        do {
            let result = try body()
            try connection.execute("COMMIT")
            return result
        } catch {
            connection.rollbackQuietly()
            throw error
        }
    }

    private func plainFetch(
        _ ids: [ObjectID]?, table: SQLiteEntityTable, on connection: SQLiteConnection
    ) throws -> [Snapshot] {
        guard let ids else {
            return try readSnapshots(try connection.prepare(.selectAll, of: table), table: table, on: connection)
        }
        if ids.count == 1 {
            let id = ids[0]
            guard id.entityName == table.name, id.storeIdentifier == identifier, let key = id.primaryKey else {
                return []
            }
            let statement = try connection.prepare(.selectByKey, of: table)
            statement.bind(1, key)
            return try readSnapshots(statement, table: table, on: connection)
        }
        let keys = ids.compactMap { id -> Int64? in
            guard id.entityName == table.name, id.storeIdentifier == identifier else { return nil }
            return id.primaryKey
        }
        return try fetchSnapshots(table: table, keys: keys, on: connection)
    }

    /// Every snapshot of `table`, in key order, read on `connection`.
    func fetchAllSnapshots(table: SQLiteEntityTable, on connection: SQLiteConnection) throws -> [Snapshot] {
        try readSnapshots(try connection.prepare(.selectAll, of: table), table: table, on: connection)
    }

    /// The snapshots of the objects of `entity` with `keys` (missing ones skipped), in key order.
    func fetchSnapshots(entity: String, keys: [Int64], on connection: SQLiteConnection) throws -> [Snapshot] {
        guard let table = schema.tables[entity] else { return [] }
        return try fetchSnapshots(table: table, keys: keys, on: connection)
    }

    private func fetchSnapshots(table: SQLiteEntityTable, keys: [Int64], on connection: SQLiteConnection) throws
        -> [Snapshot]
    {
        switch keys.count {
        case 0:
            return []
        case 1:
            let statement = try connection.prepare(.selectByKey, of: table)
            statement.bind(1, keys[0])
            return try readSnapshots(statement, table: table, on: connection)
        default:
            let statement = try connection.prepare(.selectByKeys, of: table)
            statement.bind(1, "[" + keys.map(String.init).joined(separator: ",") + "]")
            return try readSnapshots(statement, table: table, on: connection)
        }
    }

    /// Runs the `plan` of `request`, its parameters bound.
    private func run(
        _ plan: SQLiteConnection.Plan, request: FetchRequest, table: SQLiteEntityTable, on connection: SQLiteConnection
    ) throws -> FetchResult {
        let statement = plan.statement
        switch request.resultType {
        case .snapshots:
            return .snapshots(try readSnapshots(statement, table: table, on: connection))
        case .objectIDs:
            defer { statement.reset() }
            var ids: [ObjectID] = []
            let scope = ObjectID.Scope(entityName: table.name, storeIdentifier: identifier)
            while try statement.step() {
                ids.append(scope.id(primaryKey: statement.int64(0)))
            }
            return .objectIDs(ids)
        case .count:
            defer { statement.reset() }
            return .count(try statement.step() ? Int(statement.int64(0)) : 0)
        case .dictionaries:
            defer { statement.reset() }
            var rows: [[String: Value]] = []
            while try statement.step() {
                var row: [String: Value] = [:]
                for (i, column) in plan.dictionaryColumns.enumerated() {
                    row[column.key] = try SQLiteValueCoding.read(column.kind, at: Int32(i), from: statement)
                }
                rows.append(row)
            }
            return .dictionaries(rows)
        }
    }

    /// Reads every row of `statement` (selecting ``SQLiteEntityTable/selectList``) as snapshots,
    /// then fills their to-many relationships; resets the statement.
    private func readSnapshots(_ statement: SQLiteStatement, table: SQLiteEntityTable, on connection: SQLiteConnection)
        throws -> [Snapshot]
    {
        var snapshots: [Snapshot] = []
        do {
            defer { statement.reset() }
            let kinds = table.kinds
            let attributeCount = Int32(kinds.count)
            let hasRelationships = !table.relationshipStorage.isEmpty
            // Each entity's scope is looked up once per fetch, not once per ID made.
            let scope = ObjectID.Scope(entityName: table.name, storeIdentifier: identifier)
            let toOneScopes = table.toOneDestinations.map {
                ObjectID.Scope(entityName: $0, storeIdentifier: identifier)
            }
            while try statement.step() {
                let key = statement.int64(0)
                // Reserved then appended: `Array(unsafeUninitializedCapacity:)` looks up the
                // metadata of the array's storage class in the runtime on every call (a lock-free
                // hash lookup, about 330 instructions a row), reserving capacity does not.
                var attributes: [Value] = []
                attributes.reserveCapacity(kinds.count)
                for i in 0..<kinds.count {
                    attributes.append(try SQLiteValueCoding.read(kinds[i], at: Int32(i) + 2, from: statement))
                }
                var relationships: [RelationshipValue] = []
                if hasRelationships {
                    relationships = table.relationshipStorage.map { $0.isToMany ? .toMany([]) : .toOne(nil) }
                    for (i, index) in table.toOneIndexes.enumerated() {
                        let at = 2 + attributeCount + Int32(i)
                        if !statement.isNull(at) {
                            relationships[index] = .toOne(toOneScopes[i].id(primaryKey: statement.int64(at)))
                        }
                    }
                }
                snapshots.append(
                    Snapshot(
                        objectID: scope.id(primaryKey: key),
                        version: statement.int64(1),
                        attributes: attributes,
                        relationships: relationships
                    ))
            }
        }
        if !table.toManyIndexes.isEmpty && !snapshots.isEmpty {
            if snapshots.count >= Self.bulkToManyThreshold {
                try fillToManyInBulk(&snapshots, table: table, on: connection)
            } else {
                try fillToManyPerObject(&snapshots, table: table, on: connection)
            }
        }
        return snapshots
    }

    /// From this many objects on, to-many relationships are read with one query per relationship
    /// rather than one per object.
    static let bulkToManyThreshold = 32

    private func fillToManyPerObject(
        _ snapshots: inout [Snapshot], table: SQLiteEntityTable, on connection: SQLiteConnection
    ) throws {
        for index in table.toManyIndexes {
            let destination = ObjectID.Scope(
                entityName: table.entity.relationships[index].destination, storeIdentifier: identifier)
            let query = try connection.prepare(table.toManySQL[index]!)
            for s in snapshots.indices {
                query.bind(1, snapshots[s].objectID.primaryKey!)
                defer { query.reset() }
                var targets: [ObjectID] = []
                while try query.step() {
                    targets.append(destination.id(primaryKey: query.int64(0)))
                }
                snapshots[s].relationships[index] = .toMany(targets)
            }
        }
    }

    private func fillToManyInBulk(
        _ snapshots: inout [Snapshot], table: SQLiteEntityTable, on connection: SQLiteConnection
    ) throws {
        var positions: [Int64: Int] = [:]
        positions.reserveCapacity(snapshots.count)
        for (i, snapshot) in snapshots.enumerated() { positions[snapshot.objectID.primaryKey!] = i }
        let owners = "[" + snapshots.map { String($0.objectID.primaryKey!) }.joined(separator: ",") + "]"
        for index in table.toManyIndexes {
            let destination = ObjectID.Scope(
                entityName: table.entity.relationships[index].destination, storeIdentifier: identifier)
            let query = try connection.prepare(table.toManyBulkSQL[index]!)
            query.bind(1, owners)
            defer { query.reset() }
            var currentOwner: Int64?
            var targets: [ObjectID] = []
            func flush() {
                if let owner = currentOwner, let position = positions[owner] {
                    snapshots[position].relationships[index] = .toMany(targets)
                }
            }
            while try query.step() {
                let owner = query.int64(0)
                if owner != currentOwner {
                    flush()
                    currentOwner = owner
                    targets = []
                }
                targets.append(destination.id(primaryKey: query.int64(1)))
            }
            flush()
        }
    }
}
