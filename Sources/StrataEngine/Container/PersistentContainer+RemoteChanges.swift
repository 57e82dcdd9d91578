import Foundation
import StrataCore

extension PersistentContainer {
    /// Posted (through `NotificationCenter.default`, with the container as its object) when the
    /// container finds saves another process, or another container on the same store, made to
    /// one of its stores; `userInfo[remoteChangeKey]` is the ``RemoteChange``. Posted on the
    /// watcher's thread: hop to a context's queue before touching its objects. When the view
    /// context merges remote changes by itself, its merge is already queued on the stack by
    /// then: work queued on ``ContextStack/root`` after the notification runs after the root's
    /// merge (and a two-tier stack's root is its view context).
    public static let remoteChangeNotification = Notification.Name("StrataPersistentContainerRemoteChange")
    /// The `userInfo` key of ``remoteChangeNotification``: a ``RemoteChange``.
    public static let remoteChangeKey = "remoteChange"

    /// How often the container looks for other processes' saves in each store that records
    /// persistent history: every 5 milliseconds by default; `nil` turns watching off.
    ///
    /// Watching runs on one thread per such store from the end of the load until
    /// ``closeStores()`` (or until the container goes away). A look is one read of the store's
    /// last history token (``HistoryRecording/lastHistoryToken()``), which decodes no
    /// transaction; only when another writer has saved does it read the new transactions. It
    /// runs whether or not anyone observes, because it also keeps the coordinator's row cache
    /// in step: the snapshots of objects other writers changed are dropped, so no context reads
    /// them stale from the cache. A change takes effect at the next load; an interval under
    /// 0.1 ms (zero or negative included) counts as 0.1 ms.
    ///
    /// A store that signals history changes (``HistoryChangeSignaling``: PostgreSQL's
    /// `LISTEN`/`NOTIFY`) is not polled at this interval: the watcher looks when the store
    /// signals, and at the latest every ``signaledRemoteChangePollInterval`` (or this interval,
    /// when it is longer), in case a signal was lost.
    public var remoteChangePollInterval: Duration? {
        get { remoteChangeState.withLock { $0.pollInterval } }
        set { remoteChangeState.withLock { $0.pollInterval = newValue } }
    }

    /// Every future remote change (see ``remoteChangeNotification``), as an asynchronous
    /// sequence, delivered in order and buffered without bound; it ends when the container goes
    /// away.
    ///
    /// ```swift
    /// for await change in container.remoteChanges() {
    ///     print("another process saved \(change.transactions.count) transaction(s)")
    /// }
    /// ```
    public func remoteChanges() -> AsyncStream<RemoteChange> {
        let (stream, continuation) = AsyncStream<RemoteChange>.makeStream()
        let key = remoteChangeState.withLock { state -> Int in
            state.nextStream += 1
            state.streams[state.nextStream] = continuation
            return state.nextStream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.remoteChangeState.withLock { $0.streams.removeValue(forKey: key) }
        }
        return stream
    }

    /// How often a watcher looks at the history of a store that signals history changes when no
    /// signal comes: once a second. The safety net for a signal that cannot be given.
    public static let signaledRemoteChangePollInterval: Duration = .seconds(1)

    /// How many stores the container watches for remote changes now; for tests.
    package var watchedStoreCount: Int { remoteChangeState.withLock { $0.watchers.count } }

    /// Starts a watcher for every loaded store that records history, unless watching is off.
    /// A store whose last token cannot be read is not watched (its load succeeded; the failure
    /// is logged).
    func startWatchingRemoteChanges() {
        guard let interval = remoteChangePollInterval else { return }
        var started: [RemoteChangeWatcher] = []
        for slot in slots {
            guard let history = slot.capability((any HistoryRecording).self), history.recordsHistory else { continue }
            do {
                let signal = makeHistoryChangeSignal(for: slot)
                let watcher = try RemoteChangeWatcher(
                    routedStore: slot, history: history, coordinator: coordinator, signal: signal)
                let every = signal == nil ? interval : max(interval, Self.signaledRemoteChangePollInterval)
                watcher.start(every: every) { [weak self] change in self?.deliver(change) }
                started.append(watcher)
            } catch {
                StrataLog.logger("container").warning(
                    "the container '\(name)' does not watch \(slot.url) for remote changes: \(error)")
            }
        }
        let previous = remoteChangeState.withLock { state in
            defer { state.watchers = started }
            return state.watchers
        }
        for watcher in previous { watcher.stop() }
    }

    /// The signal of `slot`'s store when it signals history changes, else `nil` (the watcher
    /// polls). A signal that cannot be set up is logged, and the store polled.
    private func makeHistoryChangeSignal(for slot: ContainerStoreSlot) -> (any HistoryChangeSignal)? {
        guard let signaling = slot.capability((any HistoryChangeSignaling).self) else { return nil }
        do {
            return try signaling.makeHistoryChangeSignal()
        } catch {
            StrataLog.logger("container").warning(
                "the container '\(name)' polls \(slot.url) for remote changes: its change signal failed: \(error)")
            return nil
        }
    }

    /// Stops every watcher (``closeStores()``, and when the container goes away).
    func stopWatchingRemoteChanges() {
        let watchers = remoteChangeState.withLock { state in
            defer { state.watchers = [] }
            return state.watchers
        }
        for watcher in watchers { watcher.stop() }
    }

    /// Merges `change` into the context stack when the view context
    /// ``ObjectContext/automaticallyMergesRemoteChanges`` (first into the root, a three-tier
    /// stack's writer, on its queue; then into the view context on its queue, so the view context
    /// refreshes from a parent that is up to date), then posts it and yields it to every
    /// sequence. The merges are queued before anyone hears of the change: a block an observer
    /// then queues on the stack's root (``ContextStack/root``) runs after the root merged it
    /// and queued the view context's merge, so a block it queues on the view context from
    /// there runs after the view context merged it too (in a two-tier stack the root is the
    /// view context).
    package func deliver(_ change: RemoteChange) {
        mergeIntoStack(change)
        NotificationCenter.default.post(
            name: PersistentContainer.remoteChangeNotification, object: self,
            userInfo: [PersistentContainer.remoteChangeKey: change])
        let continuations = remoteChangeState.withLock { Array($0.streams.values) }
        for continuation in continuations { continuation.yield(change) }
    }

    /// Queues the merges of `change` into the root and the view context (see ``deliver(_:)``).
    private func mergeIntoStack(_ change: RemoteChange) {
        let view = viewContext
        guard view.automaticallyMergesRemoteChanges else { return }
        let root = stack.root
        if root === view {
            view.perform { try? view.mergeRemoteChanges(change) }
            return
        }
        root.perform {
            try? root.mergeRemoteChanges(change)
            view.perform { try? view.mergeRemoteChanges(change) }
        }
    }
}

/// What a container keeps for remote changes, under its lock.
struct RemoteChangeState {
    var pollInterval: Duration? = .milliseconds(5)
    var watchers: [RemoteChangeWatcher] = []
    var nextStream = 0
    var streams: [Int: AsyncStream<RemoteChange>.Continuation] = [:]
}
