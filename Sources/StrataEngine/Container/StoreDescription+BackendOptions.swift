import StrataCore

extension StoreDescription {
    /// SQLite's `synchronous` option: how hard a commit pushes data to the disk
    /// (docs/SQLiteStore.md).
    public enum SQLiteSynchronous: String, Sendable, Hashable, CaseIterable {
        /// The default: with WAL, a commit is durable once the WAL is synced at the next
        /// checkpoint; a crash never corrupts the file.
        case normal
        /// The WAL is synced at every commit.
        case full
        /// Nothing is synced; a system crash may lose recent saves.
        case off
    }

    /// The smallest LMDB map size the LMDB store accepts, in bytes (1 MiB).
    public static let minimumLMDBMapSize = 1_048_576

    /// SQLite's `synchronous` option (`options["synchronous"]`); `nil` leaves the store's default.
    /// A value other than the three known ones reads as `nil` and is rejected by the store.
    public var sqliteSynchronous: SQLiteSynchronous? {
        get { options["synchronous"].flatMap(SQLiteSynchronous.init(rawValue:)) }
        set { options["synchronous"] = newValue?.rawValue }
    }

    /// LMDB's initial map size in bytes (`options["mapSize"]`); `nil` leaves the store's default
    /// (64 MiB; the map grows by itself when full).
    public var lmdbMapSize: Int? {
        get { options["mapSize"].flatMap { Int($0) } }
        set { options["mapSize"] = newValue.map(String.init) }
    }
}
