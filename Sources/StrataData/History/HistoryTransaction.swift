import Foundation

/// One save as a store's history recorded it: SwiftData's `HistoryTransaction`.
///
/// Do not declare new conformances: a ``ModelContext`` fetches ``DefaultHistoryTransaction``s
/// only.
public protocol HistoryTransaction: Hashable, Identifiable, Sendable {
    /// The type of the transaction's token.
    associatedtype TokenType: Comparable, Hashable, Identifiable, Sendable
    /// The type of the transaction's identifier.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable

    /// Who saved: the saving context's ``ModelContext/author``, when it was set.
    var author: String? { get }
    /// The models the save inserted, updated and deleted.
    var changes: [HistoryChange] { get }
    /// The identifier of the store the save wrote.
    var storeIdentifier: String { get }
    /// When the save committed.
    var timestamp: Date { get }
    /// The transaction's position in the store's history.
    var token: TokenType { get }
    /// The transaction's identifier in the store's history.
    var transactionIdentifier: TransactionIdentifier { get }
}
