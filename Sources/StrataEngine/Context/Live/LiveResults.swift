import StrataCore

/// The results of a fetch request that keep themselves up to date: an asynchronous sequence of
/// ``LiveResult``s, made by ``ObjectContext/liveResults(for:sectionKeyPath:)``.
///
/// The first element is the initial fetch, with every object in ``LiveDiff/inserted``. Each
/// later element is the result after changes the context heard of, with its diff from the
/// element before. Elements are coalesced: a consumer that falls behind gets the latest result
/// with one diff from the last one it saw, never a queue of stale ones.
///
/// Iterate it once, from any task. The observation stops when the iterating task is cancelled,
/// or when the sequence and its iterator are gone; the sequence ends when the context goes away,
/// and throws when the query can no longer run (a store failure during a refetch).
public struct LiveResults: AsyncSequence, Sendable {
    public typealias Element = LiveResult

    let observation: LiveObservation

    /// The iterator: waits for the next coalesced result.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let observation: LiveObservation

        /// The next result, or `nil` once the observation stopped.
        public mutating func next() async throws -> LiveResult? {
            let observation = self.observation
            return try await withTaskCancellationHandler {
                try await observation.mailbox.next()
            } onCancel: {
                observation.stop()
            }
        }

        /// The next result when one is ready, without waiting; `nil` when none is.
        package func nextIfReady() throws -> LiveResult? { try observation.mailbox.poll() }
    }

    /// An iterator over the results. Package code (tests) may also poll it with
    /// ``AsyncIterator/nextIfReady()``.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(observation: observation) }
}

/// Owns one live subscription on behalf of a sequence and its iterators: when the last of them
/// goes, or the consuming task is cancelled, the subscription leaves its context.
final class LiveObservation: Sendable {
    let mailbox: LiveMailbox
    private let context: WeakContextReference
    private let key: Int

    init(mailbox: LiveMailbox, context: ObjectContext, key: Int) {
        self.mailbox = mailbox
        self.context = WeakContextReference(context)
        self.key = key
    }

    /// Ends the sequence and removes the subscription from its context (on the context's queue).
    func stop() {
        mailbox.cancel()
        LiveObservation.unsubscribe(key, from: context)
    }

    /// Removes subscription `key` from `context`, on the context's queue, if the context lives.
    static func unsubscribe(_ key: Int, from context: WeakContextReference) {
        guard let context = context.context else { return }
        context.perform { [weak context] in context?.liveRegistry?.remove(key) }
    }

    deinit {
        LiveObservation.unsubscribe(key, from: context)
    }
}

/// A weak, `Sendable` reference to a context.
final class WeakContextReference: Sendable {
    private let storage: Locked<WeakContextBox>
    private struct WeakContextBox { weak var context: ObjectContext? }

    init(_ context: ObjectContext) { storage = Locked(WeakContextBox(context: context)) }

    var context: ObjectContext? { storage.withLock { $0.context } }
}
