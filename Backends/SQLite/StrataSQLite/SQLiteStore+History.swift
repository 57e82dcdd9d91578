import Foundation
import StrataCore

/// Persistent history in the table `_strata_history` (see ``SQLiteHistoryTable`` and
/// docs/SQLiteStore.md): each save appends one row in its own `BEGIN IMMEDIATE` transaction, so
/// history and data commit together, and the row's sequence follows the last one any process
/// wrote.
extension SQLiteStore: HistoryRecording {
    /// Whether saves append to the history (the `history` option; on by default).
    public var recordsHistory: Bool { options.history.isEnabled }

    /// The transactions `request` asks for, the oldest first, read in one read transaction on a
    /// reader connection: the token and the author filter are part of the SQL (a seek on the
    /// rowid), the entity filter is applied to each decoded record, and the limit counts the
    /// transactions returned.
    ///
    /// - Throws: ``StrataError/Code/historyExpired``, ``StrataError/Code/invalidRequest`` (see
    ///   ``HistoryRequest/validate(storeIdentifier:prunedThrough:path:)``);
    ///   ``StrataError/Code/storeCorrupt`` naming the token of a record that cannot be decoded.
    public func fetchHistory(_ request: HistoryRequest) throws -> [HistoryTransaction] {
        try withReader { connection in
            guard try hasHistoryTable(connection) else {
                try request.validate(storeIdentifier: identifier, prunedThrough: 0, path: path)
                return []
            }
            return try readTransaction(on: connection, needed: true) {
                let pruned = try SQLiteHistoryTable.prunedThrough(on: connection)
                try request.validate(storeIdentifier: identifier, prunedThrough: pruned, path: path)
                return try readHistory(request, on: connection)
            }
        }
    }

    /// The token of the last committed transaction of any process (a kept or a pruned one), or
    /// `nil` before the first: one statement on a reader connection, two seeks to the end of a
    /// B-tree. Each call starts a new read, so it sees commits made since by other processes.
    public func lastHistoryToken() throws -> HistoryToken? {
        try withReader { connection in
            guard try hasHistoryTable(connection), let sequence = try SQLiteHistoryTable.lastSequence(on: connection)
            else { return nil }
            return HistoryToken(storeIdentifier: identifier, sequence: sequence)
        }
    }

    /// Deletes transactions, the oldest first, in write transactions of at most
    /// ``HistoryOptions/pruneBatch`` transactions each (writers of other threads and processes
    /// get the file between them); returns how many it deleted.
    ///
    /// - Throws: ``StrataError/Code/invalidRequest`` for a token of another store or a negative
    ///   count; ``StrataError/Code/readOnly`` on a store opened read-only.
    @discardableResult
    public func pruneHistory(_ pruning: HistoryPruning) throws -> Int {
        try pruning.validate(storeIdentifier: identifier, path: path)
        var total = 0
        while true {
            let deleted: Int = try inWriteTransaction { connection in
                guard let end = try pruneEnd(pruning, limit: HistoryOptions.pruneBatch, on: connection) else {
                    return 0
                }
                return try SQLiteHistoryTable.prune(through: end, on: connection)
            }
            total += deleted
            if deleted < HistoryOptions.pruneBatch { return total }
        }
    }

    // MARK: Recording in a save

    /// The stored state of the objects `request` changes that history needs and the request
    /// does not carry: each update whose ``SaveRequest/Update/previous`` is missing or at another
    /// version, and each such delete of an entity that keeps values after deletion. Read on the
    /// writer inside the save's transaction, before its statements run: one read per entity.
    func storedStatesForHistory(of request: SaveRequest, on connection: SQLiteConnection) throws
        -> [ObjectID: Snapshot]
    {
        let keys = HistoryChangeRecorder(model: model).keysNeedingStoredState(of: request)
        var states: [ObjectID: Snapshot] = [:]
        for (entity, entityKeys) in keys {
            for snapshot in try fetchSnapshots(entity: entity, keys: entityKeys.sorted(), on: connection) {
                states[snapshot.objectID] = snapshot
            }
        }
        return states
    }

    /// Appends the transaction of `request` (whose version checks passed) to the history, then
    /// prunes what the options no longer keep; returns the transaction's token. Records nothing
    /// (and returns `nil`) for a save that changes no object.
    @discardableResult
    func appendHistory(
        for request: SaveRequest, storedStates: [ObjectID: Snapshot], on connection: SQLiteConnection
    ) throws -> HistoryToken? {
        guard !(request.inserts.isEmpty && request.updates.isEmpty && request.deletes.isEmpty) else { return nil }
        let changes = try HistoryChangeRecorder(model: model).changes(for: request) { storedStates[$0] }
        let transaction = HistoryTransaction(
            token: HistoryToken(storeIdentifier: identifier, sequence: 0), timestamp: Date(),
            author: request.transactionAuthor, contextName: request.contextName, changes: changes)
        let sequence = try SQLiteHistoryTable.append(transaction, on: connection)
        if options.history.prunesAutomatically { try pruneAutomatically(on: connection) }
        return HistoryToken(storeIdentifier: identifier, sequence: sequence)
    }

    /// Deletes at most ``HistoryOptions/pruneBatch`` of the oldest transactions that the
    /// `historyKeepDays` and `historyKeepTransactions` options no longer keep. When nothing is
    /// due it reads one or two rows.
    private func pruneAutomatically(on connection: SQLiteConnection) throws {
        let end = try options.history.automaticPruningEnd(
            now: Date(), kept: try SQLiteHistoryTable.keptRange(on: connection)
        ) { date, limit in
            try SQLiteHistoryTable.lastSequence(before: date, limit: limit, on: connection)
        }
        if let end { _ = try SQLiteHistoryTable.prune(through: end, on: connection) }
    }

    /// The last sequence the next step of `pruning` deletes, at most `limit` transactions from the
    /// oldest one kept; `nil` when it deletes nothing.
    private func pruneEnd(_ pruning: HistoryPruning, limit: Int, on connection: SQLiteConnection) throws -> Int64? {
        try pruning.batchEnd(kept: try SQLiteHistoryTable.keptRange(on: connection), limit: limit) { date, limit in
            try SQLiteHistoryTable.lastSequence(before: date, limit: limit, on: connection)
        }
    }

    // MARK: Reading

    /// Whether the file has the history table (a store made before history and opened read-only
    /// has none until a writable open adds it). Remembered once found.
    private func hasHistoryTable(_ connection: SQLiteConnection) throws -> Bool {
        if historyTableFound.withLock({ $0 }) { return true }
        guard try SQLiteHistoryTable.exists(in: connection) else { return false }
        historyTableFound.withLock { $0 = true }
        return true
    }

    /// The transactions of `request` (already validated), read on `connection`.
    private func readHistory(_ request: HistoryRequest, on connection: SQLiteConnection) throws
        -> [HistoryTransaction]
    {
        if request.limit == 0 { return [] }
        // With an entity filter, the limit counts the transactions that pass it: read on.
        let limitInSQL = request.entityNames == nil ? request.limit : nil
        let statement = try connection.prepare(
            SQLiteHistoryTable.readSQL(filteringAuthors: request.authors != nil, limited: limitInSQL != nil))
        defer { statement.reset() }
        statement.bind(1, request.after?.sequence ?? 0)
        var next: Int32 = 2
        if let authors = request.authors {
            statement.bind(next, Self.jsonArray(authors.sorted()))
            next += 1
        }
        if let limitInSQL { statement.bind(next, Int64(limitInSQL)) }
        var transactions: [HistoryTransaction] = []
        while try statement.step() {
            let token = HistoryToken(storeIdentifier: identifier, sequence: statement.int64(0))
            let transaction: HistoryTransaction
            do {
                transaction = try HistoryRecordCodec.decode(statement.bytes(1), token: token)
            } catch var error as StrataError {
                error.location["path"] = path
                throw error
            }
            guard let admitted = request.admitting(transaction) else { continue }
            transactions.append(admitted)
            if let limit = request.limit, transactions.count >= limit { break }
        }
        return transactions
    }

    /// `strings` as a JSON array, for `json_each`.
    private static func jsonArray(_ strings: [String]) -> String {
        let data = (try? JSONEncoder().encode(strings)) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
