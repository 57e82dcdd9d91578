import Foundation
import StrataCore

/// Persistent history inside the store file: `<_history>` after the objects, one
/// `<_transaction>` per recorded save (``XMLHistoryCoding``). A save appends its transaction to
/// the next image, so the file holds a save's transaction exactly when it holds the save.
///
/// Another process's saves replace the file: ``lastHistoryToken()`` and ``fetchHistory(_:)``
/// compare the file's identity (device, inode, size, modification time) with the one this store
/// loaded or last saved, and when it differs load the file again and adopt it, so the store then
/// answers fetches and saves from that state (the alternative, refusing to save, is what a store
/// does that has not looked).
extension XMLStore: HistoryRecording {
    /// Whether saves append to the history (the `history` option).
    public var recordsHistory: Bool { options.history.isEnabled }

    /// The transactions `request` asks for, the oldest first, after adopting another process's
    /// save if there was one.
    ///
    /// - Throws: ``StrataError/Code/historyExpired``, ``StrataError/Code/invalidRequest`` (see
    ///   ``HistoryRequest/validate(storeIdentifier:prunedThrough:path:)``), and
    ///   ``StrataError/Code/storeCorrupt`` naming the token of a damaged transaction.
    public func fetchHistory(_ request: HistoryRequest) throws -> [HistoryTransaction] {
        try adoptChangesOnDisk()
        let history = try state.withLock { state in
            try checkOpen(state)
            return state.image.history
        }
        try request.validate(storeIdentifier: identifier, prunedThrough: history.prunedThrough, path: path)
        var result: [HistoryTransaction] = []
        if request.limit == 0 { return result }
        let after = request.after?.sequence ?? 0
        let start = history.entries.partitioningIndex { $0.sequence > after }
        for entry in history.entries[start...] {
            let token = HistoryToken(storeIdentifier: identifier, sequence: entry.sequence)
            let transaction = try XMLHistoryCoding.transaction(from: entry.element, token: token, path: path)
            if let admitted = request.admitting(transaction) {
                result.append(admitted)
                if let limit = request.limit, result.count >= limit { break }
            }
        }
        return result
    }

    /// The token of the last recorded save, by this process or another: one `stat` of the file,
    /// and a load of it when another process replaced it. `nil` before the first.
    public func lastHistoryToken() throws -> HistoryToken? {
        try adoptChangesOnDisk()
        let last = try state.withLock { state in
            try checkOpen(state)
            return state.image.history.lastSequence
        }
        return last > 0 ? HistoryToken(storeIdentifier: identifier, sequence: last) : nil
    }

    /// Deletes transactions, the oldest first, and rewrites the file (as a save does). Returns
    /// how many it deleted; when none, the file is left alone.
    ///
    /// - Throws: ``StrataError/Code/readOnly``; ``StrataError/Code/invalidRequest`` for a token
    ///   of another store or a negative count; ``StrataError/Code/storeCorrupt`` when pruning by
    ///   date meets a transaction whose time cannot be read (prune through its token instead);
    ///   what a save throws when writing the file.
    @discardableResult
    public func pruneHistory(_ pruning: HistoryPruning) throws -> Int {
        try pruning.validate(storeIdentifier: identifier, path: path)
        try adoptChangesOnDisk()
        return try saveLock.withLock {
            let (current, hook, fileLock) = try state.withLock { state in
                try checkOpen(state)
                return (state.image, state.beforeRename, state.fileLock)
            }
            guard !options.isReadOnly, let fileLock else {
                throw StrataError(
                    .readOnly, "the XML store \(path) was opened read-only; no history was pruned",
                    location: ["path": path])
            }
            var next = current
            let pruned = next.history.prune(pruning, upTo: .max)
            if case .before = pruning, let stop = next.history.entries.first,
                XMLHistoryCoding.timestamp(of: stop.element) == nil
            {
                let token = HistoryToken(storeIdentifier: identifier, sequence: stop.sequence)
                throw StrataError(
                    .storeCorrupt,
                    "the history transaction \(token) in \(path) is damaged: its timestamp '\(stop.element["timestamp"] ?? "")' is not a date; nothing was pruned",
                    location: ["path": path, "token": token.description])
            }
            if pruned > 0 {
                try replaceFile(with: next, fileLock: fileLock, hook: hook, loggedMetadata: ["pruned": String(pruned)])
            }
            return pruned
        }
    }

    /// Deletes the transactions through `sequence`, raises the last pruned sequence to it and
    /// rewrites the file (as a save does); leaves the file alone when it already goes on after
    /// `sequence`.
    ///
    /// - Throws: ``StrataError/Code/readOnly``; what a save throws when writing the file.
    public func continueHistory(after sequence: Int64) throws {
        try adoptChangesOnDisk()
        try saveLock.withLock {
            let (current, hook, fileLock) = try state.withLock { state in
                try checkOpen(state)
                return (state.image, state.beforeRename, state.fileLock)
            }
            guard !options.isReadOnly, let fileLock else {
                throw StrataError(
                    .readOnly, "the XML store \(path) was opened read-only; its history was not moved on",
                    location: ["path": path])
            }
            guard current.history.prunedThrough < sequence else { return }
            var next = current
            _ = next.history.prune(.through(HistoryToken(storeIdentifier: identifier, sequence: sequence)), upTo: .max)
            next.history.prunedThrough = max(next.history.prunedThrough, sequence)
            try replaceFile(
                with: next, fileLock: fileLock, hook: hook, loggedMetadata: ["historyContinuesAfter": String(sequence)])
        }
    }

    // MARK: In a save

    /// Appends the transaction of `request` to `next`'s history (the state before the save is
    /// `current`) and prunes what the options no longer keep, a bounded batch at a time. Returns
    /// the transaction's token; `nil` when the save records nothing.
    @discardableResult
    func recordHistory(of request: SaveRequest, before current: XMLStoreImage, in next: inout XMLStoreImage) throws
        -> HistoryToken?
    {
        let changes = try historyRecorder.changes(for: request) { id in snapshot(of: id, in: current) }
        if changes.isEmpty { return nil }
        let now = Date()
        let token = HistoryToken(storeIdentifier: identifier, sequence: current.history.lastSequence + 1)
        next.history.append(
            HistoryTransaction(
                token: token, timestamp: now, author: request.transactionAuthor, contextName: request.contextName,
                changes: changes))
        let history = options.history
        var budget = HistoryOptions.pruneBatch
        if let keep = history.keepTransactions { budget -= next.history.prune(.keepingLast(keep), upTo: budget) }
        if let days = history.keepDays, budget > 0 {
            _ = next.history.prune(.before(now.addingTimeInterval(-Double(days) * 86_400)), upTo: budget)
        }
        return token
    }

    // MARK: Other processes' saves

    /// Loads the file again and adopts it when another process replaced it since this store
    /// loaded or saved it. Keys handed out here meanwhile stay handed out.
    ///
    /// - Throws: what opening throws for the new file (``StrataError/Code/modelMismatch`` when
    ///   another process migrated it), and ``StrataError/Code/storeBusy`` when it is now another
    ///   store's file: reopen the store.
    func adoptChangesOnDisk() throws {
        func changed() throws -> Bool {
            let loaded = try state.withLock { state in
                try checkOpen(state)
                return state.fileIdentity
            }
            guard let onDisk = XMLFileIdentity.of(path: path) else { return false }
            return onDisk != loaded
        }
        guard try changed() else { return }
        try saveLock.withLock {
            guard try changed() else { return }
            let (image, identity) = try XMLStoreReader.load(path: path, url: url, layout: layout, model: model)
            guard image.metadata.storeIdentifier == identifier else {
                throw StrataError(
                    .storeBusy,
                    "the XML store \(path) was replaced by another store ('\(image.metadata.storeIdentifier)', not '\(identifier)'); reopen it",
                    location: ["path": path])
            }
            state.withLock { state in
                var adopted = image
                for e in adopted.nextKeys.indices {
                    adopted.nextKeys[e] = max(adopted.nextKeys[e], state.image.nextKeys[e])
                }
                state.image = adopted
                state.fileIdentity = identity
            }
        }
    }
}

extension Array {
    /// The index of the first element for which `belongs` is true, given that it is false for a
    /// prefix and true for the rest (a binary search).
    fileprivate func partitioningIndex(where belongs: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if belongs(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
