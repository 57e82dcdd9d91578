import Foundation
import StrataCore

/// PostgreSQL runs every migration step in place, in SQL, inside ONE transaction that also
/// updates the metadata (PostgreSQL's DDL is transactional): an error, a cancellation or a lost
/// connection at any point leaves the old schema whole, and the commit puts the store at the new
/// version. `_strata_history` is not touched: the transactions recorded before the migration
/// read as they were written, and the sequence goes on.
///
/// Several hosts may open, and try to migrate, one store. Two advisory locks of the store's
/// schema keep them apart:
/// - the **migration lock** (``lockForMigration(of:timeoutMilliseconds:)``), held on a
///   connection of its own for a whole migration (every step and stage): one host migrates,
///   another waits for it (bounded), then finds the store migrated and nothing left to do;
/// - the **schema lock**, taken by each step's transaction (`pg_advisory_xact_lock`) and, shared,
///   by every open of the store (``PostgresMigrationLock/waitForMigrations(on:schema:timeoutMilliseconds:)``):
///   a host that opens the store while a step runs waits for its commit and then reads the new
///   version, or gets `storeBusy` after the wait.
extension PostgresBackend: NativeMigrating {
    /// Always `true`: every inferred change has an SQL form (see ``PostgresMigrationRunner``).
    public func canMigrateNatively(_ step: MigrationStep) -> Bool { true }

    /// Runs `step` on the store in the URL's schema in one transaction, under the schema's
    /// advisory lock.
    ///
    /// - Throws: `storeBusy` when another host's step holds the schema lock for the whole wait
    ///   (``StoreAccessLock/defaultTimeoutMilliseconds``); `modelMismatch` when the store is at
    ///   neither end of the step; what the step's SQL throws (typed: `missingValue`,
    ///   `uniqueConstraint`, `migrationNotInferable`), after a rollback.
    public func migrateNatively(
        _ step: MigrationStep,
        at url: StoreURL,
        options: StoreOptions,
        metadataChanges: [String: String?],
        progress: (StoreProgress) -> Void,
        isCancelled: () -> Bool
    ) throws {
        try Self.checkScheme(of: url)
        let storeOptions = try PostgresStoreOptions(options, url: url)
        let schemaName = storeOptions.schema
        let endpoint = storeOptions.connection.endpoint
        let location = ["server": endpoint, "schema": schemaName]
        let connection = try PostgresConnection(settings: storeOptions.connection)
        defer { connection.close() }
        try connection.execute("BEGIN")
        do {
            try PostgresMigrationLock.lockSchema(
                on: connection, schema: schemaName, endpoint: endpoint,
                timeoutMilliseconds: StoreAccessLock.defaultTimeoutMilliseconds)
            guard let metadata = try PostgresMetadataTable.read(schema: schemaName, on: connection, endpoint: endpoint)
            else {
                throw StrataError(
                    .storeNotFound, "there is no store in schema '\(schemaName)' at \(endpoint) to migrate",
                    location: location)
            }
            if step.destination.matchesVersionHash(metadata.modelVersionHash) && !step.isStructurallyEmpty {
                // Another host finished this step while we waited for the lock.
                try connection.execute("COMMIT")
                return
            }
            guard step.source.matchesVersionHash(metadata.modelVersionHash) else {
                throw StrataError(
                    .modelMismatch,
                    "the store in schema '\(schemaName)' at \(endpoint) is at model version '\(metadata.modelVersionIdentifier)' (hash \(metadata.modelVersionHash)), not at '\(step.source.versionIdentifier)' where the step \(step.name) starts; nothing was changed",
                    location: location.merging(["storeHash": metadata.modelVersionHash]) { $1 })
            }
            try withoutActuallyEscaping(progress) { progress in
                try withoutActuallyEscaping(isCancelled) { isCancelled in
                    var runner = PostgresMigrationRunner(
                        step: step, connection: connection, schema: schemaName, endpoint: endpoint,
                        progress: progress, isCancelled: isCancelled)
                    try runner.run()
                }
            }
            let model = step.destination
            try PostgresMetadataTable.set(
                PostgresMetadataTable.modelPrefix + model.versionHash,
                String(decoding: model.jsonData(), as: UTF8.self),
                schema: schemaName, on: connection)
            try PostgresMetadataTable.set("modelVersionHash", model.versionHash, schema: schemaName, on: connection)
            try PostgresMetadataTable.set(
                "modelVersionIdentifier", model.versionIdentifier, schema: schemaName, on: connection)
            for (key, value) in metadataChanges.sorted(by: { $0.key < $1.key }) {
                try PostgresMetadataTable.set(
                    PostgresMetadataTable.userPrefix + key, value, schema: schemaName, on: connection)
            }
            if isCancelled() {
                throw StrataError(
                    .cancelled,
                    "the migration \(step.name) of the store in schema '\(schemaName)' at \(endpoint) was cancelled; the store is unchanged",
                    location: location)
            }
            try connection.execute("COMMIT")
        } catch {
            connection.rollbackQuietly()
            throw error
        }
    }

    /// Takes the store's migration lock (a session advisory lock on a connection of its own),
    /// waiting up to `timeoutMilliseconds` for another host's migration to end; the lock is
    /// released, and its connection closed, by ``StoreAccessLock/release()``.
    ///
    /// - Throws: `storeBusy` when another host migrates the store for the whole wait;
    ///   `serverUnavailable` and the other connection errors.
    public func lockForMigration(of url: StoreURL, timeoutMilliseconds: Int) throws -> StoreAccessLock? {
        try Self.checkScheme(of: url)
        let options = try PostgresStoreOptions(StoreOptions(), url: url)
        return try PostgresMigrationLock.acquire(
            settings: options.connection, schema: options.schema, timeoutMilliseconds: timeoutMilliseconds)
    }
}
