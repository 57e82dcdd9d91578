import Foundation

extension ObjectContext {
    /// Enqueues `block` on the context's queue and returns at once.
    ///
    /// The block runs later, on the context's serial queue (a GCD worker thread for a
    /// private-queue context, the main queue for a main-queue context), after every block
    /// enqueued before it. Use the context and its objects freely inside; pass results out as
    /// ``ObjectID``s or other `Sendable` values (the block is `@Sendable`, so the compiler refuses
    /// to let a ``ManagedObject`` escape it). Pending `objectsDidChange` notifications are posted
    /// when the block ends.
    public func perform(_ block: @escaping @Sendable () -> Void) {
        queue.async { self.runConfined(block) }
    }

    /// Runs `block` on the context's queue and waits for it; returns its value and rethrows its
    /// error. Reentrant: called from inside one of this context's perform blocks, it runs
    /// `block` inline at once.
    ///
    /// **Which thread runs the block.** The block is serialized with the context's queue, but it
    /// usually does *not* run on another thread:
    /// - already inside a perform block of this context (or on the main queue for a main-queue
    ///   context): inline, on the calling thread;
    /// - otherwise it goes through `queue.sync`, and GCD runs a `sync` block on the *calling*
    ///   thread while it holds the queue (it waits first for the blocks enqueued before it). So
    ///   `performAndWait` called from the main thread runs its block on the main thread, with
    ///   the private queue held; "the receiver's queue" means exclusive use of the context, not a
    ///   thread. A common mistake to avoid: `performAndWait` does not move
    ///   work off the main thread; use ``perform(_:)`` or `await perform` for that.
    ///
    /// Calling it for a main-queue context from a thread while the main thread waits on that
    /// thread deadlocks, as `DispatchQueue.main.sync` does.
    public func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        let me = ThreadIdentity.current
        let inline = confinement.withLock { $0.performingThread == me }
        if inline { return try runConfined(block) }
        if concurrencyType == .mainQueue, ThreadIdentity.isOnMainQueue { return try runConfined(block) }
        return try queue.sync { try runConfined(block) }
    }

    /// Runs `block` on the context's queue (as ``perform(_:)`` does) and returns its value, or
    /// rethrows its error, to the awaiting task. The value must be `Sendable`: return
    /// ``ObjectID``s, not objects.
    public func perform<T: Sendable>(_ block: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            queue.async {
                continuation.resume(with: Result { try self.runConfined(block) })
            }
        }
    }
}
