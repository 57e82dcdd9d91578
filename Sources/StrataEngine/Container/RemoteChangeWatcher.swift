import Foundation
import StrataCore
import Synchronization

/// Notices saves that other processes (or other coordinators) make to one store, by polling the
/// store's last history token, and turns the new transactions into a ``RemoteChange``.
///
/// A poll (``poll()``) is one read of the store's last token (``HistoryRecording/lastHistoryToken()``)
/// while the coordinator's saves to the store wait; when the token has moved past the last one
/// seen, and not only by the coordinator's own saves (``OwnHistoryTokens``), it reads the new
/// transactions, a page at a time, and drops the snapshots of the objects they changed from the
/// coordinator's row cache, so no context reads them stale from there.
///
/// A container runs one on a thread of its own per loaded store that records history
/// (``start(every:deliver:)``); ``stop()`` ends the thread at its next wake-up. When the store
/// signals history changes (``HistoryChangeSignaling``), the thread waits on its signal between
/// polls instead of sleeping, and polls at once after each sign.
package final class RemoteChangeWatcher: Sendable {
    /// The store as the coordinator routes to it (a container's slot): its saves are held
    /// while the last token is read.
    let routedStore: any PersistentStore
    /// The store's history.
    let history: any HistoryRecording
    let coordinator: StoreCoordinator
    /// How many transactions one read of the history asks for.
    let pageSize: Int
    /// What the thread waits on between polls, when the store signals history changes; closed
    /// by ``stop()``.
    let signal: (any HistoryChangeSignal)?
    /// The newest transaction seen: by this watcher, or saved by the coordinator.
    private let lastSeen: Locked<HistoryToken?>
    private let stopped = Atomic<Bool>(false)

    /// A watcher of `routedStore`, a store of `coordinator` that records history, starting from
    /// its last token now: only saves after this point are remote changes.
    ///
    /// - Parameter signal: the store's signal (``HistoryChangeSignaling/makeHistoryChangeSignal()``),
    ///   made before this call so that no commit falls between the last token read here and the
    ///   listening; the watcher owns it from now on (``stop()`` closes it, and so does a failure
    ///   here).
    /// - Throws: what reading the last token throws.
    package init(
        routedStore: any PersistentStore, history: any HistoryRecording, coordinator: StoreCoordinator,
        signal: (any HistoryChangeSignal)? = nil, pageSize: Int = 1_000
    )
        throws
    {
        self.routedStore = routedStore
        self.history = history
        self.coordinator = coordinator
        self.signal = signal
        self.pageSize = max(1, pageSize)
        coordinator.ownHistoryTokens.startWatching()
        do {
            lastSeen = Locked(try coordinator.withSavesHeld(to: routedStore) { try history.lastHistoryToken() })
        } catch {
            coordinator.ownHistoryTokens.stopWatching()
            signal?.close()
            throw error
        }
    }

    /// The newest transaction seen.
    package var lastSeenToken: HistoryToken? { lastSeen.withLock { $0 } }

    /// Looks once for saves by others since the last poll: `nil` when there is none (nothing
    /// new, or only the coordinator's own saves); else the new transactions, or a change with
    /// ``RemoteChange/isHistoryExpired`` when the history after the last token seen was pruned
    /// (the row cache is then emptied).
    ///
    /// - Throws: what reading the store throws; the next poll tries again from the same point.
    package func poll() throws -> RemoteChange? {
        let (latest, own) = try coordinator.withSavesHeld(to: routedStore) { () throws -> (HistoryToken?, Set<Int64>) in
            guard let latest = try history.lastHistoryToken() else { return (nil, []) }
            return (latest, coordinator.ownHistoryTokens.tokens(latest.storeIdentifier, through: latest.sequence))
        }
        guard let latest else { return nil }
        // Before the first token seen (or in a store that was replaced), from the start: a
        // history pruned since then is reported as expired, not skipped.
        let from =
            lastSeenToken.flatMap { $0.storeIdentifier == latest.storeIdentifier ? $0 : nil }
            ?? HistoryToken(storeIdentifier: latest.storeIdentifier, sequence: 0)
        guard latest.sequence > from.sequence else { return nil }
        /// Moves on to `latest`: the tokens up to it were seen.
        func seen() {
            lastSeen.withLock { $0 = latest }
            coordinator.ownHistoryTokens.forget(latest.storeIdentifier, through: latest.sequence)
        }
        if own.count(where: { $0 > from.sequence }) == Int(latest.sequence - from.sequence) {
            seen()
            return nil
        }
        var transactions: [HistoryTransaction] = []
        do {
            var after: HistoryToken? = from
            while true {
                let page = try history.fetchHistory(HistoryRequest(after: after, limit: pageSize))
                var reached = false
                for transaction in page {
                    guard transaction.token.sequence <= latest.sequence else {
                        reached = true
                        break
                    }
                    after = transaction.token
                    if !own.contains(transaction.token.sequence) { transactions.append(transaction) }
                }
                if reached || page.count < pageSize || (after?.sequence ?? 0) >= latest.sequence { break }
            }
        } catch let error as StrataError where error.code == .historyExpired {
            seen()
            coordinator.rowCache.removeAll { _ in true }
            return RemoteChange(storeURL: routedStore.url, token: latest, transactions: [], isHistoryExpired: true)
        }
        seen()
        guard !transactions.isEmpty else { return nil }
        let change = RemoteChange(
            storeURL: routedStore.url, token: latest, transactions: transactions, isHistoryExpired: false)
        let changes = change.changes
        // Inserted ones too: a fetch may have cached one before a later transaction changed it.
        coordinator.rowCache.remove(changes.inserted.union(changes.updated).union(changes.deleted))
        return change
    }

    /// Polls on a thread of its own until ``stop()``, handing each remote change to `deliver`
    /// (on that thread): every `interval` when the watcher has no signal; with one, after each
    /// sign and at the latest every `interval` (the safety net for a sign the signal could not
    /// give). A poll that fails is tried again at the next wake-up; a closed store ends the
    /// thread.
    package func start(every interval: Duration, deliver: @escaping @Sendable (RemoteChange) -> Void) {
        let interval = max(interval, .microseconds(100))
        let thread = Thread { [self] in
            while !stopped.load(ordering: .acquiring) {
                if let signal {
                    _ = signal.wait(timeout: interval)
                } else {
                    Thread.sleep(forTimeInterval: interval.timeInterval)
                }
                if stopped.load(ordering: .acquiring) { break }
                do {
                    if let change = try poll(), !stopped.load(ordering: .acquiring) { deliver(change) }
                } catch let error as StrataError where error.code == .storeClosed {
                    break
                } catch {
                    StrataLog.logger("container").debug(
                        "could not look for remote changes in \(routedStore.url): \(error)")
                }
            }
        }
        thread.name = "Strata.RemoteChangeWatcher"
        thread.start()
    }

    /// Stops watching: the polling thread, if started, ends at its next wake-up (at once when
    /// it waits on a signal, which is closed; else at most one interval from now) and delivers
    /// nothing more. Once; later calls do nothing.
    package func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        signal?.close()
        coordinator.ownHistoryTokens.stopWatching()
    }
}
