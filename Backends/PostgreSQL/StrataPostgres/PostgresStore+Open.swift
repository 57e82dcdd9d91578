import Foundation
import StrataCore

extension PostgresStore {
    /// Opens or creates the store at `url` (see ``PostgresBackend/open(_:model:options:)``).
    static func open(_ url: StoreURL, model: Model, options storeOptions: StoreOptions) throws -> PostgresStore {
        let start = ContinuousClock.now
        try PostgresBackend.checkScheme(of: url)
        try PostgresBackend().checkLimits(of: model)
        let options = try PostgresStoreOptions(storeOptions, url: url)
        let pool = PostgresConnectionPool(settings: options.connection, maximumConnections: options.poolSize)
        do {
            let metadata = try pool.withConnection { connection in
                try prepareSchema(on: connection, url: url, model: model, options: options)
            }
            let store = PostgresStore(
                url: url, model: model, identifier: metadata.storeIdentifier, options: options, pool: pool)
            StrataLog.storeOpened(
                url, backend: PostgresBackend.schemeName, model: model, readOnly: options.isReadOnly, since: start)
            return store
        } catch {
            pool.close()
            throw error
        }
    }

    /// Checks an existing store against `model` (touching nothing on a mismatch), or creates the
    /// schema and its tables in one transaction under an advisory lock of the schema, so that of
    /// two hosts creating one store at once, one creates it and the other finds it.
    private static func prepareSchema(
        on connection: PostgresConnection, url: StoreURL, model: Model, options: PostgresStoreOptions
    ) throws -> StoreMetadata {
        let schemaName = options.schema
        let endpoint = options.connection.endpoint
        let location = ["server": endpoint, "schema": schemaName]
        // A migration another host runs: wait for it, then read the version it left.
        try PostgresMigrationLock.waitForMigrations(
            on: connection, schema: schemaName, endpoint: endpoint,
            timeoutMilliseconds: StoreAccessLock.defaultTimeoutMilliseconds)
        if let metadata = try PostgresMetadataTable.read(schema: schemaName, on: connection, endpoint: endpoint) {
            try verify(metadata, on: connection, url: url, model: model, options: options)
            if !options.isReadOnly {
                try PostgresHistoryTable.upgradeRecordStorage(
                    schema: PostgresSchema(model: model, schema: schemaName), on: connection)
            }
            return metadata
        }
        guard options.createsIfMissing && !options.isReadOnly else {
            throw StrataError(
                .storeNotFound,
                "there is no store in schema '\(schemaName)' at \(endpoint)"
                    + (options.isReadOnly ? " (a read-only open never creates one)" : " and createsIfMissing is false"),
                location: location)
        }
        try connection.execute("BEGIN")
        do {
            try connection.query(
                "SELECT pg_advisory_xact_lock($1)",
                [.int64(PostgresNaming.advisoryLockKey(schema: schemaName, purpose: "create"))])
            // Another host may have created the store while we waited for the lock.
            if let metadata = try PostgresMetadataTable.read(schema: schemaName, on: connection, endpoint: endpoint) {
                try connection.execute("COMMIT")
                try verify(metadata, on: connection, url: url, model: model, options: options)
                return metadata
            }
            let tables = try PostgresMetadataTable.tableCount(schema: schemaName, on: connection)
            guard tables == 0 else {
                throw StrataError(
                    .storeCorrupt,
                    "schema '\(schemaName)' at \(endpoint) holds \(tables) table\(tables == 1 ? "" : "s") but no Strata store (no _strata_metadata table); Strata will not change it: give the store a schema of its own (?schema=NAME)",
                    location: location)
            }
            let schema = PostgresSchema(model: model, schema: schemaName)
            try connection.execute("CREATE SCHEMA IF NOT EXISTS \(schema.quotedName)")
            for statement in schema.creationStatements() { try connection.execute(statement) }
            let metadata = StoreMetadata.new(
                storeType: PostgresBackend.schemeName, model: model, identifier: options.identifierForNewStore)
            try PostgresMetadataTable.initialize(metadata, model: model, schema: schemaName, on: connection)
            try connection.execute("COMMIT")
            return metadata
        } catch {
            connection.rollbackQuietly()
            throw error
        }
    }

    /// Checks that the store was written with `model` (``StrataError/Code/modelMismatch``
    /// otherwise) and that its tables have the columns the model gives them, in their types
    /// (``StrataError/Code/storeCorrupt`` naming the first that differs: a table dropped or a
    /// column altered by hand). Columns and indexes a user added are accepted.
    private static func verify(
        _ metadata: StoreMetadata, on connection: PostgresConnection, url: StoreURL, model: Model,
        options: PostgresStoreOptions
    ) throws {
        try metadata.checkCompatible(with: model, at: url)
        let schema = PostgresSchema(model: model, schema: options.schema)
        let result = try connection.query(
            "SELECT c.relname::text, a.attname::text, format_type(a.atttypid, a.atttypmod) FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON a.attrelid = c.oid JOIN pg_catalog.pg_namespace n ON c.relnamespace = n.oid WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped",
            [.text(options.schema)])
        var found: [String: [String: String]] = [:]
        for row in 0..<result.rowCount {
            found[result.string(row, 0), default: [:]][result.string(row, 1)] = result.string(row, 2)
        }
        func mismatch(_ table: String, _ what: String) -> StrataError {
            StrataError(
                .storeCorrupt,
                "the store in schema '\(options.schema)' at \(options.connection.endpoint) has Strata metadata for this model, but its table \(pq(table)) does not match the model (edited by hand?): \(what)",
                location: ["server": options.connection.endpoint, "schema": options.schema, "table": table])
        }
        for table in schema.orderedTables {
            guard let columns = found[PostgresNaming.identifier(table.name)] else {
                throw mismatch(table.name, "the table is missing")
            }
            var expected: [(String, String)] = [("_pk", "bigint"), ("_version", "bigint")]
            expected += zip(table.attributeColumns, table.kinds.map(\.sqlType)).map { ($0, $1) }
            expected += table.foreignKeyIndexes.map { (table.entity.relationships[$0].name, "bigint") }
            expected += table.positionColumns.map { ($0, "bigint") }
            for (column, type) in expected {
                guard let actual = columns[PostgresNaming.identifier(column)] else {
                    throw mismatch(table.name, "column \(pq(column)) is missing")
                }
                guard actual == type else {
                    throw mismatch(table.name, "column \(pq(column)) is \(actual), not \(type)")
                }
            }
        }
        for name in schema.joinTables.map(\.name) + [PostgresSchema.sequenceTable, PostgresHistoryTable.name]
        where found[PostgresNaming.identifier(name)] == nil {
            throw mismatch(name, "the table is missing")
        }
    }
}
