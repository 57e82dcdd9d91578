import StrataCore

/// The transactions of a persistent history after a token, read a page at a time, as an
/// asynchronous sequence (``ObjectContext/history(after:authors:entityNames:pageSize:waitingEvery:)``).
///
/// Without a waiting interval the sequence ends once it has returned every transaction there is
/// when it catches up. With one, it then looks for new transactions at that interval and goes on
/// until its task is cancelled (the sequence then ends). Reading fails with the error the
/// history read throws: ``StrataError/Code/historyExpired`` when the transactions after the
/// token were pruned.
public struct HistoryTransactions: AsyncSequence, Sendable {
    public typealias Element = HistoryTransaction

    /// The first page's request (``HistoryRequest/limit`` is the page size).
    let request: HistoryRequest
    /// How long to wait before looking again once caught up; `nil` ends the sequence then.
    let waitInterval: Duration?
    /// Reads one page.
    let read: @Sendable (HistoryRequest) throws -> [HistoryTransaction]

    /// An iterator from the sequence's first token.
    public func makeAsyncIterator() -> Iterator {
        Iterator(request: request, waitInterval: waitInterval, read: read)
    }

    /// Reads the pages one after another.
    public struct Iterator: AsyncIteratorProtocol {
        var request: HistoryRequest
        let waitInterval: Duration?
        let read: @Sendable (HistoryRequest) throws -> [HistoryTransaction]
        /// The rest of the page read last.
        var buffered: [HistoryTransaction] = []
        var position = 0
        /// Whether the last page was short: the history held nothing more then.
        var caughtUp = false

        /// The next transaction; `nil` at the end (caught up without a waiting interval, or the
        /// task cancelled).
        public mutating func next() async throws -> HistoryTransaction? {
            while true {
                if position < buffered.count {
                    defer { position += 1 }
                    return buffered[position]
                }
                if Task.isCancelled { return nil }
                if caughtUp {
                    guard let waitInterval else { return nil }
                    do { try await Task.sleep(for: waitInterval) } catch { return nil }
                }
                buffered = try read(request)
                position = 0
                if let last = buffered.last { request.after = last.token }
                caughtUp = buffered.count < (request.limit ?? Int.max)
            }
        }
    }
}
