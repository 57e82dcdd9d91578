import Foundation
import StrataCore
import StrataEngine

extension ModelContext {
    /// The transactions of the stores' history that `descriptor` describes, the oldest first
    /// unless it sorts them: SwiftData's `fetchHistory(_:)`.
    ///
    /// ```swift
    /// var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
    /// descriptor.predicate = #Predicate { $0.token > lastToken }
    /// let transactions = try context.fetchHistory(descriptor)
    /// lastToken = transactions.last?.token ?? lastToken
    /// ```
    ///
    /// A predicate with a token reads the history of that token's store; one without reads the
    /// history of every store of the container that keeps one, ordered by commit time.
    ///
    /// - Throws: ``StrataError``: `.historyExpired` when the history after the
    ///   predicate's token was deleted (fetch everything again);
    ///   `.invalidPredicate` naming a condition a history fetch cannot run;
    ///   `.unsupported` when no store keeps history (its backend keeps none, or
    ///   its option `history` is `off`) or `T` is not ``DefaultHistoryTransaction``.
    public func fetchHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T] {
        let filter = try historyFilter(of: descriptor)
        let limit = descriptor.fetchLimit
        if let limit, limit < 0 {
            throw StrataError(
                .invalidRequest, "a history fetch limit cannot be negative (\(limit))",
                location: ["limit": String(limit)])
        }
        let read = try readHistory(filter, limit: descriptor.sortBy.isEmpty ? limit : nil)
        let models = historyModelTypes()
        guard var transactions = read.map({ defaultTransaction($0, models: models) }) as? [T] else {
            throw Self.unsupportedTransactionType(T.self)
        }
        if !descriptor.sortBy.isEmpty {
            transactions.sort(using: descriptor.sortBy)
            if let limit { transactions = Array(transactions.prefix(limit)) }
        }
        return transactions
    }

    /// Deletes the transactions of the stores' history that `descriptor` describes: SwiftData's
    /// `deleteHistory(_:)`.
    ///
    /// ```swift
    /// var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
    /// descriptor.predicate = #Predicate { $0.token <= processedToken }
    /// try context.deleteHistory(descriptor)
    /// ```
    ///
    /// History is deleted from the oldest transaction on, so a predicate bounds it from above
    /// only: `$0.token < token`, `$0.token <= token`, `$0.timestamp < date`; without one, every
    /// transaction goes. A reader that asks for the history after a deleted token gets
    /// `.historyExpired` from then on.
    ///
    /// - Throws: `.invalidPredicate` for a predicate that selects by author or
    ///   from a token on; otherwise as ``fetchHistory(_:)``.
    public func deleteHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws {
        let filter = try historyFilter(of: descriptor)
        guard !filter.matchesNothing else { return }
        guard filter.isPrefix else {
            throw StrataError(
                .invalidPredicate,
                "deleteHistory deletes the oldest transactions first: bound them with $0.token < or <= a token, or "
                    + "$0.timestamp < a date, not by author or from a token on",
                location: ["predicate": descriptor.predicate.map { String(describing: $0.expression) } ?? ""])
        }
        let coordinator = container.coordinator
        for store in historyStores(filter) {
            if descriptor.fetchLimit != nil || (filter.through != nil && filter.before != nil) {
                let matching = try readHistory(filter, limit: descriptor.fetchLimit, from: [store])
                if let last = matching.last { try coordinator.pruneHistory(.through(last.token)) }
            } else if let through = filter.through {
                try coordinator.pruneHistory(.through(through))
            } else if let before = filter.before {
                try coordinator.pruneHistory(.before(before), storeIdentifier: store)
            } else if let last = try coordinator.lastHistoryToken(storeIdentifier: store) {
                try coordinator.pruneHistory(.through(last))
            }
        }
    }

    // MARK: Reading

    /// The filter of `descriptor`'s predicate.
    private func historyFilter<T: HistoryTransaction>(of descriptor: HistoryDescriptor<T>) throws -> HistoryFilter {
        guard T.self == DefaultHistoryTransaction.self else { throw Self.unsupportedTransactionType(T.self) }
        return try descriptor.predicate.map(HistoryPredicateTranslator.filter) ?? .everything
    }

    /// The identifiers of the stores whose history `filter` reads: its tokens' store, or every
    /// store of the container that keeps history (`[nil]` when none does, so that the
    /// coordinator's error says so).
    private func historyStores(_ filter: HistoryFilter) -> [String?] {
        if let store = filter.storeIdentifier { return [store] }
        let stores = container.coordinator.historyRecordingStores.map(\.identifier)
        return stores.isEmpty ? [nil] : stores
    }

    /// The transactions `filter` keeps, at most `limit`, ordered by commit time.
    private func readHistory(
        _ filter: HistoryFilter, limit: Int?, from stores: [String?]? = nil
    ) throws -> [StrataCore.HistoryTransaction] {
        guard !filter.matchesNothing else { return [] }
        let request = HistoryRequest(after: filter.after, authors: filter.authors, limit: limit)
        let stores = stores ?? historyStores(filter)
        var transactions: [StrataCore.HistoryTransaction] = []
        for store in stores {
            // Within a store the history is in commit order, and the bounds the request lacks
            // (`through`, `before`) keep a prefix of it: cutting after the limit is the same as before.
            transactions += try container.coordinator.fetchHistory(request, storeIdentifier: store)
                .filter(filter.admitsAfterReading)
        }
        if stores.count > 1 {
            transactions.sort { ($0.timestamp, $0.token) < ($1.timestamp, $1.token) }
            if let limit { transactions = Array(transactions.prefix(limit)) }
        }
        return transactions
    }

    /// The model types of the container's schema by entity name.
    private func historyModelTypes() -> [String: any PersistentModel.Type] {
        Dictionary(
            container.schema.modelTypes.map { ($0.type._$layout.entity.name, $0.type) },
            uniquingKeysWith: { first, _ in first })
    }

    /// `transaction` with each change typed by its model (a change of an entity the schema lacks
    /// is left out).
    private func defaultTransaction(
        _ transaction: StrataCore.HistoryTransaction, models: [String: any PersistentModel.Type]
    ) -> DefaultHistoryTransaction {
        var changes: [HistoryChange] = []
        changes.reserveCapacity(transaction.changes.count)
        for (index, change) in transaction.changes.enumerated() {
            guard let type = models[change.entityName] else { continue }
            changes.append(HistoryChange.typed(change, index: index, sequence: transaction.token.sequence, as: type))
        }
        return DefaultHistoryTransaction(transaction, changes: changes)
    }

    private static func unsupportedTransactionType(_ type: Any.Type) -> StrataError {
        StrataError(
            .unsupported, "a model context fetches DefaultHistoryTransaction, not \(type)",
            location: ["transactionType": String(describing: type)])
    }
}
