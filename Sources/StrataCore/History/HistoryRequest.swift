/// Which part of a store's history to read.
///
/// ```swift
/// let request = HistoryRequest(after: lastToken, entityNames: ["Employee"], limit: 500)
/// for transaction in try coordinator.fetchHistory(request) { ... }
/// ```
public struct HistoryRequest: Sendable, Hashable {
    /// Read the transactions after this token; from the oldest one kept when `nil`.
    public var after: HistoryToken?
    /// Only transactions saved by one of these authors; all when `nil`.
    public var authors: Set<String>?
    /// Only changes of these entities, and only transactions that hold one; all when `nil`.
    public var entityNames: Set<String>?
    /// At most this many transactions, the oldest first; all when `nil`.
    public var limit: Int?

    /// Creates a request.
    public init(
        after: HistoryToken? = nil, authors: Set<String>? = nil, entityNames: Set<String>? = nil, limit: Int? = nil
    ) {
        self.after = after
        self.authors = authors
        self.entityNames = entityNames
        self.limit = limit
    }

    /// `transaction` as this request returns it: `nil` when its author is not asked for or it
    /// holds no change of the entities asked for; otherwise with only those entities' changes.
    public func admitting(_ transaction: HistoryTransaction) -> HistoryTransaction? {
        if let authors {
            guard let author = transaction.author, authors.contains(author) else { return nil }
        }
        guard let entityNames else { return transaction }
        var kept = transaction
        kept.changes.removeAll { !entityNames.contains($0.objectID.entityName) }
        return kept.changes.isEmpty ? nil : kept
    }

    /// Checks the request against `store`'s identifier and the oldest sequence it still keeps.
    ///
    /// - Throws: ``StrataError/Code/invalidRequest`` for a negative limit or a token of another
    ///   store; ``StrataError/Code/historyExpired`` when transactions after ``after`` were pruned
    ///   (`prunedThrough` is the last pruned sequence), so the reader must refetch everything.
    public func validate(storeIdentifier: String, prunedThrough: Int64, path: String) throws {
        if let limit, limit < 0 {
            throw StrataError(
                .invalidRequest, "a history limit cannot be negative (\(limit))",
                location: ["path": path, "limit": String(limit)])
        }
        guard let after else { return }
        guard after.storeIdentifier == storeIdentifier else {
            throw StrataError(
                .invalidRequest,
                "the history token \(after) belongs to store '\(after.storeIdentifier)', not '\(storeIdentifier)'",
                location: ["path": path, "token": after.description])
        }
        if after.sequence < prunedThrough {
            throw StrataError(
                .historyExpired,
                "the history after \(after) was pruned (kept from \(storeIdentifier):\(prunedThrough + 1)); fetch everything again",
                location: ["path": path, "token": after.description, "prunedThrough": String(prunedThrough)])
        }
    }
}
