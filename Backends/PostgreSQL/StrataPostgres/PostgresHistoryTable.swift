import Foundation
import StrataCore

/// The store's persistent history: the table `_strata_history`, one row per recorded save.
///
/// | column | type | holds |
/// |---|---|---|
/// | `sequence` | `bigint PRIMARY KEY` | the token's sequence: 1 for the first recorded save, then +1 |
/// | `timestamp` | `timestamptz` | when the save ran |
/// | `author` | `text` | the saving context's `transactionAuthor`, or `NULL` |
/// | `context_name` | `text` | the saving context's name, or `NULL` |
/// | `change_count` | `integer` | how many objects the save changed |
/// | `record` | `bytea`, `STORAGE EXTERNAL` | the whole transaction (``HistoryRecordCodec``), uncompressed |
///
/// Sequences must commit in order across hosts, or a reader reading "after N" would miss an N-1
/// that commits later. So a save takes a transaction-scoped advisory lock of the store
/// (``lockKey``) right before it appends its row, reads the last sequence, inserts the next one
/// and commits, holding the lock only for the tail of the save; in the same transaction it sends
/// `pg_notify('strata_history', '<storeIdentifier> <sequence>')`, which PostgreSQL delivers at
/// commit and never for a rolled-back save. Pruning deletes the oldest rows and keeps the last
/// pruned sequence in `_strata_metadata` (`historyPrunedThrough`), so no sequence is handed out
/// twice.
enum PostgresHistoryTable {
    /// The table's name.
    static let name = "_strata_history"
    /// The metadata key of the last pruned sequence.
    static let prunedThroughKey = "historyPrunedThrough"
    /// The channel saves notify on.
    static let notificationChannel = "strata_history"

    /// The statement that creates the table.
    static func creationSQL(schema: PostgresSchema) -> String {
        "CREATE TABLE \(schema.qualified(name)) (\(pq("sequence")) bigint PRIMARY KEY, \(pq("timestamp")) timestamptz NOT NULL, \(pq("author")) text, \(pq("context_name")) text, \(pq("change_count")) integer NOT NULL, \(pq("record")) bytea NOT NULL)"
    }

    /// The statement that stores `record` out of line without compression (`STORAGE EXTERNAL`):
    /// a record is written once, under the history lock, and read rarely, and compressing a large
    /// one (`EXTENDED`, the default) took longer than writing it (a record of 10,000 deletes,
    /// 58 KB: 2.4 ms compressed, 0.5 ms not). Small records stay in the row either way.
    static func recordStorageSQL(schema: PostgresSchema) -> String {
        "ALTER TABLE \(schema.qualified(name)) ALTER COLUMN \(pq("record")) SET STORAGE EXTERNAL"
    }

    /// Gives the `record` column of a store made before its storage was `EXTERNAL` that storage
    /// (``recordStorageSQL(schema:)``): one catalog read, and the `ALTER TABLE` only when it
    /// differs (existing rows stay as they are; new ones are stored uncompressed). A role that
    /// does not own the table keeps the old storage: it changes the speed of an append, not what
    /// is stored.
    static func upgradeRecordStorage(schema: PostgresSchema, on connection: PostgresConnection) throws {
        let result = try connection.query(
            "SELECT a.attstorage::text FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON a.attrelid = c.oid JOIN pg_catalog.pg_namespace n ON c.relnamespace = n.oid WHERE n.nspname = $1 AND c.relname = $2 AND a.attname = $3",
            [.text(PostgresNaming.identifier(schema.name)), .text(name), .text("record")])
        guard result.rowCount == 1, result.string(0, 0) != "e" else { return }
        do {
            try connection.execute(recordStorageSQL(schema: schema))
        } catch let error as StrataError where error.location["sqlstate"] == "42501" {}
    }

    /// The advisory lock that orders the history appends of the store in `schema`.
    static func lockKey(schema: String) -> Int64 {
        PostgresNaming.advisoryLockKey(schema: schema, purpose: "history")
    }

    /// `coalesce(max(sequence), prunedThrough)`: the last sequence kept, or else the last pruned.
    static func lastSequenceExpression(_ schema: PostgresSchema) -> String {
        "coalesce((SELECT max(\(pq("sequence"))) FROM \(schema.qualified(name))), (SELECT \(pq("value"))::bigint FROM \(schema.qualified(PostgresSchema.metadataTable)) WHERE \(pq("key")) = \(pqLiteral(prunedThroughKey))))"
    }

    /// Appends a transaction's `record` (``HistoryRecordCodec``; its token is assigned here)
    /// inside the save's transaction, under the history lock, and notifies in the same statement
    /// (its `RETURNING`); returns the sequence it got. Two statements: the lock must be taken
    /// before the statement that reads the last sequence starts, so that its snapshot sees every
    /// append committed before (one statement taking the lock in a subquery would read the last
    /// sequence in a snapshot taken before it waited). Both go in one round trip (a pipeline),
    /// and with `committing` the transaction's `COMMIT` too, so the lock is held for one round
    /// trip at most.
    static func append(
        _ record: [UInt8], timestamp: Date, author: String?, contextName: String?, changeCount: Int,
        storeIdentifier: String, schema: PostgresSchema, committing: Bool, on connection: PostgresConnection
    ) throws -> Int64 {
        let insert =
            "INSERT INTO \(schema.qualified(name)) (\(pq("sequence")), \(pq("timestamp")), \(pq("author")), \(pq("context_name")), \(pq("change_count")), \(pq("record"))) VALUES (coalesce(\(lastSequenceExpression(schema)), 0) + 1, $1, $2, $3, $4, $5) RETURNING \(pq("sequence")), pg_notify($6, $7 || ' ' || \(pq("sequence"))::text)"
        let values: [PostgresParameter] = [
            .timestamp(timestamp),
            author.map { .text($0) } ?? .null(),
            contextName.map { .text($0) } ?? .null(),
            .int32(Int32(clamping: changeCount)),
            .bytea(record),
            .text(notificationChannel),
            .text(storeIdentifier),
        ]
        var statements = [
            PostgresStatement(
                sql: "SELECT pg_advisory_xact_lock($1)", parameters: [.int64(lockKey(schema: schema.name))]),
            PostgresStatement(sql: insert, parameters: values),
        ]
        if committing { statements.append(PostgresStatement(sql: "COMMIT")) }
        return try connection.pipeline(statements)[1].int64(0, 0)
    }

    /// The last sequence recorded (kept or pruned), or `nil` before the first.
    static func lastSequence(schema: PostgresSchema, on connection: PostgresConnection) throws -> Int64? {
        let result = try connection.query("SELECT \(lastSequenceExpression(schema))")
        return result.isNull(0, 0) ? nil : result.int64(0, 0)
    }

    /// The last pruned sequence (0 when nothing was pruned).
    static func prunedThrough(schema: PostgresSchema, on connection: PostgresConnection) throws -> Int64 {
        try PostgresMetadataTable.value(prunedThroughKey, schema: schema.name, on: connection).flatMap { Int64($0) }
            ?? 0
    }

    /// The oldest and the newest sequence kept, or `nil` when the table is empty.
    static func keptRange(schema: PostgresSchema, on connection: PostgresConnection) throws -> ClosedRange<Int64>? {
        let table = schema.qualified(name)
        let result = try connection.query(
            "SELECT min(\(pq("sequence"))), max(\(pq("sequence"))) FROM \(table)")
        guard !result.isNull(0, 0), !result.isNull(0, 1) else { return nil }
        return result.int64(0, 0)...result.int64(0, 1)
    }

    /// The last sequence of the run of oldest rows committed before `date`, looking at no more
    /// than `limit` rows; `nil` when the oldest row is not that old. The first row at or after
    /// `date` ends the run, so pruning by date removes a prefix even when hosts' clocks disagree.
    static func lastSequence(
        before date: Date, limit: Int, schema: PostgresSchema, on connection: PostgresConnection
    ) throws -> Int64? {
        let result = try connection.query(
            "SELECT \(pq("sequence")), \(pq("timestamp")) < $1 FROM \(schema.qualified(name)) ORDER BY \(pq("sequence")) LIMIT $2",
            [.timestamp(date), .int64(Int64(limit))])
        var last: Int64?
        for row in 0..<result.rowCount {
            guard result.bool(row, 1) else { break }
            last = result.int64(row, 0)
        }
        return last
    }

    /// Deletes the rows up to and including `sequence` and records it as the last pruned one
    /// (never lowering it); returns how many rows went.
    static func prune(through sequence: Int64, schema: PostgresSchema, on connection: PostgresConnection) throws
        -> Int
    {
        let deleted = try connection.query(
            "DELETE FROM \(schema.qualified(name)) WHERE \(pq("sequence")) <= $1", [.int64(sequence)]
        ).affectedRows
        if sequence > (try prunedThrough(schema: schema, on: connection)) {
            try PostgresMetadataTable.set(prunedThroughKey, String(sequence), schema: schema.name, on: connection)
        }
        return deleted
    }

    /// The read of the transactions after a sequence (`$1`), then optionally with the authors in
    /// an array and a limit.
    static func readSQL(schema: PostgresSchema, filteringAuthors: Bool, limited: Bool) -> String {
        var sql =
            "SELECT \(pq("sequence")), \(pq("record")) FROM \(schema.qualified(name)) WHERE \(pq("sequence")) > $1"
        var next = 2
        if filteringAuthors {
            sql += " AND \(pq("author")) = ANY($\(next))"
            next += 1
        }
        sql += " ORDER BY \(pq("sequence"))"
        if limited { sql += " LIMIT $\(next)" }
        return sql
    }
}
