import StrataCore

extension ObjectContext {
    /// Who saves: recorded with each of this context's saves in the store's persistent history
    /// (``HistoryTransaction/author``), so a reader can tell an import's changes from the user's
    /// (``HistoryRequest/authors``). Core Data's `transactionAuthor`; `nil` by default.
    ///
    /// Set it on the context where the changes are made. Changes a child context saves into its
    /// parent carry the child's author (or, when it has none, what its own children's saves
    /// carried) up to the context that writes them to the stores, which records the author of
    /// the last such save, or its own when that carried none. The context's ``name`` travels the
    /// same way and is recorded as ``HistoryTransaction/contextName``.
    ///
    /// Thread-safe: may be set from any thread; a save takes the value current when it begins.
    public var transactionAuthor: String? {
        get { transactionAuthorStorage.withLock { $0 } }
        set { transactionAuthorStorage.withLock { $0 = newValue } }
    }

    /// The author and context name this context's next save records (or carries to its parent):
    /// those a child's save pushed here carried, where set, else this context's own.
    var transactionOrigin: TransactionOrigin {
        TransactionOrigin(
            author: pushedOrigin?.author ?? transactionAuthor, contextName: pushedOrigin?.contextName ?? name)
    }
}

/// Who made the changes a save writes: recorded in the store's history with the save.
struct TransactionOrigin: Sendable, Hashable {
    /// The ``ObjectContext/transactionAuthor`` to record.
    var author: String?
    /// The context name to record.
    var contextName: String?
}
