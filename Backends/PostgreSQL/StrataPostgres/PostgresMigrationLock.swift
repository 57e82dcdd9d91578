import Foundation
import StrataCore

/// The advisory lock that keeps the hosts of one PostgreSQL store apart while its schema
/// changes: one key per store (its schema), `pg_advisory_lock` / `pg_advisory_xact_lock`.
///
/// - A migration holds it exclusively: for the whole migration on a connection of its own
///   (``acquire(settings:schema:timeoutMilliseconds:)``, what the migrator takes), or for one
///   step's transaction when a step runs on its own (``lockSchema(on:schema:endpoint:timeoutMilliseconds:)``).
/// - Every open takes it shared for an instant (``waitForMigrations(on:schema:endpoint:timeoutMilliseconds:)``):
///   an open during a migration waits for its end, then reads the new version.
///
/// Within the process that migrates, opens (a stage's, the container's after the migration)
/// and the steps do not wait for the lock the process holds itself: the process keeps a table of
/// the locks it holds.
enum PostgresMigrationLock {
    /// The stores (`endpoint/schema`) whose migration lock this process holds, with how many
    /// times.
    private static let held = Locked<[String: Int]>([:])

    /// The lock's key for a store in `schema`.
    static func key(schema: String) -> Int64 {
        PostgresNaming.advisoryLockKey(schema: schema, purpose: "migrate")
    }

    private static func heldKey(endpoint: String, schema: String) -> String { endpoint + "/" + schema }

    /// Whether this process holds the migration lock of the store in `schema` at `endpoint`.
    static func isHeldByThisProcess(endpoint: String, schema: String) -> Bool {
        held.withLock { $0[heldKey(endpoint: endpoint, schema: schema), default: 0] > 0 }
    }

    /// Takes the lock exclusively on a new connection, for a whole migration, waiting up to
    /// `timeoutMilliseconds`.
    ///
    /// - Throws: `storeBusy` when another host holds it for the whole wait.
    static func acquire(
        settings: PostgresConnectionSettings, schema: String, timeoutMilliseconds: Int
    ) throws -> StoreAccessLock {
        let connection = try PostgresConnection(settings: settings)
        do {
            try connection.execute("SET lock_timeout = \(max(1, timeoutMilliseconds))")
            try busyWhenTimedOut(schema: schema, endpoint: settings.endpoint, timeoutMilliseconds: timeoutMilliseconds)
            {
                try connection.query("SELECT pg_advisory_lock($1)", [.int64(key(schema: schema))])
            }
        } catch {
            connection.close()
            throw error
        }
        let name = heldKey(endpoint: settings.endpoint, schema: schema)
        held.withLock { $0[name, default: 0] += 1 }
        return StoreAccessLock(heldElsewhere: {
            held.withLock { table in
                table[name, default: 1] -= 1
                if table[name] == 0 { table[name] = nil }
            }
            // Closing the session releases its advisory locks.
            connection.close()
        })
    }

    /// Takes the lock exclusively for the transaction open on `connection` (a migration step),
    /// unless this process holds it already; waits up to `timeoutMilliseconds`, and bounds every
    /// other lock wait of the transaction the same way.
    ///
    /// - Throws: `storeBusy` when another host holds it for the whole wait.
    static func lockSchema(
        on connection: PostgresConnection, schema: String, endpoint: String, timeoutMilliseconds: Int
    ) throws {
        try connection.execute("SET LOCAL lock_timeout = \(max(1, timeoutMilliseconds))")
        guard !isHeldByThisProcess(endpoint: endpoint, schema: schema) else { return }
        try busyWhenTimedOut(schema: schema, endpoint: endpoint, timeoutMilliseconds: timeoutMilliseconds) {
            try connection.query("SELECT pg_advisory_xact_lock($1)", [.int64(key(schema: schema))])
        }
    }

    /// Waits, up to `timeoutMilliseconds`, for a migration of the store in `schema` that another
    /// host (or another thread of this process with a lock of its own) runs; returns at once
    /// when there is none, or when this process migrates the store. Runs its own short
    /// transaction on `connection`.
    ///
    /// - Throws: `storeBusy` when the migration goes on for the whole wait.
    static func waitForMigrations(
        on connection: PostgresConnection, schema: String, endpoint: String, timeoutMilliseconds: Int
    ) throws {
        guard !isHeldByThisProcess(endpoint: endpoint, schema: schema) else { return }
        try connection.execute("BEGIN; SET LOCAL lock_timeout = \(max(1, timeoutMilliseconds))")
        do {
            try busyWhenTimedOut(schema: schema, endpoint: endpoint, timeoutMilliseconds: timeoutMilliseconds) {
                try connection.query("SELECT pg_advisory_xact_lock_shared($1)", [.int64(key(schema: schema))])
            }
            try connection.execute("COMMIT")
        } catch {
            connection.rollbackQuietly()
            throw error
        }
    }

    /// Runs `body`, turning a lock wait that timed out (SQLSTATE 55P03) into `storeBusy`.
    private static func busyWhenTimedOut(
        schema: String, endpoint: String, timeoutMilliseconds: Int, _ body: () throws -> Void
    ) throws {
        do {
            try body()
        } catch let error as StrataError where error.location["sqlstate"] == "55P03" {
            throw StrataError(
                .storeBusy,
                "the store in schema '\(schema)' at \(endpoint) is being migrated by another host (waited \(timeoutMilliseconds) ms)",
                location: ["server": endpoint, "schema": schema])
        }
    }
}
