import Foundation
import Strata
import StrataTestSupport

/// A test double that keeps a history, in memory, of the saves made through it into a real
/// store: what a store adopting ``HistoryRecording`` records, so that ``StoreFollower`` can be
/// tried on every kind of source in one process.
final class HistoryKeepingStore: WrappingStore, HistoryRecording, @unchecked Sendable {
    let inner: any PersistentStore
    private let lock = NSLock()
    private var transactions: [HistoryTransaction] = []
    private var last: Int64 = 0
    private var prunedThrough: Int64 = 0
    let recordsHistory: Bool

    init(_ inner: any PersistentStore, recordsHistory: Bool = true) {
        self.inner = inner
        self.recordsHistory = recordsHistory
    }

    func fetch(_ request: FetchRequest) throws -> FetchResult { try inner.fetch(request) }

    func save(_ request: SaveRequest) throws -> SaveResult {
        try lock.withLock {
            let recorder = HistoryChangeRecorder(model: model)
            let changes = try recorder.changes(for: request) { id in
                try inner.fetch(FetchRequest(entityName: id.entityName, objectIDs: [id])).snapshots().first
            }
            let result = try inner.save(request)
            if recordsHistory && !changes.isEmpty {
                last += 1
                transactions.append(
                    HistoryTransaction(
                        token: HistoryToken(storeIdentifier: identifier, sequence: last), timestamp: Date(),
                        author: request.transactionAuthor, contextName: request.contextName, changes: changes))
            }
            return result
        }
    }

    func fetchHistory(_ request: HistoryRequest) throws -> [HistoryTransaction] {
        try lock.withLock {
            try request.validate(storeIdentifier: identifier, prunedThrough: prunedThrough, path: url.description)
            let after = request.after?.sequence ?? 0
            let admitted = transactions.filter { $0.token.sequence > after }.compactMap(request.admitting)
            return Array(admitted.prefix(request.limit ?? .max))
        }
    }

    func lastHistoryToken() throws -> HistoryToken? {
        lock.withLock { last == 0 ? nil : HistoryToken(storeIdentifier: identifier, sequence: last) }
    }

    func pruneHistory(_ pruning: HistoryPruning) throws -> Int {
        lock.withLock {
            let before = transactions.count
            switch pruning {
            case .through(let token): transactions.removeAll { $0.token.sequence <= token.sequence }
            case .before(let date): transactions.removeAll { $0.timestamp < date }
            case .keepingLast(let count): transactions.removeFirst(max(0, transactions.count - count))
            }
            prunedThrough = max(prunedThrough, (transactions.first?.token.sequence ?? last + 1) - 1)
            return before - transactions.count
        }
    }
}
