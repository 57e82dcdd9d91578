import StrataCore

/// Hands a live query's states from the context's queue to one consumer task, coalescing: it
/// keeps only the latest state and the IDs updated since the consumer's last element, so a slow
/// consumer gets one diff from what it saw to what is current, never a queue of them.
final class LiveMailbox: LiveSink, Sendable {
    private struct Box {
        /// The IDs of the last element handed to the consumer (empty before the first).
        var delivered: [ObjectID] = []
        /// The state not yet handed out, if any.
        var latest: LiveState?
        /// Members updated since the last element.
        var updated: Set<ObjectID> = []
        /// IDs of the last element that changed since (old to new).
        var renamed: [ObjectID: ObjectID] = [:]
        /// The consumer waiting for the next element.
        var waiter: CheckedContinuation<Result<LiveState?, any Error>, Never>?
        var isFinished = false
        var failure: (any Error)?
    }

    private let box = Locked(Box())

    func receive(_ state: LiveState, updated: Set<ObjectID>) {
        let waiter = box.withLock { box -> CheckedContinuation<Result<LiveState?, any Error>, Never>? in
            guard !box.isFinished else { return nil }
            box.latest = state
            box.updated.formUnion(updated)
            let waiter = box.waiter
            box.waiter = nil
            return waiter
        }
        waiter?.resume(returning: .success(state))
    }

    func rename(_ renamed: [ObjectID: ObjectID]) {
        box.withLock { box in
            guard !box.isFinished else { return }
            // An ID renamed before is renamed again from where the last element had it.
            for (old, new) in box.renamed { if let newer = renamed[new] { box.renamed[old] = newer } }
            box.renamed.merge(renamed) { current, _ in current }
        }
    }

    func finish(throwing error: (any Error)?) {
        let waiter = box.withLock { box -> CheckedContinuation<Result<LiveState?, any Error>, Never>? in
            guard !box.isFinished else { return nil }
            box.isFinished = true
            box.failure = error
            let waiter = box.waiter
            box.waiter = nil
            return waiter
        }
        if let error { waiter?.resume(returning: .failure(error)) } else { waiter?.resume(returning: .success(nil)) }
    }

    /// The next element: the latest state with its diff from the last one handed out; waits for
    /// one when there is none. `nil` once finished (after the last state).
    func next() async throws -> LiveResult? {
        let ready: Result<LiveState?, any Error>? = box.withLock { box in
            if let latest = box.latest { return .success(latest) }
            if box.isFinished { return box.failure.map { .failure($0) } ?? .success(nil) }
            return nil
        }
        let outcome: Result<LiveState?, any Error>
        if let ready {
            outcome = ready
        } else {
            outcome = await withCheckedContinuation { continuation in
                let early = box.withLock { box -> Result<LiveState?, any Error>? in
                    if let latest = box.latest { return .success(latest) }
                    if box.isFinished { return box.failure.map { .failure($0) } ?? .success(nil) }
                    box.waiter = continuation
                    return nil
                }
                if let early { continuation.resume(returning: early) }
            }
        }
        guard try outcome.get() != nil else { return nil }
        guard let result = take() else { return try await next() }
        return result
    }

    /// The latest state with its diff, when there is one not handed out yet; never waits.
    /// Throws the failure that ended the query.
    func poll() throws -> LiveResult? {
        if let result = take() { return result }
        if let failure = box.withLock({ $0.failure }) { throw failure }
        return nil
    }

    /// Takes the latest state (a newer one may have arrived since a wake-up) with its diff
    /// from the last one handed out.
    private func take() -> LiveResult? {
        let taken = box.withLock {
            box -> (old: [ObjectID], state: LiveState, updated: Set<ObjectID>, renamed: [ObjectID: ObjectID])? in
            guard let latest = box.latest else { return nil }
            let old = box.delivered
            let updated = box.updated
            let renamed = box.renamed
            box.delivered = latest.objectIDs
            box.latest = nil
            box.updated = []
            box.renamed = [:]
            return (old, latest, updated, renamed)
        }
        guard let taken else { return nil }
        let diff = LiveDiff(
            from: taken.old, to: taken.state.objectIDs, updating: taken.updated, renaming: taken.renamed)
        return LiveResult(objectIDs: taken.state.objectIDs, sections: taken.state.sections, diff: diff)
    }

    /// Wakes a waiting consumer with the end of the sequence (its task was cancelled).
    func cancel() { finish(throwing: nil) }
}
