/// The SQLite store's `synchronous` option: how hard a commit pushes data to the disk
/// (docs/SQLiteStore.md).
public enum SQLiteSynchronous: String, Sendable, Hashable, CaseIterable {
    /// The default: with WAL, a commit is durable once the WAL is synced at the next
    /// checkpoint; a crash never corrupts the file.
    case normal
    /// The WAL is synced at every commit.
    case full
    /// Nothing is synced; a system crash may lose recent saves.
    case off

    /// The value of `PRAGMA synchronous`.
    var pragmaValue: String { rawValue.uppercased() }
}
