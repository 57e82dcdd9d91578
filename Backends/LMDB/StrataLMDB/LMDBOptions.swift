import CStrataLMDB
import StrataCore

/// The LMDB backend's options, parsed from ``StoreOptions/options``.
///
/// - `mapSize`: the initial map size in bytes (default 64 MiB, at least 1 MiB). The map grows by
///   itself whenever a save needs more room, so this only sets where it starts.
/// - `maxMapSize`: the size the map never grows beyond (default and upper limit 1 TiB, at least
///   `mapSize`). A save that needs more fails with ``StrataError/Code/io`` and writes nothing: a
///   quota for the store, and how the reliability tests make the map run full.
/// - `durability`: `normal` (default, `MDB_NOMETASYNC`: the data pages are flushed at every
///   commit, the meta page at the next commit or when the store closes; a crash of the machine may
///   undo the last save but never corrupts the store: the guarantee of the SQLite store's default
///   `synchronous=normal`) or `full` (data and meta pages are flushed at every commit: a committed
///   save survives a power loss). A crash of the process alone loses nothing in either mode.
/// - `sync`: the same choice in LMDB's words, kept for existing configurations: `full`,
///   `nometasync` (= `durability=normal`) or `nosync` (nothing is flushed at commit; a crash of
///   the machine may lose recent saves, and on some file systems damage the store). Given with
///   `durability`, the two must agree.
/// - `pageCheck`: `full` (default: when the environment opens, every B-tree page the snapshot
///   uses is checked before liblmdb reads it, see ``LMDBPageCheck``) or `off` (only the meta
///   pages are checked: for trusted files, when opening must cost nothing per page).
struct LMDBOptions: Sendable, Hashable {
    /// The durability trade-off at commit.
    enum Sync: String, Sendable, Hashable, CaseIterable {
        case full, nosync, nometasync

        /// The `sync` mode of a `durability` value (`full` or `normal`), or `nil`.
        init?(durability: String) {
            switch durability {
            case "full": self = .full
            case "normal": self = .nometasync
            default: return nil
            }
        }

        /// The `durability` value of the mode, or `nil` for `nosync`, which has none.
        var durability: String? {
            switch self {
            case .full: return "full"
            case .nometasync: return "normal"
            case .nosync: return nil
            }
        }

        /// The `mdb_env_open` flag.
        var flags: UInt32 {
            switch self {
            case .full: return 0
            case .nosync: return UInt32(MDB_NOSYNC)
            case .nometasync: return UInt32(MDB_NOMETASYNC)
            }
        }
    }

    /// The default initial map size: 64 MiB.
    static let defaultMapSize = 64 << 20
    /// The smallest accepted map size: 1 MiB.
    static let minimumMapSize = 1 << 20

    var mapSize: Int = LMDBOptions.defaultMapSize
    /// The map never grows beyond this.
    var maximumMapSize: Int = LMDBOptions.largestMapSize
    /// The default is `durability=normal`, the SQLite store's default guarantee.
    var sync: Sync = .nometasync
    /// Whether the environment's trees are checked when it opens (`pageCheck=full`).
    var checksPages = true
    var isReadOnly = false
    var createsIfMissing = true

    /// Default options.
    init() {}

    /// The largest map: 1 TiB.
    static let largestMapSize = 1 << 40

    /// The options the LMDB backend declares (``LMDBBackend/supportedOptions``).
    static let declared: [StoreBackendOption] =
        [
            .integer(
                "mapSize", in: minimumMapSize...largestMapSize, unit: "bytes",
                summary: "The initial map size; the map grows by itself when a save needs more room.",
                configFileKey: "lmdbMapSize"),
            .integer(
                "maxMapSize", in: minimumMapSize...largestMapSize, unit: "bytes",
                summary: "The size the map never grows beyond: a quota for the store."),
            .choice(
                "durability", ["normal", "full"],
                summary:
                    "What a commit flushes: normal (the data pages; a system crash may undo the last save) or full (all)."
            ),
            .choice(
                "sync", Sync.allCases.map(\.rawValue),
                summary: "What a commit flushes: full, nometasync (not the meta page) or nosync (nothing)."),
            .choice(
                "pageCheck", ["full", "off"],
                summary: "Whether every B-tree page is checked when the environment opens."),
        ] + HistoryOptions.declared

    /// Parses `options` and the query options of `url`, rejecting unknown names and unusable values with
    /// ``StrataError/Code/invalidOption``.
    init(_ options: StoreOptions, url: StoreURL) throws {
        let options = try options.addingQueryOptions(of: url)
        try LMDBBackend().checkOptions(options.options, for: url)
        isReadOnly = options.isReadOnly
        createsIfMissing = options.createsIfMissing
        if let value = options["mapSize"], let bytes = Int(value) { mapSize = bytes }
        if let value = options["maxMapSize"], let bytes = Int(value) { maximumMapSize = bytes }
        if let value = options["durability"], let mode = Sync(durability: value) { sync = mode }
        if let value = options["sync"], let mode = Sync(rawValue: value) {
            if let durability = options["durability"], mode.durability != durability {
                throw StrataError(
                    .invalidOption,
                    "options durability=\(durability) and sync=\(value) for \(url) disagree; give one of them",
                    location: [
                        "option": "sync", "value": value, "url": url.description, "backend": LMDBBackend.schemeName,
                    ])
            }
            sync = mode
        }
        if let value = options["pageCheck"] { checksPages = value == "full" }
        if mapSize > maximumMapSize {
            throw StrataError(
                .invalidOption,
                "option mapSize=\(mapSize) for \(url) is larger than maxMapSize=\(maximumMapSize)",
                location: [
                    "option": "mapSize", "value": String(mapSize), "url": url.description,
                    "backend": LMDBBackend.schemeName,
                ])
        }
    }
}
