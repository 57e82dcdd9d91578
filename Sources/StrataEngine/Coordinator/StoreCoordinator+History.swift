import StrataCore

extension StoreCoordinator {
    /// The stores that record persistent history, in the order they were added.
    public var historyRecordingStores: [any HistoryRecording] {
        stores.compactMap { store in
            store.capability((any HistoryRecording).self).flatMap { $0.recordsHistory ? $0 : nil }
        }
    }

    /// Reads persistent history: of the store the request's token belongs to, or without a token,
    /// of `storeIdentifier`'s store (the first store that records history when `nil`).
    ///
    /// ```swift
    /// let transactions = try coordinator.fetchHistory(HistoryRequest(after: lastToken))
    /// lastToken = transactions.last?.token ?? lastToken
    /// ```
    ///
    /// - Throws: ``StrataError/Code/historyExpired`` when the history after the token was pruned
    ///   (refetch everything); ``StrataError/Code/unsupported`` when no such store records history;
    ///   ``StrataError/Code/invalidRequest`` for a token of a store this coordinator lacks.
    public func fetchHistory(_ request: HistoryRequest, storeIdentifier: String? = nil) throws
        -> [HistoryTransaction]
    {
        try historyStore(request.after?.storeIdentifier ?? storeIdentifier).fetchHistory(request)
    }

    /// The token of the last transaction in the history of `storeIdentifier`'s store (the first
    /// store that records history when `nil`), by any process; `nil` before the first.
    public func lastHistoryToken(storeIdentifier: String? = nil) throws -> HistoryToken? {
        try historyStore(storeIdentifier).lastHistoryToken()
    }

    /// Prunes the history of the store a `.through` token belongs to, or of `storeIdentifier`'s
    /// store (the first store that records history when `nil`), and returns how many
    /// transactions it deleted.
    @discardableResult
    public func pruneHistory(_ pruning: HistoryPruning, storeIdentifier: String? = nil) throws -> Int {
        if case .through(let token) = pruning {
            return try historyStore(token.storeIdentifier).pruneHistory(pruning)
        }
        return try historyStore(storeIdentifier).pruneHistory(pruning)
    }

    /// The store whose history to read.
    private func historyStore(_ identifier: String?) throws -> any HistoryRecording {
        let recording = historyRecordingStores
        guard let identifier else {
            guard let first = recording.first else {
                throw StrataError(
                    .unsupported,
                    "no store of this coordinator records history (its backend keeps none, or the store's option history is off)"
                )
            }
            return first
        }
        if let store = recording.first(where: { $0.identifier == identifier }) { return store }
        if stores.contains(where: { $0.identifier == identifier }) {
            throw StrataError(
                .unsupported,
                "the store '\(identifier)' records no history (its backend keeps none, or its option history is off)",
                location: ["store": identifier])
        }
        throw StrataError(
            .invalidRequest, "this coordinator has no store '\(identifier)'", location: ["store": identifier])
    }
}
