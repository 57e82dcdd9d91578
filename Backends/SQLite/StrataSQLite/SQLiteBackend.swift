import CStrataSQLite
import Foundation
import StrataCore

/// The SQLite backend: scheme `sqlite`, location a file path (`sqlite:/var/data/app.sqlite`).
///
/// ```swift
/// let store = try SQLiteBackend().open(StoreURL.parse("sqlite:/tmp/app.sqlite"), model: model, options: StoreOptions())
/// ```
///
/// Options (``StoreOptions/options``): `synchronous` = `normal` (default), `full` or `off`;
/// `busyTimeout` = milliseconds (default 5000); `history` = `on` (default) or `off`,
/// `historyKeepDays`, `historyKeepTransactions` (see ``HistoryOptions``). See docs/SQLiteStore.md.
public struct SQLiteBackend: StoreBackend {
    /// The scheme, `"sqlite"`.
    public static let schemeName = "sqlite"

    /// Creates the backend.
    public init() {}

    /// `"sqlite"`.
    public var scheme: String { Self.schemeName }

    /// Persistent, shared between processes (WAL, busy timeout, immediate transactions), and
    /// openable read-only.
    public var capabilities: BackendCapabilities { [.persistent, .multiProcess, .readOnly] }

    /// `synchronous` (`normal`, `full`, `off`; configuration files may write it
    /// `sqliteSynchronous`), `busyTimeout` (milliseconds), `vfs`, and the history options
    /// (``HistoryOptions``). See docs/SQLiteStore.md.
    public var supportedOptions: [StoreBackendOption]? { SQLiteStoreOptions.declared }

    /// Opens (creating when missing and allowed) the store file at `url`.
    ///
    /// - Throws: ``StrataError`` with ``StrataError/Code/storeNotFound``, ``StrataError/Code/storeCorrupt``
    ///   (not SQLite, truncated, damaged, a SQLite file that is not a Strata store),
    ///   ``StrataError/Code/modelMismatch`` (both hashes in the message; the file is not touched),
    ///   ``StrataError/Code/readOnly`` (file or directory not writable), ``StrataError/Code/io``,
    ///   ``StrataError/Code/invalidOption``, ``StrataError/Code/invalidModel`` (a model beyond
    ///   SQLite's limits, see ``checkLimits(of:)``; nothing is created).
    public func open(_ url: StoreURL, model: Model, options: StoreOptions) throws -> any PersistentStore {
        try SQLiteStore.open(url, model: model, options: options)
    }

    /// Checks `model` against the limits of the SQLite library in use (read with
    /// `sqlite3_limit`): columns per table and per fetched row, parameters to write one object,
    /// and columns per index.
    ///
    /// - Throws: ``StrataError/Code/invalidModel`` naming the entity, the limit and the count.
    public func checkLimits(of model: Model) throws {
        try SQLiteSchema(model: model).checkLimits(try SQLiteLimits.current())
    }

    /// The metadata of the store at `url`, or `nil` when no file is there.
    public func metadata(at url: StoreURL) throws -> StoreMetadata? {
        try withReadOnlyConnection(to: url) { (connection, path) -> StoreMetadata? in
            guard let metadata = try SQLiteMetadataTable.read(from: connection) else {
                // A database with no tables holds nothing: a store whose creation never finished.
                if try SQLiteMetadataTable.tableCount(in: connection) == 0 { return nil }
                throw StrataError(
                    .storeCorrupt,
                    "'\(path)' is a SQLite database but not a Strata store (it has no _strata_metadata table)",
                    location: ["path": path])
            }
            return metadata
        } ?? nil
    }

    /// The JSON of the model version with `versionHash` the store at `url` carries (in its
    /// metadata table, as `model:<versionHash>`), or `nil`.
    public func storedModelJSON(at url: StoreURL, versionHash: String) throws -> Data? {
        try withReadOnlyConnection(to: url) { connection, _ in
            try SQLiteMetadataTable.modelJSON(forVersionHash: versionHash, in: connection)
        } ?? nil
    }

    /// `body` with a read-only connection to the store file at `url`, or `nil` when there is none.
    private func withReadOnlyConnection<T>(
        to url: StoreURL, _ body: (SQLiteConnection, String) throws -> T
    ) throws -> T? {
        let path = try Self.path(of: url)
        switch try SQLiteFileInspection.inspect(path) {
        case .missing, .empty: return nil
        case .database:
            let immutable = try SQLiteFileInspection.mustReadImmutably(path)
            let connection = try SQLiteConnection(
                path: path, flags: SQLITE_OPEN_READONLY, busyTimeoutMilliseconds: 5000, immutable: immutable)
            defer { connection.close() }
            return try body(connection, path)
        }
    }

    /// Deletes the store file and its `-wal`, `-shm` and `-journal` companions, once no other
    /// process has the store open (``StrataError/Code/storeBusy`` otherwise).
    public func destroyStore(at url: StoreURL) throws {
        let path = try Self.path(of: url)
        let lock = try lockForMigration(of: url)
        defer { lock?.release() }
        for file in [path, path + "-wal", path + "-shm", path + "-journal"] {
            if unlink(file) != 0 && errno != ENOENT {
                let code = errno
                throw StrataError(
                    .io, "cannot delete '\(file)': \(SQLiteFileInspection.errnoText(code))", location: ["path": file],
                    underlying: SQLiteFileInspection.errnoText(code))
            }
        }
        lock?.removeFileOfDeletedStore()
    }

    /// The store file, then its `-wal`, `-shm` and `-journal` companions.
    public func files(of url: StoreURL) throws -> [String] {
        let path = try Self.path(of: url)
        return [path, path + "-wal", path + "-shm", path + "-journal"]
    }

    /// The file path of a `sqlite:` URL.
    static func path(of url: StoreURL) throws -> String {
        guard url.scheme == schemeName else {
            throw StrataError(.invalidStoreURL, "'\(url)' is not a sqlite: URL", location: ["url": url.description])
        }
        let path = try url.plainLocation(for: "the SQLite store", acceptingQueryOptions: true)
        guard !path.isEmpty else {
            throw StrataError(
                .invalidStoreURL, "'\(url)' names no file; use sqlite:/path/to/store.sqlite",
                location: ["url": url.description])
        }
        return path
    }
}
