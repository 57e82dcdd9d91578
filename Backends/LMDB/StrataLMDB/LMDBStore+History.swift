import CStrataLMDB
import Foundation
import StrataCore

/// Persistent history in the named database `_hist`: one entry per recorded save, keyed by its
/// sequence (8 bytes, big-endian, so the keys sort in commit order and appends go at the end),
/// holding the ``HistoryRecordCodec`` record. The last pruned sequence is `historyPrunedThrough`
/// in `_meta`; the next sequence is one above the larger of the last key and that, so a sequence
/// is never handed out twice, even when every transaction was pruned.
///
/// A save appends its transaction in its own write transaction (``apply``), so the history holds
/// a save exactly when the data does, across processes (LMDB has one writer at a time).
extension LMDBStore: HistoryRecording {
    /// Whether saves append to the history: the `history` option is on and the store has a
    /// history database (a store made before history and opened read-only has none).
    public var recordsHistory: Bool { historyOptions.isEnabled && historyDBI != nil }

    /// The transactions `request` asks for, the oldest first, read in one snapshot.
    ///
    /// Reads the entries after the request's token with one cursor and decodes each; filters
    /// with ``HistoryRequest/admitting(_:)``; stops at the limit of transactions returned.
    ///
    /// - Throws: ``StrataError/Code/historyExpired``, ``StrataError/Code/invalidRequest`` (see
    ///   ``HistoryRequest/validate(storeIdentifier:prunedThrough:path:)``), and
    ///   ``StrataError/Code/storeCorrupt`` naming the token of a damaged transaction.
    public func fetchHistory(_ request: HistoryRequest) throws -> [HistoryTransaction] {
        try ensureOpen()
        guard let historyDBI = try historyDatabase() else {
            try request.validate(storeIdentifier: identifier, prunedThrough: 0, path: path)
            return []
        }
        do {
            return try environment.read { txn in
                try request.validate(
                    storeIdentifier: identifier, prunedThrough: try historyPrunedThrough(txn), path: path)
                var result: [HistoryTransaction] = []
                if request.limit == 0 { return result }
                let cursor = try txn.cursor(historyDBI)
                defer { cursor.close() }
                let first = (request.after?.sequence ?? 0) + 1
                var entry = try HistorySequence.withKey(first) { try cursor.seek(atLeast: $0) }
                while let (key, value) = entry {
                    let token = try historyToken(key)
                    let transaction = try decodeHistory(value, token: token)
                    if let admitted = request.admitting(transaction) {
                        result.append(admitted)
                        if let limit = request.limit, result.count >= limit { break }
                    }
                    entry = try cursor.move(MDB_NEXT)
                }
                return result
            }
        } catch {
            throw environment.translate(error, doing: "reading the history")
        }
    }

    /// The token of the last recorded save, by this process or another: read in a new snapshot,
    /// which sees every commit so far (one B-tree descent). `nil` before the first.
    public func lastHistoryToken() throws -> HistoryToken? {
        try ensureOpen()
        guard let historyDBI = try historyDatabase() else { return nil }
        do {
            let last = try environment.read { txn in try lastHistorySequence(txn, historyDBI) }
            return last > 0 ? HistoryToken(storeIdentifier: identifier, sequence: last) : nil
        } catch {
            throw environment.translate(error, doing: "reading the last history token")
        }
    }

    /// Deletes transactions, the oldest first, in write transactions of at most
    /// ``HistoryOptions/pruneBatch`` deletions each, so a long prune never holds the writer lock
    /// for long. Returns how many it deleted.
    ///
    /// - Throws: ``StrataError/Code/readOnly``; ``StrataError/Code/invalidRequest`` for a token
    ///   of another store or a negative count; ``StrataError/Code/storeCorrupt`` when pruning by
    ///   date meets a transaction whose time cannot be read (prune through its token instead).
    @discardableResult
    public func pruneHistory(_ pruning: HistoryPruning) throws -> Int {
        try ensureOpen()
        if isReadOnly {
            throw StrataError(
                .readOnly, "the LMDB store at \(path) is open read-only; no history was pruned",
                location: ["path": path])
        }
        try pruning.validate(storeIdentifier: identifier, path: path)
        guard let historyDBI else { return 0 }
        var total = 0
        do {
            while true {
                let deleted = try environment.write { txn in
                    try pruneOldest(txn, historyDBI, pruning, upTo: HistoryOptions.pruneBatch)
                }
                total += deleted
                if deleted < HistoryOptions.pruneBatch { return total }
            }
        } catch {
            throw environment.translate(error, doing: "pruning the history")
        }
    }

    /// Deletes the transactions through `sequence` and raises `historyPrunedThrough` in `_meta`
    /// to it, in one write transaction.
    ///
    /// - Throws: ``StrataError/Code/readOnly`` on a store opened read-only.
    public func continueHistory(after sequence: Int64) throws {
        try ensureOpen()
        guard !isReadOnly, let historyDBI else {
            throw StrataError(
                .readOnly, "the LMDB store at \(path) is open read-only; its history was not moved on",
                location: ["path": path])
        }
        do {
            try environment.write { txn in
                let through = HistoryPruning.through(HistoryToken(storeIdentifier: identifier, sequence: sequence))
                _ = try pruneOldest(txn, historyDBI, through, upTo: .max)
                if sequence > (try historyPrunedThrough(txn)) {
                    try LMDBStore.putText(txn, metadataDBI, LMDBLayout.historyPrunedThroughKey, String(sequence))
                }
            }
        } catch {
            throw environment.translate(error, doing: "moving the history on")
        }
    }

    // MARK: In a save

    /// Appends the transaction of `request` to the history in the save's write transaction
    /// `txn`, after its version checks, and prunes per ``historyOptions``. `storedState` gives the
    /// state before the save of the objects whose request carries no usable `previous`. Returns
    /// the transaction's token; `nil` when it records nothing.
    @discardableResult
    func recordHistory(
        of request: SaveRequest, _ txn: LMDBTransaction, storedState: (ObjectID) -> Snapshot?
    ) throws -> HistoryToken? {
        guard let historyDBI else { return nil }
        if request.inserts.isEmpty && request.updates.isEmpty && request.deletes.isEmpty { return nil }
        let now = Date()
        let sequence = try lastHistorySequence(txn, historyDBI) + 1
        let record = try historyRecorder.record(for: request, timestamp: now) { storedState($0) }.record
        try HistorySequence.withKey(sequence) { key in
            try record.withUnsafeBytes { _ = try txn.put(historyDBI, key: key, value: $0, flags: UInt32(MDB_APPEND)) }
        }
        try pruneAutomatically(txn, historyDBI, at: now)
        return HistoryToken(storeIdentifier: identifier, sequence: sequence)
    }

    /// Prunes at most ``HistoryOptions/pruneBatch`` transactions beyond what the options keep.
    /// A transaction whose time cannot be read stops pruning by date (the save goes on).
    private func pruneAutomatically(_ txn: LMDBTransaction, _ dbi: MDB_dbi, at now: Date) throws {
        guard historyOptions.prunesAutomatically else { return }
        var budget = HistoryOptions.pruneBatch
        if let keep = historyOptions.keepTransactions {
            budget -= try pruneOldest(txn, dbi, .keepingLast(keep), upTo: budget)
        }
        if let days = historyOptions.keepDays, budget > 0 {
            let cutoff = now.addingTimeInterval(-Double(days) * 86_400)
            _ = try pruneOldest(txn, dbi, .before(cutoff), upTo: budget, stoppingAtDamage: true)
        }
    }

    // MARK: Helpers

    /// Deletes up to `limit` of the oldest transactions that `pruning` covers, raises the pruned
    /// sequence in `_meta`, and returns how many it deleted. A transaction whose time cannot be
    /// read ends pruning by date when `stoppingAtDamage`, and throws otherwise.
    private func pruneOldest(
        _ txn: LMDBTransaction, _ dbi: MDB_dbi, _ pruning: HistoryPruning, upTo limit: Int,
        stoppingAtDamage: Bool = false
    ) throws -> Int {
        var excess = 0
        if case .keepingLast(let keep) = pruning {
            excess = try txn.count(dbi) - keep
            if excess <= 0 { return 0 }
        }
        let cursor = try txn.cursor(dbi)
        defer { cursor.close() }
        var deleted = 0
        var last: Int64?
        while deleted < limit, let (key, value) = try cursor.move(MDB_FIRST) {
            let token = try historyToken(key)
            let covered: Bool
            switch pruning {
            case .through(let through): covered = token.sequence <= through.sequence
            case .before(let date):
                if stoppingAtDamage {
                    covered = (try? historyTimestamp(value, token: token)).map { $0 < date } ?? false
                } else {
                    covered = try historyTimestamp(value, token: token) < date
                }
            case .keepingLast: covered = deleted < excess
            }
            guard covered else { break }
            try cursor.deleteCurrent()
            deleted += 1
            last = token.sequence
        }
        if let last, last > (try historyPrunedThrough(txn)) {
            try LMDBStore.putText(txn, metadataDBI, LMDBLayout.historyPrunedThroughKey, String(last))
        }
        return deleted
    }

    /// The last sequence handed out: the last key, or the pruned sequence when every
    /// transaction was pruned (0 before the first).
    func lastHistorySequence(_ txn: LMDBTransaction, _ dbi: MDB_dbi) throws -> Int64 {
        let cursor = try txn.cursor(dbi)
        defer { cursor.close() }
        if let (key, _) = try cursor.move(MDB_LAST) { return try historyToken(key).sequence }
        return try historyPrunedThrough(txn)
    }

    /// The last pruned sequence, from `_meta` (0 when nothing was pruned).
    func historyPrunedThrough(_ txn: LMDBTransaction) throws -> Int64 {
        let value = try Array(LMDBLayout.historyPrunedThroughKey.utf8).withUnsafeBytes {
            try txn.get(metadataDBI, key: $0).map { String(decoding: $0, as: UTF8.self) }
        }
        guard let value else { return 0 }
        guard let sequence = Int64(value), sequence >= 0 else {
            throw StrataError(
                .storeCorrupt,
                "the LMDB store at \(path) records '\(value.prefix(40))' as its pruned history sequence",
                location: ["path": path, "key": LMDBLayout.historyPrunedThroughKey])
        }
        return sequence
    }

    /// The token of the history key `key`.
    private func historyToken(_ key: UnsafeRawBufferPointer) throws -> HistoryToken {
        guard let sequence = HistorySequence.decode(key) else {
            throw StrataError(
                .storeCorrupt, "the LMDB store at \(path) has a history key of \(key.count) bytes, not 8",
                location: ["path": path, "database": LMDBLayout.historyDatabase])
        }
        return HistoryToken(storeIdentifier: identifier, sequence: sequence)
    }

    /// The commit time recorded in `value`, or ``StrataError/Code/storeCorrupt`` naming its
    /// token and the store's path.
    private func historyTimestamp(_ value: UnsafeRawBufferPointer, token: HistoryToken) throws -> Date {
        do {
            return try HistoryRecordCodec.timestamp(of: value, token: token)
        } catch var error as StrataError {
            error.location["path"] = path
            throw error
        }
    }

    /// The transaction in `value`, or ``StrataError/Code/storeCorrupt`` naming its token and the
    /// store's path.
    private func decodeHistory(_ value: UnsafeRawBufferPointer, token: HistoryToken) throws -> HistoryTransaction {
        do {
            return try HistoryRecordCodec.decode(value, token: token)
        } catch var error as StrataError {
            error.location["path"] = path
            throw error
        }
    }
}

extension LMDBStore {
    /// The history database to read: the one the store opened with, or, in a read-only store
    /// made before history, the one another process has added since (looked for at each call
    /// until found: one read transaction).
    func historyDatabase() throws -> MDB_dbi? {
        if let historyDBI { return historyDBI }
        if let added = addedHistoryDBI.withLock({ $0 }) { return added }
        do {
            guard try environment.hasDatabase(LMDBLayout.historyDatabase) else { return nil }
            let dbi = try environment.openDatabases([(LMDBLayout.historyDatabase, 0)], create: false)[
                LMDBLayout.historyDatabase]
            addedHistoryDBI.withLock { $0 = dbi }
            return dbi
        } catch {
            throw environment.translate(error, doing: "opening the history database")
        }
    }

    /// The history database of the environment: opened when it exists, created when the store
    /// is writable and lacks it (a store made before history); `nil` for such a store opened
    /// read-only.
    static func openHistoryDatabase(_ environment: LMDBEnvironment, readOnly: Bool) throws -> MDB_dbi? {
        let exists = try environment.hasDatabase(LMDBLayout.historyDatabase)
        if !exists && readOnly { return nil }
        return try environment.openDatabases([(LMDBLayout.historyDatabase, 0)], create: !exists)[
            LMDBLayout.historyDatabase]
    }
}

/// History sequences as LMDB keys: 8 bytes, big-endian (sequences are positive, so the byte
/// order is the numeric order).
enum HistorySequence {
    /// The sequence in `bytes`, or `nil` when they are not 8 bytes.
    static func decode(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        guard bytes.count == 8 else { return nil }
        return Int64(bitPattern: UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self)))
    }

    /// Calls `body` with the key bytes of `sequence`.
    static func withKey<R>(_ sequence: Int64, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var encoded = UInt64(bitPattern: sequence).bigEndian
        return try withUnsafeBytes(of: &encoded) { try body($0) }
    }
}
