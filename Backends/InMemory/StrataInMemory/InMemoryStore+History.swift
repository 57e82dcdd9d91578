import StrataCore

extension InMemoryStore: HistoryRecording {
    /// Whether saves append to the history (the `history` option; on by default).
    public var recordsHistory: Bool { historyOptions.isEnabled }

    /// The transactions `request` asks for, the oldest first.
    public func fetchHistory(_ request: HistoryRequest) throws -> [HistoryTransaction] {
        try checkOpenForHistory()
        let history = storage.state.withLock { $0.history }
        try request.validate(
            storeIdentifier: identifier, prunedThrough: history.prunedThrough, path: url.description)
        let after = request.after?.sequence ?? 0
        let start = history.transactions.partitionPoint { $0.token.sequence > after }
        var result: [HistoryTransaction] = []
        for transaction in history.transactions[start...] {
            if let limit = request.limit, result.count >= limit { break }
            if let kept = request.admitting(transaction) { result.append(kept) }
        }
        return result
    }

    /// The token of the last recorded transaction, `nil` before the first.
    public func lastHistoryToken() throws -> HistoryToken? {
        try checkOpenForHistory()
        let last = storage.state.withLock { $0.history.lastSequence }
        return last > 0 ? HistoryToken(storeIdentifier: identifier, sequence: last) : nil
    }

    /// Deletes the transactions `pruning` covers and returns how many.
    @discardableResult
    public func pruneHistory(_ pruning: HistoryPruning) throws -> Int {
        try checkWritable()
        try pruning.validate(storeIdentifier: identifier, path: url.description)
        return storage.state.withLock { state in
            state.history.prune(count: state.history.count(coveredBy: pruning))
        }
    }

    /// Deletes the transactions through `sequence` and raises the last pruned (and the last
    /// handed out) sequence to it.
    public func continueHistory(after sequence: Int64) throws {
        try checkWritable()
        storage.state.withLock { state in
            state.history.prune(
                count: state.history.count(
                    coveredBy: .through(HistoryToken(storeIdentifier: identifier, sequence: sequence))))
            state.history.prunedThrough = max(state.history.prunedThrough, sequence)
            state.history.lastSequence = max(state.history.lastSequence, sequence)
        }
    }

    /// The changes `request` makes, read from `state` before the save changes it; `nil` when
    /// history is off or the request changes no object.
    func historyChanges(of request: SaveRequest, in state: InMemoryState) throws -> [HistoryChange]? {
        guard historyOptions.isEnabled,
            !(request.inserts.isEmpty && request.updates.isEmpty && request.deletes.isEmpty)
        else { return nil }
        return try HistoryChangeRecorder(model: model).changes(for: request) { id in
            state.tables[id.entityName]?[id.permanentKey]
        }
    }

    /// Records a batch operation's changes: `before` holds the changed objects as they were,
    /// `after` as they are now (`nil` for the deleted ones).
    func recordBatch(before: [Snapshot], after: [ObjectID: Snapshot], in state: inout InMemoryState) {
        guard historyOptions.isEnabled, !before.isEmpty else { return }
        let recorder = HistoryChangeRecorder(model: model)
        var request = SaveRequest()
        for old in before {
            if let new = after[old.objectID] {
                request.updates.append(.init(new, expectedVersion: old.version, previous: old))
            } else {
                request.deletes.append(.init(old.objectID, expectedVersion: old.version, previous: old))
            }
        }
        let changes = (try? recorder.changes(for: request) { _ in nil }) ?? []
        state.history.append(changes, of: request, storeIdentifier: identifier, options: historyOptions)
    }

    private func checkOpenForHistory() throws {
        _ = try metadata()
    }
}

extension Collection {
    /// The index of the first element for which `belongs` holds, in a collection where it holds
    /// for a suffix.
    fileprivate func partitionPoint(where belongs: (Element) -> Bool) -> Index {
        var low = startIndex
        var count = self.count
        while count > 0 {
            let half = count / 2
            let middle = index(low, offsetBy: half)
            if belongs(self[middle]) {
                count = half
            } else {
                low = index(after: middle)
                count -= half + 1
            }
        }
        return low
    }
}
