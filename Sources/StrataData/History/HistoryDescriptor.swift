import Foundation

/// Which transactions of the history to fetch or delete: SwiftData's `HistoryDescriptor`.
///
/// ```swift
/// var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
/// descriptor.predicate = #Predicate { $0.token > lastToken && $0.author == "widget" }
/// descriptor.fetchLimit = 100
/// let transactions = try context.fetchHistory(descriptor)
/// ```
///
/// A predicate tests a transaction's `token` (`==`, `<`, `<=`, `>`, `>=` with a
/// ``DefaultHistoryToken``), its `author` (`==` with a string; several joined with `||`) and its
/// `timestamp` (`<`, `<=` with a `Date`), any of them joined with `&&`. Anything else is an
/// `invalidPredicate` ``StrataError`` naming the expression, when the descriptor is used.
public struct HistoryDescriptor<TransactionType: HistoryTransaction> {
    /// Which transactions; all of them when `nil`.
    public var predicate: Predicate<TransactionType>?
    /// The order of the transactions; the commit order when empty.
    public var sortBy: [SortDescriptor<TransactionType>]
    /// At most this many transactions: the first ones in the descriptor's order.
    public var fetchLimit: Int?

    /// A descriptor of the transactions matching `predicate`, ordered by `sortBy`.
    public init(predicate: Predicate<TransactionType>? = nil, sortBy: [SortDescriptor<TransactionType>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
        fetchLimit = nil
    }
}
