/// A backend that executes a migration step itself, in place and atomically (SQLite: SQL in one
/// transaction; LMDB: one write transaction).
///
/// StrataMigrations' `StoreMigrator` asks ``canMigrateNatively(_:)`` for each step and falls back
/// to its streaming executor (`StreamingMigrationExecutor`) when the answer is `false`. The
/// protocol lives in StrataCore so that a backend adopts it without importing the migration engine.
///
/// ## Implementation requirements
/// - All or nothing: when ``migrateNatively(_:at:options:metadataChanges:progress:isCancelled:)``
///   throws, is cancelled, or the process dies at any moment, the store is left at the source
///   version, untouched; when it returns, the store is at the destination version, with the
///   metadata's model hash and version identifier, and `metadataChanges`, written in the same
///   transaction.
/// - Keys, versions and the store identifier are kept.
/// - Bad data (a null left in an attribute that becomes required, several targets in a to-many
///   that becomes to-one, a new unique constraint violated) is a typed error and nothing changes.
public protocol NativeMigrating: StoreBackend {
    /// Whether this backend can run `step` in place.
    func canMigrateNatively(_ step: MigrationStep) -> Bool

    /// Runs `step` on the store at `url` (closed by everyone else), atomically.
    ///
    /// - Parameters:
    ///   - metadataChanges: user-info keys to set (or remove, for `nil`) in the same transaction.
    ///   - progress: called as work completes.
    ///   - isCancelled: polled between units of work; when it returns `true`, roll back and throw
    ///     ``StrataError/Code/cancelled``.
    func migrateNatively(
        _ step: MigrationStep,
        at url: StoreURL,
        options: StoreOptions,
        metadataChanges: [String: String?],
        progress: (StoreProgress) -> Void,
        isCancelled: () -> Bool
    ) throws
}

/// A backend that can put a store built at a staging location in place of another, atomically
/// (a file `rename`, a directory swap with recovery). StrataMigrations' streaming executor uses
/// it; without it, a store that is one regular file is replaced by `rename`, and `memory:` stores
/// by copying.
public protocol StoreReplacing: StoreBackend {
    /// Where to build the migrated copy of the store at `url` (same file system, for `rename`).
    func stagingURL(for url: StoreURL) throws -> StoreURL
    /// Replaces the store at `url` with the one at `staging`, atomically: afterwards (and after a
    /// crash at any point) the store at `url` is the old one or the new one, whole.
    func replaceStore(at url: StoreURL, withStoreAt staging: StoreURL) throws
}
