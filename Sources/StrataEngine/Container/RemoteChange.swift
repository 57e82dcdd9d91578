import StrataCore

/// Saves another process (or another coordinator of this process) made to one of a container's
/// stores, as the container's watcher found them in the store's persistent history: posted as
/// ``PersistentContainer/remoteChangeNotification`` and yielded by
/// ``PersistentContainer/remoteChanges()``.
///
/// Either the new transactions, or, when the history the container had not read yet was pruned
/// meanwhile, ``isHistoryExpired``: the container cannot say what changed, so everything must be
/// read again (a view context that merges remote changes refreshes all its objects).
public struct RemoteChange: Sendable, Hashable {
    /// The store that was saved to.
    public var storeURL: StoreURL
    /// The newest transaction the container has now seen in that store: keep it to read the
    /// history after it later (``ObjectContext/fetchHistory(_:)``).
    public var token: HistoryToken
    /// The transactions of other writers since the last remote change, the oldest first; empty
    /// when ``isHistoryExpired``. The container's own saves are never among them.
    public var transactions: [HistoryTransaction]
    /// Whether the history after the last token the container had seen was pruned: the
    /// transactions in between are lost, and what any context holds may be stale.
    public var isHistoryExpired: Bool

    /// Creates a remote change.
    public init(storeURL: StoreURL, token: HistoryToken, transactions: [HistoryTransaction], isHistoryExpired: Bool) {
        self.storeURL = storeURL
        self.token = token
        self.transactions = transactions
        self.isHistoryExpired = isHistoryExpired
    }

    /// The objects the transactions inserted, updated and deleted, taken together: an object
    /// inserted and then changed is inserted; one deleted after other changes is deleted; one
    /// inserted and deleted in the same remote change does not appear. O(changes).
    public var changes: ContextChanges {
        var result = ContextChanges()
        for transaction in transactions {
            for change in transaction.changes {
                let id = change.objectID
                switch change.kind {
                case .insert:
                    result.inserted.insert(id)
                case .update:
                    if !result.inserted.contains(id) { result.updated.insert(id) }
                case .delete:
                    result.updated.remove(id)
                    if result.inserted.remove(id) == nil { result.deleted.insert(id) }
                }
            }
        }
        return result
    }
}
