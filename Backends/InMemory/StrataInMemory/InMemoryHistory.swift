import Foundation
import StrataCore

/// An in-memory store's persistent history: the transactions kept, in sequence order, with the
/// last sequence handed out and the last one pruned. It lives with the store's data, so every
/// handle on a named store shares it.
struct InMemoryHistory: Sendable {
    /// The transactions kept, oldest first.
    var transactions: [HistoryTransaction] = []
    /// The sequence of the last transaction recorded (0 before the first).
    var lastSequence: Int64 = 0
    /// The sequence of the last transaction pruned (0 before the first prune).
    var prunedThrough: Int64 = 0

    /// Appends a transaction with the next sequence.
    mutating func append(
        _ changes: [HistoryChange], of request: SaveRequest, storeIdentifier: String, options: HistoryOptions
    ) {
        lastSequence += 1
        transactions.append(
            HistoryTransaction(
                token: HistoryToken(storeIdentifier: storeIdentifier, sequence: lastSequence), timestamp: Date(),
                author: request.transactionAuthor, contextName: request.contextName, changes: changes))
        if let keep = options.keepTransactions, transactions.count > keep {
            prune(count: transactions.count - keep)
        }
        if let days = options.keepDays {
            let cutoff = Date(timeIntervalSinceNow: -Double(days) * 86_400)
            prune(count: transactions.prefix { $0.timestamp < cutoff }.count)
        }
    }

    /// Removes the oldest `count` transactions and returns how many it removed.
    @discardableResult
    mutating func prune(count: Int) -> Int {
        let removed = min(max(count, 0), transactions.count)
        guard removed > 0 else { return 0 }
        prunedThrough = transactions[removed - 1].token.sequence
        transactions.removeFirst(removed)
        return removed
    }

    /// How many of the oldest transactions `pruning` covers.
    func count(coveredBy pruning: HistoryPruning) -> Int {
        switch pruning {
        case .through(let token): transactions.prefix { $0.token.sequence <= token.sequence }.count
        case .before(let date): transactions.prefix { $0.timestamp < date }.count
        case .keepingLast(let count): max(transactions.count - max(count, 0), 0)
        }
    }
}
