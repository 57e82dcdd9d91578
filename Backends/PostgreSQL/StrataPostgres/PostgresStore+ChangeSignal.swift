import Foundation
import StrataCore

/// A PostgreSQL store signals its history's changes: every save that records history notifies
/// `strata_history` with `<storeIdentifier> <sequence>` as it commits, and each reader gets a
/// listener of its own (``PostgresChangeListener``), so a container's watcher hears other hosts'
/// saves as they commit instead of polling for them.
extension PostgresStore: HistoryChangeSignaling {
    /// A new listener on a connection of its own (not one of the pool's), listening from now on.
    ///
    /// - Throws: what connecting throws (`serverUnavailable`, `authenticationFailed`, ...).
    public func makeHistoryChangeSignal() throws -> any HistoryChangeSignal {
        try PostgresChangeListener(settings: options.connection, storeIdentifier: identifier)
    }
}
