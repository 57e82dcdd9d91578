import StrataCore

extension ObjectContext {
    /// The transactions of the stores' persistent history that `request` asks for, the oldest
    /// first (see ``StoreCoordinator/fetchHistory(_:)``). Follows the context's queue rules, as
    /// a fetch does.
    ///
    /// ```swift
    /// let recent = try context.fetchHistory(HistoryRequest(after: lastToken, authors: ["importer"]))
    /// ```
    ///
    /// - Throws: ``StrataError/Code/historyExpired`` when the transactions after the request's
    ///   token were pruned (fetch everything again); ``StrataError/Code/invalidRequest`` for a
    ///   negative limit or a token of another store.
    public func fetchHistory(_ request: HistoryRequest) throws -> [HistoryTransaction] {
        checkConfinement()
        return try coordinator.fetchHistory(request)
    }

    /// The transactions after `token`, read `pageSize` at a time as they are iterated, as an
    /// asynchronous sequence; only those of `authors` and with changes of `entityNames`, when
    /// given (see ``HistoryRequest``).
    ///
    /// ```swift
    /// for try await transaction in context.history(after: lastToken, waitingEvery: .milliseconds(20)) {
    ///     apply(transaction)
    ///     lastToken = transaction.token
    /// }
    /// ```
    ///
    /// The sequence reads through the coordinator and touches no object of this context, so any
    /// task may iterate it. It ends once it has caught up, unless `waitingEvery` is given: it
    /// then looks for new transactions at that interval until its task is cancelled.
    ///
    /// - Parameter pageSize: how many transactions one read asks for (at least 1).
    public func history(
        after token: HistoryToken? = nil, authors: Set<String>? = nil, entityNames: Set<String>? = nil,
        pageSize: Int = 500, waitingEvery waitInterval: Duration? = nil
    ) -> HistoryTransactions {
        let coordinator = self.coordinator
        return HistoryTransactions(
            request: HistoryRequest(after: token, authors: authors, entityNames: entityNames, limit: max(1, pageSize)),
            waitInterval: waitInterval, read: { try coordinator.fetchHistory($0) })
    }
}
