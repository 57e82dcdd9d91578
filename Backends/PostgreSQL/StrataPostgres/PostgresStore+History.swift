import Foundation
import StrataCore

/// Persistent history in the table `_strata_history` (see ``PostgresHistoryTable``): each save
/// appends one row in its own transaction, under the store's history lock, so history and data
/// commit together and sequences commit in order across hosts; each append notifies
/// `strata_history` with `<storeIdentifier> <sequence>` at commit.
extension PostgresStore: HistoryRecording {
    /// Whether saves append to the history (the `history` option; on by default).
    public var recordsHistory: Bool { options.history.isEnabled }

    /// What history requests and prunings name as the store's place.
    var historyPlace: String { "\(endpoint) schema \(schema.name)" }

    /// The transactions `request` asks for, the oldest first, read in one REPEATABLE READ
    /// transaction: the token, the author filter and (without an entity filter) the limit are
    /// part of the SQL; the entity filter is applied to each decoded record.
    ///
    /// - Throws: ``StrataError/Code/historyExpired``, ``StrataError/Code/invalidRequest`` (see
    ///   ``HistoryRequest/validate(storeIdentifier:prunedThrough:path:)``);
    ///   ``StrataError/Code/storeCorrupt`` naming the token of a record that cannot be decoded.
    public func fetchHistory(_ request: HistoryRequest) throws -> [HistoryTransaction] {
        try inReadTransaction { connection in
            let pruned = try PostgresHistoryTable.prunedThrough(schema: schema, on: connection)
            try request.validate(storeIdentifier: identifier, prunedThrough: pruned, path: historyPlace)
            if request.limit == 0 { return [] }
            let limitInSQL = request.entityNames == nil ? request.limit : nil
            var parameters: [PostgresParameter] = [.int64(request.after?.sequence ?? 0)]
            if let authors = request.authors { parameters.append(.textArray(authors.sorted())) }
            if let limitInSQL { parameters.append(.int64(Int64(limitInSQL))) }
            let result = try connection.query(
                PostgresHistoryTable.readSQL(
                    schema: schema, filteringAuthors: request.authors != nil, limited: limitInSQL != nil),
                parameters)
            var transactions: [HistoryTransaction] = []
            for row in 0..<result.rowCount {
                let token = HistoryToken(storeIdentifier: identifier, sequence: result.int64(row, 0))
                let transaction: HistoryTransaction
                do {
                    transaction = try result.withBytes(row, 1) { try HistoryRecordCodec.decode($0, token: token) }
                } catch var error as StrataError {
                    error.location.merge(location) { $1 }
                    throw error
                }
                guard let admitted = request.admitting(transaction) else { continue }
                transactions.append(admitted)
                if let limit = request.limit, transactions.count >= limit { break }
            }
            return transactions
        }
    }

    /// The token of the last committed transaction of any host (a kept or a pruned one), or
    /// `nil` before the first: one statement, two index seeks.
    public func lastHistoryToken() throws -> HistoryToken? {
        try pool.withConnection { connection in
            try PostgresHistoryTable.lastSequence(schema: schema, on: connection).map {
                HistoryToken(storeIdentifier: identifier, sequence: $0)
            }
        }
    }

    /// Deletes transactions, the oldest first, in transactions of at most
    /// ``HistoryOptions/pruneBatch`` each; returns how many it deleted.
    ///
    /// - Throws: ``StrataError/Code/invalidRequest`` for a token of another store or a negative
    ///   count; ``StrataError/Code/readOnly`` on a store opened read-only.
    @discardableResult
    public func pruneHistory(_ pruning: HistoryPruning) throws -> Int {
        try pruning.validate(storeIdentifier: identifier, path: historyPlace)
        try requireWritable("prune the history")
        var total = 0
        while true {
            let deleted: Int = try pool.inTransaction { connection in
                // The history lock: a save appending now must not take a sequence being pruned.
                try connection.query(
                    "SELECT pg_advisory_xact_lock($1)", [.int64(PostgresHistoryTable.lockKey(schema: schema.name))])
                guard let end = try pruneEnd(pruning, limit: HistoryOptions.pruneBatch, on: connection) else {
                    return 0
                }
                return try PostgresHistoryTable.prune(through: end, schema: schema, on: connection)
            }
            total += deleted
            if deleted < HistoryOptions.pruneBatch { return total }
        }
    }

    /// Makes the history go on after `sequence` (see ``HistoryRecording/continueHistory(after:)``):
    /// under the history lock, deletes the transactions through it and raises the last pruned
    /// sequence to it, in one transaction.
    ///
    /// - Throws: ``StrataError/Code/readOnly`` on a store opened read-only.
    public func continueHistory(after sequence: Int64) throws {
        try requireWritable("continue the history")
        try pool.inTransaction { connection in
            try connection.query(
                "SELECT pg_advisory_xact_lock($1)", [.int64(PostgresHistoryTable.lockKey(schema: schema.name))])
            _ = try PostgresHistoryTable.prune(through: sequence, schema: schema, on: connection)
        }
    }

    // MARK: Recording in a save

    /// The stored state of the updated objects that history needs and the request does not
    /// carry (see ``HistoryChangeRecorder``), read inside the save's transaction before its
    /// statements run: one read per entity whose snapshots need more than its row. (The updates
    /// of the other entities return their rows as they were, and the deletes their tombstones.)
    func storedStatesForHistory(of request: SaveRequest, on connection: PostgresConnection) throws
        -> [ObjectID: Snapshot]
    {
        var keys: [String: [Int64]] = [:]
        for update in request.updates
        where update.previous?.version != update.expectedVersion
            && schema.tables[update.snapshot.objectID.entityName]?.updateManyReturningOldSQL == nil
        {
            keys[update.snapshot.objectID.entityName, default: []].append(update.snapshot.objectID.permanentKey)
        }
        var states: [ObjectID: Snapshot] = [:]
        for (entity, entityKeys) in keys {
            for snapshot in try readSnapshots(try table(for: entity), keys: entityKeys, on: connection) {
                states[snapshot.objectID] = snapshot
            }
        }
        return states
    }

    /// Appends the transaction of `request` (whose version checks passed) to the history, then
    /// prunes what the options no longer keep; returns the transaction's token. Records nothing
    /// (and returns `nil`) for a save that changes no object.
    ///
    /// `committing`: the caller runs nothing after it in the transaction, so the transaction may
    /// commit in the same round trip as the history's lock and row (it does unless automatic
    /// pruning follows the append; ``PostgresConnectionPool/inTransaction(_:_:)`` then commits
    /// nothing more).
    func appendHistory(
        for request: SaveRequest, storedStates: [ObjectID: Snapshot], committing: Bool = false,
        on connection: PostgresConnection
    ) throws -> HistoryToken? {
        guard let entry = try historyEntry(for: request, storedStates: storedStates) else { return nil }
        return try appendHistory(entry, committing: committing, on: connection)
    }

    /// One transaction's history row before it is appended: its record and what goes beside it.
    struct HistoryEntry {
        var record: [UInt8]
        var timestamp: Date
        var author: String?
        var contextName: String?
        var changeCount: Int
    }

    /// The history row of `request` (see ``appendHistory(for:storedStates:committing:on:)``),
    /// built without the database; `nil` for a save that changes no object.
    func historyEntry(for request: SaveRequest, storedStates: [ObjectID: Snapshot]) throws -> HistoryEntry? {
        guard !(request.inserts.isEmpty && request.updates.isEmpty && request.deletes.isEmpty) else { return nil }
        let timestamp = Date()
        let (record, changeCount) = try HistoryChangeRecorder(model: model).record(
            for: request, timestamp: timestamp, storedState: { storedStates[$0] })
        return HistoryEntry(
            record: record, timestamp: timestamp, author: request.transactionAuthor,
            contextName: request.contextName, changeCount: changeCount)
    }

    /// Appends `entry` as ``appendHistory(for:storedStates:committing:on:)`` does.
    func appendHistory(_ entry: HistoryEntry, committing: Bool, on connection: PostgresConnection) throws
        -> HistoryToken
    {
        let sequence = try PostgresHistoryTable.append(
            entry.record, timestamp: entry.timestamp, author: entry.author, contextName: entry.contextName,
            changeCount: entry.changeCount, storeIdentifier: identifier, schema: schema,
            committing: committing && !options.history.prunesAutomatically, on: connection)
        if options.history.prunesAutomatically { try pruneAutomatically(on: connection) }
        return HistoryToken(storeIdentifier: identifier, sequence: sequence)
    }

    /// Deletes at most ``HistoryOptions/pruneBatch`` of the oldest transactions that the
    /// `historyKeepDays` and `historyKeepTransactions` options no longer keep (under the history
    /// lock the append took).
    private func pruneAutomatically(on connection: PostgresConnection) throws {
        let end = try options.history.automaticPruningEnd(
            now: Date(), kept: try PostgresHistoryTable.keptRange(schema: schema, on: connection)
        ) { date, limit in
            try PostgresHistoryTable.lastSequence(before: date, limit: limit, schema: schema, on: connection)
        }
        if let end { _ = try PostgresHistoryTable.prune(through: end, schema: schema, on: connection) }
    }

    /// The last sequence the next step of `pruning` deletes, at most `limit` transactions from the
    /// oldest one kept; `nil` when it deletes nothing.
    private func pruneEnd(_ pruning: HistoryPruning, limit: Int, on connection: PostgresConnection) throws -> Int64? {
        try pruning.batchEnd(kept: try PostgresHistoryTable.keptRange(schema: schema, on: connection), limit: limit) {
            date, limit in
            try PostgresHistoryTable.lastSequence(before: date, limit: limit, schema: schema, on: connection)
        }
    }
}
