import Foundation
import StrataCore

/// A migration that streams a store into a new one (a custom stage, or a step the store does not
/// run natively) builds it in a schema of its own beside the store's, then moves its tables in
/// place of the old ones in one transaction: PostgreSQL's DDL is transactional, so the store is
/// the old one or the new one, whole, whenever the process dies.
extension PostgresBackend: StoreReplacing {
    /// The suffix of a staging schema's name.
    static let stagingSuffix = "_strata_migrating"

    /// The same database, schema `<schema>_strata_migrating` (shortened as every name is).
    public func stagingURL(for url: StoreURL) throws -> StoreURL {
        try Self.checkScheme(of: url)
        let options = try PostgresStoreOptions(StoreOptions(), url: url)
        var staging = url
        staging.query[PostgresStoreOptions.schemaOption] = PostgresNaming.identifier(
            PostgresNaming.identifier(options.schema) + Self.stagingSuffix)
        return staging
    }

    /// Drops the store's tables at `url` and moves those of the store at `staging` into its
    /// schema, in one transaction; then drops the staging schema when nothing else is in it.
    ///
    /// - Throws: `storeNotFound` when `staging` holds no store; the server's errors, after which
    ///   nothing changed.
    public func replaceStore(at url: StoreURL, withStoreAt staging: StoreURL) throws {
        try Self.checkScheme(of: url)
        let options = try PostgresStoreOptions(StoreOptions(), url: url)
        let stagingSchema = try PostgresStoreOptions(StoreOptions(), url: staging).schema
        let connection = try PostgresConnection(settings: options.connection)
        defer { connection.close() }
        try connection.execute("BEGIN")
        do {
            for schema in [options.schema, stagingSchema] {
                try connection.query(
                    "SELECT pg_advisory_xact_lock($1)",
                    [.int64(PostgresNaming.advisoryLockKey(schema: schema, purpose: "create"))])
            }
            let new = try Self.storeTables(schema: stagingSchema, on: connection, endpoint: options.connection.endpoint)
            guard !new.isEmpty else {
                throw StrataError(
                    .storeNotFound,
                    "there is no migrated store in schema '\(stagingSchema)' at \(options.connection.endpoint) to put in place of \(url)",
                    location: ["url": url.description, "schema": stagingSchema])
            }
            let old = try Self.storeTables(
                schema: options.schema, on: connection, endpoint: options.connection.endpoint)
            if !old.isEmpty {
                try connection.execute(
                    "DROP TABLE " + old.map { pq(options.schema) + "." + pq($0) }.joined(separator: ", "))
            }
            for table in new {
                try connection.execute(
                    "ALTER TABLE \(pq(stagingSchema)).\(pq(table)) SET SCHEMA \(pq(options.schema))")
            }
            try connection.execute("COMMIT")
        } catch {
            connection.rollbackQuietly()
            throw error
        }
        do {
            try connection.execute("DROP SCHEMA IF EXISTS \(pq(stagingSchema)) RESTRICT")
        } catch let error as StrataError where error.location["sqlstate"] == "2BP01" {}
    }

    /// The tables of the store in `schema` that exist: those of the model it was last written
    /// with and Strata's own; none when the schema holds no store.
    static func storeTables(schema: String, on connection: PostgresConnection, endpoint: String) throws -> [String] {
        guard let metadata = try PostgresMetadataTable.read(schema: schema, on: connection, endpoint: endpoint) else {
            return []
        }
        var tables = [PostgresSchema.metadataTable, PostgresSchema.sequenceTable, PostgresHistoryTable.name]
        if let json = try PostgresMetadataTable.modelJSON(
            forVersionHash: metadata.modelVersionHash, schema: schema, on: connection),
            let model = try? Model(jsonData: json)
        {
            tables = PostgresSchema(model: model, schema: schema).tableNames
        }
        let existing = try connection.query(
            "SELECT tablename FROM pg_catalog.pg_tables WHERE schemaname = $1 AND tablename = ANY($2)",
            [.text(PostgresNaming.identifier(schema)), .textArray(tables.map(PostgresNaming.identifier))])
        return (0..<existing.rowCount).map { existing.string($0, 0) }
    }
}
