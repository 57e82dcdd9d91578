import StrataCore
import Synchronization

/// The history tokens of a coordinator's own saves that no remote-change watcher has seen yet.
///
/// A container's watcher polls each store's last history token to notice saves by other
/// processes; a token in this set is a save of this coordinator, which its contexts know of
/// already. Saves record their token (``SaveResult/historyToken``) under the store's save
/// lock, and a watcher reads the store's last token under the same lock, so every token up to
/// the one it read is either here or another process's.
///
/// Records nothing while no watcher runs: a program that does not watch keeps no tokens.
package final class OwnHistoryTokens: Sendable {
    private let watchers = Atomic<Int>(0)
    private let tokens = Locked<[String: Set<Int64>]>([:])

    package init() {}

    /// Notes `token` as a save of this coordinator, when a watcher runs.
    func record(_ token: HistoryToken) {
        guard watchers.load(ordering: .acquiring) > 0 else { return }
        _ = tokens.withLock { $0[token.storeIdentifier, default: []].insert(token.sequence) }
    }

    /// A watcher starts: saves from now on record their tokens.
    func startWatching() { watchers.add(1, ordering: .releasing) }

    /// A watcher stops; when none is left, the tokens kept are forgotten.
    func stopWatching() {
        if watchers.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
            tokens.withLock { $0.removeAll() }
        }
    }

    /// The sequences of this coordinator's saves to the store `storeIdentifier` up to and
    /// including `sequence`.
    func tokens(_ storeIdentifier: String, through sequence: Int64) -> Set<Int64> {
        tokens.withLock { table in table[storeIdentifier]?.filter { $0 <= sequence } ?? [] }
    }

    /// Forgets the sequences up to and including `sequence` of the store `storeIdentifier`: a
    /// watcher has seen them.
    func forget(_ storeIdentifier: String, through sequence: Int64) {
        tokens.withLock { table in
            guard let kept = table[storeIdentifier] else { return }
            let rest = kept.filter { $0 > sequence }
            table[storeIdentifier] = rest.isEmpty ? nil : rest
        }
    }
}
