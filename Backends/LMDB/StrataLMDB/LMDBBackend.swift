import CStrataLMDB
import Foundation
import StrataCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The LMDB backend: scheme `lmdb`, a store per directory (`lmdb:/var/data/app.lmdb`).
///
/// Options (``StoreOptions/options``): `mapSize` (initial map size in bytes, default 64 MiB; the
/// map grows by itself), `durability` (`normal`, the default, or `full`) and the history options
/// (``HistoryOptions``). See docs/LMDBStore.md.
///
/// ```swift
/// StoreRegistry.shared.register(LMDBBackend())
/// let store = try StoreRegistry.shared.open("lmdb:/var/data/app.lmdb", model: model)
/// ```
public struct LMDBBackend: StoreBackend {
    /// `"lmdb"`.
    static let schemeName = "lmdb"

    /// Creates the backend.
    public init() {}

    /// `"lmdb"`.
    public var scheme: String { LMDBBackend.schemeName }

    /// Persistent, shared between processes, and openable read-only.
    public var capabilities: BackendCapabilities { [.persistent, .multiProcess, .readOnly] }

    /// `mapSize` (bytes; configuration files may write it `lmdbMapSize`), `maxMapSize`,
    /// `durability`, `sync`, `pageCheck`, and `history`, `historyKeepDays` and
    /// `historyKeepTransactions` (``HistoryOptions``). See docs/LMDBStore.md.
    public var supportedOptions: [StoreBackendOption]? { LMDBOptions.declared }

    /// The smallest map size the `mapSize` option accepts, in bytes (1 MiB).
    public static var minimumMapSize: Int { LMDBOptions.minimumMapSize }

    /// Checks `model` against LMDB's limits: the number of named databases a store holds and
    /// the length of their names (see docs/LMDBStore.md).
    ///
    /// - Throws: ``StrataError/Code/invalidModel`` naming the entity, the limit and the count.
    public func checkLimits(of model: Model) throws {
        try LMDBLayout.checkLimits(of: model)
    }

    /// Opens the store in the directory `url.location`, creating the directory and the store
    /// when nothing is there (unless ``StoreOptions/createsIfMissing`` is `false` or the store is
    /// opened read-only). An existing store written with another model throws
    /// ``StrataError/Code/modelMismatch`` and is not touched; a directory that is not an LMDB
    /// environment, a damaged data file or an LMDB environment that is not a Strata store
    /// throws ``StrataError/Code/storeCorrupt``; a path the process may not use throws
    /// ``StrataError/Code/io`` naming the path and the cause.
    public func open(_ url: StoreURL, model: Model, options: StoreOptions) throws -> any PersistentStore {
        try LMDBStore.open(url, model: model, options: options)
    }

    /// Opens the LMDB store at `url` with its concrete type.
    public func openStore(_ url: StoreURL, model: Model, options: StoreOptions = StoreOptions()) throws -> LMDBStore {
        try LMDBStore.open(url, model: model, options: options)
    }

    /// The metadata of the store at `url`, or `nil` when there is no LMDB environment there.
    public func metadata(at url: StoreURL) throws -> StoreMetadata? {
        try withMetadata(at: url, doing: "reading the metadata") { environment, meta, path in
            try environment.read { txn in try LMDBStore.readMetadata(txn, meta, path: path) }
        } ?? nil
    }

    /// The JSON of the model version with `versionHash` the store at `url` carries (in `_meta`, as
    /// `model.<versionHash>`), or `nil`.
    public func storedModelJSON(at url: StoreURL, versionHash: String) throws -> Data? {
        try withMetadata(at: url, doing: "reading the model") { environment, meta, _ in
            try environment.read { txn in try LMDBStore.modelJSON(txn, meta, versionHash: versionHash) }
        } ?? nil
    }

    /// `body` with the environment at `url` opened read-only and its `_meta` database, or `nil`
    /// when there is no store there.
    private func withMetadata<T>(
        at url: StoreURL, doing action: String, _ body: (LMDBEnvironment, MDB_dbi, String) throws -> T
    ) throws -> T? {
        let path = try LMDBDirectory.path(of: url)
        let state = try LMDBDirectory.state(path)
        switch state {
        case .missing, .emptyDirectory: return nil
        case .notDirectory, .foreignDirectory, .environment:
            try LMDBDirectory.check(state, at: path, options: .readOnlyProbe)
        }
        var options = LMDBOptions.readOnlyProbe
        options.mapSize = LMDBOptions.minimumMapSize
        let environment = try LMDBEnvironment.acquire(path: path, options: options)
        defer { environment.release() }
        do {
            guard try environment.hasDatabase(LMDBLayout.metadataDatabase) else {
                if try environment.mainDatabaseIsEmpty() { return nil }
                throw StrataError(
                    .storeCorrupt, "\(path) is an LMDB environment but not a Strata store", location: ["path": path])
            }
            let meta = try environment.openDatabases([(LMDBLayout.metadataDatabase, 0)], create: false)[
                LMDBLayout.metadataDatabase]!
            return try body(environment, meta, path)
        } catch {
            throw environment.translate(error, doing: action)
        }
    }

    /// Deletes `data.mdb` and `lock.mdb` and then the directory, if that leaves it empty.
    /// Refuses (``StrataError/Code/storeBusy``) while this process has the store open, and
    /// waits for other processes to close it (see ``StoreBackend/lockForMigration(of:timeoutMilliseconds:)``).
    public func destroyStore(at url: StoreURL) throws {
        let path = try LMDBDirectory.path(of: url)
        let lock = try lockForMigration(of: url)
        defer { lock?.release() }
        if LMDBEnvironment.isOpen(path: path) {
            throw StrataError(
                .storeBusy, "the LMDB store at \(path) is open in this process; close it before destroying it",
                location: ["path": path])
        }
        switch try LMDBDirectory.state(path) {
        case .missing: return
        case .notDirectory, .foreignDirectory:
            throw StrataError(
                .storeCorrupt, "\(path) is not an LMDB environment; nothing was deleted", location: ["path": path])
        case .emptyDirectory, .environment: break
        }
        for file in [LMDBDirectory.dataFile(path), LMDBDirectory.lockFile(path)] {
            if unlink(file) != 0 && errno != ENOENT {
                throw LMDBDirectory.failure(file, errno: errno, doing: "deleting")
            }
        }
        if rmdir(path) != 0 && errno != ENOENT && errno != ENOTEMPTY {
            throw LMDBDirectory.failure(path, errno: errno, doing: "removing the directory")
        }
        lock?.removeFileOfDeletedStore()
    }
}

extension LMDBBackend {
    /// The store's directory, then its `data.mdb` and `lock.mdb`.
    public func files(of url: StoreURL) throws -> [String] {
        let path = try LMDBDirectory.path(of: url)
        return [path, LMDBDirectory.dataFile(path), LMDBDirectory.lockFile(path)]
    }
}

extension LMDBOptions {
    /// Options for a short read-only look at an environment.
    static var readOnlyProbe: LMDBOptions {
        var options = LMDBOptions()
        options.isReadOnly = true
        options.createsIfMissing = false
        return options
    }
}
