import Foundation
import StrataCore

/// The store's persistent history: the table `_strata_history`, one row per recorded save.
///
/// | column | type | holds |
/// |---|---|---|
/// | `sequence` | `INTEGER PRIMARY KEY` | the token's sequence: 1 for the first recorded save, then +1 |
/// | `timestamp` | `REAL` | when the save committed, in seconds since 1970 |
/// | `author` | `TEXT` | the saving context's `transactionAuthor`, or `NULL` |
/// | `context_name` | `TEXT` | the saving context's name, or `NULL` |
/// | `change_count` | `INTEGER` | how many objects the save changed |
/// | `record` | `BLOB` | the whole transaction (``HistoryRecordCodec``) |
///
/// The sequence is the table's rowid, so reading after a token and finding the last one are
/// B-tree seeks. Pruning deletes the oldest rows and keeps the last pruned sequence in
/// `_strata_metadata` (`historyPrunedThrough`): a new row takes the larger of the last row's
/// sequence and that one, plus one, so no sequence is ever handed out twice. The table has no
/// index besides its rowid (a migration drops indexes its model does not describe).
enum SQLiteHistoryTable {
    /// The table's name.
    static let name = "_strata_history"
    /// The metadata key of the last pruned sequence.
    static let prunedThroughKey = "historyPrunedThrough"

    /// The statement that creates the table.
    static let creationSQL =
        "CREATE TABLE IF NOT EXISTS \(q(name)) (\(q("sequence")) INTEGER PRIMARY KEY, \(q("timestamp")) REAL NOT NULL, \(q("author")) TEXT, \(q("context_name")) TEXT, \(q("change_count")) INTEGER NOT NULL, \(q("record")) BLOB NOT NULL)"

    /// Appends a row for `transaction`, whose sequence the statement computes: the last one kept
    /// or pruned, plus one. One statement, run inside the save's transaction.
    static let appendSQL =
        "INSERT INTO \(q(name)) (\(q("sequence")), \(q("timestamp")), \(q("author")), \(q("context_name")), \(q("change_count")), \(q("record"))) VALUES (coalesce((SELECT max(\(q("sequence"))) FROM \(q(name))), (SELECT CAST(\(q("value")) AS INTEGER) FROM \(q("_strata_metadata")) WHERE \(q("key")) = '\(prunedThroughKey)'), 0) + 1, ?, ?, ?, ?, ?)"

    /// The last sequence kept, or else the last pruned one; `NULL` before the first save.
    static let lastSequenceSQL =
        "SELECT coalesce((SELECT max(\(q("sequence"))) FROM \(q(name))), (SELECT CAST(\(q("value")) AS INTEGER) FROM \(q("_strata_metadata")) WHERE \(q("key")) = '\(prunedThroughKey)'))"

    /// The read of the transactions after a sequence (parameter 1), then with the authors in a
    /// JSON array and a limit: a seek on the rowid, then rows in sequence order.
    static func readSQL(filteringAuthors: Bool, limited: Bool) -> String {
        var sql = "SELECT \(q("sequence")), \(q("record")) FROM \(q(name)) WHERE \(q("sequence")) > ?"
        if filteringAuthors { sql += " AND \(q("author")) IN (SELECT value FROM json_each(?))" }
        sql += " ORDER BY \(q("sequence"))"
        if limited { sql += " LIMIT ?" }
        return sql
    }

    /// Whether the database has the table (a store made before history, opened read-only, has not).
    static func exists(in connection: SQLiteConnection) throws -> Bool {
        let statement = try connection.prepare(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '\(name)'")
        defer { statement.reset() }
        return try statement.step() && statement.int64(0) > 0
    }

    /// Creates the table in a store made before history (a no-op when it exists), in its own
    /// transaction; called on a writable open.
    static func addIfMissing(on connection: SQLiteConnection) throws {
        guard try !exists(in: connection) else { return }
        try connection.execute("BEGIN IMMEDIATE")
        do {
            try connection.execute(creationSQL)
            try connection.execute("COMMIT")
        } catch {
            connection.rollbackQuietly()
            throw error
        }
    }

    /// Appends a transaction's `record` (``HistoryRecordCodec``; its token is assigned by the
    /// statement) with the columns beside it, on the writer, inside the save's transaction;
    /// returns the sequence it got.
    static func append(
        _ record: [UInt8], timestamp: Date, author: String?, contextName: String?, changeCount: Int,
        on connection: SQLiteConnection
    ) throws -> Int64 {
        let statement = try connection.prepare(appendSQL)
        statement.bind(1, timestamp.timeIntervalSince1970)
        if let author { statement.bind(2, author) } else { statement.bindNull(2) }
        if let contextName { statement.bind(3, contextName) } else { statement.bindNull(3) }
        statement.bind(4, Int64(changeCount))
        statement.bind(5, bytes: record)
        try statement.run()
        return connection.lastInsertRowID
    }

    /// The last sequence recorded (kept or pruned), or `nil` before the first.
    static func lastSequence(on connection: SQLiteConnection) throws -> Int64? {
        let statement = try connection.prepare(lastSequenceSQL)
        defer { statement.reset() }
        guard try statement.step(), !statement.isNull(0) else { return nil }
        return statement.int64(0)
    }

    /// The last pruned sequence (0 when nothing was pruned).
    static func prunedThrough(on connection: SQLiteConnection) throws -> Int64 {
        let statement = try connection.prepare(
            "SELECT CAST(\(q("value")) AS INTEGER) FROM \(q("_strata_metadata")) WHERE \(q("key")) = '\(prunedThroughKey)'"
        )
        defer { statement.reset() }
        return try statement.step() ? statement.int64(0) : 0
    }

    /// The oldest and the newest sequence kept, or `nil` when the table is empty. Two subqueries,
    /// each a seek to one end of the rowid B-tree.
    static func keptRange(on connection: SQLiteConnection) throws -> ClosedRange<Int64>? {
        let statement = try connection.prepare(
            "SELECT (SELECT min(\(q("sequence"))) FROM \(q(name))), (SELECT max(\(q("sequence"))) FROM \(q(name)))")
        defer { statement.reset() }
        guard try statement.step(), !statement.isNull(0), !statement.isNull(1) else { return nil }
        return statement.int64(0)...statement.int64(1)
    }

    /// The last sequence of the run of oldest rows committed before `date`, looking at no more
    /// than `limit` rows; `nil` when the oldest row is not that old. Rows are read in sequence
    /// order and the first one at or after `date` ends the run, so pruning by date removes a
    /// prefix of the history even when clocks of several processes disagree.
    static func lastSequence(before date: Date, limit: Int, on connection: SQLiteConnection) throws -> Int64? {
        let statement = try connection.prepare(
            "SELECT \(q("sequence")), \(q("timestamp")) FROM \(q(name)) ORDER BY \(q("sequence")) LIMIT ?")
        defer { statement.reset() }
        statement.bind(1, Int64(limit))
        let cutoff = date.timeIntervalSince1970
        var last: Int64?
        while try statement.step() {
            guard statement.double(1) < cutoff else { break }
            last = statement.int64(0)
        }
        return last
    }

    /// Deletes the rows up to and including `sequence` and records it as the last pruned one
    /// (never lowering it); returns how many rows went.
    static func prune(through sequence: Int64, on connection: SQLiteConnection) throws -> Int {
        let delete = try connection.prepare("DELETE FROM \(q(name)) WHERE \(q("sequence")) <= ?")
        delete.bind(1, sequence)
        try delete.run()
        let deleted = Int(connection.changes)
        if sequence > (try prunedThrough(on: connection)) {
            try SQLiteMetadataTable.set(prunedThroughKey, String(sequence), in: connection)
        }
        return deleted
    }
}
