import Foundation

/// A store whose history can say that it may have moved, so that a reader waits for a sign
/// instead of asking for the last token over and over (a PostgreSQL store listens for the
/// notification each save sends as it commits).
///
/// A container's watcher (docs/RemoteChanges.md) asks for a signal when the store adopts this
/// capability (``PersistentStore/capability(_:)``), waits on it, and after each sign, or each
/// slow safety interval, reads the last token (``HistoryRecording/lastHistoryToken()``) as it
/// would after a poll. The history stays the truth; the signal only says when to look.
///
/// ## Implementation requirements
/// - **No missed change that is not caught up**: every transaction committed after
///   ``makeHistoryChangeSignal()`` returned, by any process, makes a later or current
///   ``HistoryChangeSignal/wait(timeout:)`` return `true`, unless the signal cannot know (a
///   lost connection): then it returns `true` once it can listen again, so the reader reads the
///   history after its last token and finds what it did not hear about.
/// - **False alarms are allowed**: `true` when nothing was committed (a save of another store
///   sharing the channel, a reconnection) costs the reader one read of the last token.
public protocol HistoryChangeSignaling: HistoryRecording {
    /// A new signal for this store's history, listening from now on, for one reader. The reader
    /// closes it when done (``HistoryChangeSignal/close()``).
    ///
    /// - Throws: what setting up the listening throws (a server that cannot be reached); the
    ///   reader then polls instead.
    func makeHistoryChangeSignal() throws -> any HistoryChangeSignal
}

/// One reader's signal that a store's history may have moved (``HistoryChangeSignaling``).
///
/// A sign is kept until a wait takes it: a commit between two waits makes the next wait return
/// at once. Several signs before a wait count as one.
public protocol HistoryChangeSignal: AnyObject, Sendable {
    /// Waits up to `timeout` for a sign that the history may have moved since the last wait
    /// returned, and takes it.
    ///
    /// - Returns: `true` for a sign, which may be a false alarm (nothing new to read); `false`
    ///   when `timeout` passed without one, or the signal was closed. A `false` does not prove
    ///   that nothing was committed: a reader that must not miss a change still reads the history
    ///   at a slow interval.
    func wait(timeout: Duration) -> Bool

    /// Stops listening and frees what the signal holds (a connection); a wait in progress, on
    /// another thread, returns soon. Later waits return `false` at once. Once; later calls do
    /// nothing.
    func close()
}
