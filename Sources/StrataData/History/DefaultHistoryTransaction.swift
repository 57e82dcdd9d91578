import Foundation
import StrataCore

/// One save as a Strata store's history recorded it: SwiftData's `DefaultHistoryTransaction`.
///
/// ```swift
/// for transaction in try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()) {
///     for change in transaction.changes {
///         if case .delete(let delete) = change, let trip = delete as? DefaultHistoryDelete<Trip> {
///             print("\(transaction.author ?? "someone") deleted \(trip.tombstone[\.name] ?? "a trip")")
///         }
///     }
/// }
/// ```
///
/// Two transactions are equal when they have the same token (the same save of the same store).
public struct DefaultHistoryTransaction: HistoryTransaction {
    /// The transaction's position in the store's history.
    public let token: DefaultHistoryToken
    /// When the save committed.
    public let timestamp: Date
    /// Who saved: the saving context's ``ModelContext/author``, when it was set.
    public let author: String?
    /// The saving context's name, when it had one (Strata's; SwiftData has none).
    public let contextName: String?
    /// The models the save inserted, then those it updated, then those it deleted, each in the
    /// order of the save.
    public let changes: [HistoryChange]

    /// Creates a transaction of `changes`.
    init(_ transaction: StrataCore.HistoryTransaction, changes: [HistoryChange]) {
        token = DefaultHistoryToken(transaction.token)
        timestamp = transaction.timestamp
        author = transaction.author
        contextName = transaction.contextName
        self.changes = changes
    }

    /// The identifier of the store the save wrote.
    public var storeIdentifier: String { token.storeIdentifier }
    /// The transaction's sequence number in its store's history (the token's value).
    public var transactionIdentifier: Int64 { token.token.sequence }
    /// ``transactionIdentifier``: unique within one store's history.
    public var id: Int64 { transactionIdentifier }
    /// Always empty: Strata records no bundle identifier (processes on Linux have none). Tell
    /// writers apart with ``ModelContext/author``.
    public var bundleIdentifier: String { "" }
    /// Always empty: Strata records no process identifier. Tell writers apart with
    /// ``ModelContext/author``.
    public var processIdentifier: String { "" }

    /// Whether both are the same save of the same store.
    public static func == (lhs: DefaultHistoryTransaction, rhs: DefaultHistoryTransaction) -> Bool {
        lhs.token == rhs.token
    }

    /// Hashes the token.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(token)
    }
}
