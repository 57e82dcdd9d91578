import Foundation
import StrataCore

/// The PostgreSQL backend: scheme `postgres` (and `postgresql`), one store per PostgreSQL schema
/// of a database: `postgres://USER:PASSWORD@HOST:PORT/DATABASE?schema=NAME&pool=N&sslmode=...`.
///
/// ```swift
/// let store = try PostgresBackend().open(
///     StoreURL.parse("postgres://app@db.example.com/app?schema=notes"), model: model, options: StoreOptions())
/// ```
///
/// Options (``StoreOptions/options`` or the URL's query): `schema` (default `public`), `pool`
/// (most connections, default 10), the history options (``HistoryOptions``) and libpq's
/// connection settings (`sslmode`, `connect_timeout`, `host`, ...). What the URL leaves out,
/// libpq takes from its environment (`PGPASSWORD`, `PGPASSFILE`, ...). See docs/PostgreSQLStore.md.
public struct PostgresBackend: StoreBackend {
    /// The scheme, `"postgres"`.
    public static let schemeName = "postgres"
    /// The other scheme the backend answers to, `"postgresql"` (libpq's own).
    public static let aliasSchemeName = "postgresql"

    /// The scheme this backend value is registered under.
    public let scheme: String

    /// Creates the backend for `scheme` (``schemeName`` or ``aliasSchemeName``).
    public init(scheme: String = PostgresBackend.schemeName) {
        self.scheme = scheme
    }

    /// Persistent, shared between processes and hosts, and openable read-only.
    public var capabilities: BackendCapabilities { [.persistent, .multiProcess, .readOnly] }

    /// `schema`, `pool`, the history options (``HistoryOptions``) and libpq's connection settings.
    public var supportedOptions: [StoreBackendOption]? { PostgresStoreOptions.declared }

    /// Opens (creating when missing and allowed) the store in the URL's schema.
    ///
    /// - Throws: ``StrataError`` with ``StrataError/Code/storeNotFound`` (no store in the schema
    ///   and creation off or read-only; no such database), ``StrataError/Code/storeCorrupt`` (the
    ///   schema has tables but is not a Strata store, or its tables do not match the model),
    ///   ``StrataError/Code/modelMismatch`` (both hashes in the message; nothing is touched),
    ///   ``StrataError/Code/serverUnavailable``, ``StrataError/Code/authenticationFailed``,
    ///   ``StrataError/Code/invalidOption``, ``StrataError/Code/invalidModel`` (beyond
    ///   PostgreSQL's limits, see ``checkLimits(of:)``).
    public func open(_ url: StoreURL, model: Model, options: StoreOptions) throws -> any PersistentStore {
        try PostgresStore.open(url, model: model, options: options)
    }

    /// Checks `model` against PostgreSQL's limits: at most 1,600 columns per table, and the
    /// names it derives (tables, indexes, constraints, join tables) distinct once shortened to
    /// 63 bytes.
    ///
    /// - Throws: ``StrataError/Code/invalidModel`` naming the entity, the limit and the count.
    public func checkLimits(of model: Model) throws {
        let schema = PostgresSchema(model: model, schema: "public")
        for table in schema.orderedTables where table.columnCount > 1_600 {
            throw StrataError(
                .invalidModel,
                "entity '\(table.name)' needs \(table.columnCount) columns; a PostgreSQL table holds at most 1600",
                location: ["entity": table.name, "limit": "1600", "count": String(table.columnCount)])
        }
        var relations: [String: String] = [:]
        for name in schema.tableNames {
            let short = PostgresNaming.identifier(name)
            if let other = relations[short], other != name {
                throw StrataError(
                    .invalidModel,
                    "the tables '\(other)' and '\(name)' get the same PostgreSQL name '\(short)' (identifiers keep 63 bytes); rename one",
                    location: ["entity": name, "limit": "63"])
            }
            relations[short] = name
        }
    }

    /// The metadata of the store in the URL's schema, or `nil` when the schema holds none.
    public func metadata(at url: StoreURL) throws -> StoreMetadata? {
        try withConnection(to: url) { connection, options in
            try PostgresMetadataTable.read(
                schema: options.schema, on: connection, endpoint: options.connection.endpoint)
        }
    }

    /// The JSON of the model version with `versionHash` the store carries (`model:<hash>` in its
    /// metadata table), or `nil`.
    public func storedModelJSON(at url: StoreURL, versionHash: String) throws -> Data? {
        try withConnection(to: url) { connection, options in
            try PostgresMetadataTable.modelJSON(forVersionHash: versionHash, schema: options.schema, on: connection)
        }
    }

    /// Drops what the store made, in one transaction: its entity and join tables (those of the
    /// model it was last written with) and Strata's own tables; then the schema itself when it
    /// is not `public` and nothing else is in it. Nothing else is touched; a schema without a
    /// store is left as it is.
    public func destroyStore(at url: StoreURL) throws {
        try withConnection(to: url) { connection, options in
            let schemaName = options.schema
            try connection.execute("BEGIN")
            do {
                try connection.query(
                    "SELECT pg_advisory_xact_lock($1)",
                    [.int64(PostgresNaming.advisoryLockKey(schema: schemaName, purpose: "create"))])
                guard
                    let metadata = try PostgresMetadataTable.read(
                        schema: schemaName, on: connection, endpoint: options.connection.endpoint)
                else {
                    try connection.execute("COMMIT")
                    return
                }
                var tables = [PostgresSchema.metadataTable, PostgresSchema.sequenceTable, PostgresHistoryTable.name]
                if let json = try PostgresMetadataTable.modelJSON(
                    forVersionHash: metadata.modelVersionHash, schema: schemaName, on: connection),
                    let model = try? Model(jsonData: json)
                {
                    let schema = PostgresSchema(model: model, schema: schemaName)
                    tables = schema.tableNames
                }
                let existing = try connection.query(
                    "SELECT tablename FROM pg_catalog.pg_tables WHERE schemaname = $1 AND tablename = ANY($2)",
                    [.text(schemaName), .textArray(tables.map(PostgresNaming.identifier))])
                let present = (0..<existing.rowCount).map { existing.string($0, 0) }
                if !present.isEmpty {
                    try connection.execute(
                        "DROP TABLE " + present.map { pq(schemaName) + "." + pq($0) }.joined(separator: ", "))
                }
                try connection.execute("COMMIT")
            } catch {
                connection.rollbackQuietly()
                throw error
            }
            guard schemaName != "public" else { return }
            // RESTRICT: the schema goes only when nothing else is in it.
            do {
                try connection.execute("DROP SCHEMA IF EXISTS \(pq(schemaName)) RESTRICT")
            } catch let error as StrataError where error.location["sqlstate"] == "2BP01" {}
        }
    }

    /// A PostgreSQL store has no files: `[]`.
    public func files(of url: StoreURL) throws -> [String] { [] }

    /// `body` with one connection to the server of `url`, closed after.
    private func withConnection<T>(
        to url: StoreURL, _ body: (PostgresConnection, PostgresStoreOptions) throws -> T
    ) throws -> T {
        try Self.checkScheme(of: url)
        let options = try PostgresStoreOptions(StoreOptions(), url: url)
        let connection = try PostgresConnection(settings: options.connection)
        defer { connection.close() }
        return try body(connection, options)
    }

    /// Throws ``StrataError/Code/invalidStoreURL`` unless `url` is a `postgres:` or `postgresql:` URL.
    static func checkScheme(of url: StoreURL) throws {
        guard url.scheme == schemeName || url.scheme == aliasSchemeName else {
            throw StrataError(
                .invalidStoreURL, "'\(url)' is not a postgres: URL", location: ["url": url.description])
        }
    }
}
