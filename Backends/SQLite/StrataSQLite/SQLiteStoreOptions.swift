import CStrataSQLite
import StrataCore

/// The SQLite backend's options, parsed from ``StoreOptions`` (declared in ``declared``).
///
/// | name | values | default |
/// |---|---|---|
/// | `synchronous` | `normal`, `full`, `off` | `normal` (with WAL: durable up to the last checkpoint on power loss, never corrupt) |
/// | `busyTimeout` | milliseconds, 0 or more | `5000` |
/// | `vfs` | the name of a registered SQLite VFS | SQLite's default VFS |
/// | `history` | `on`, `off` | `on` (see ``HistoryOptions``) |
/// | `historyKeepDays` | days, 1 or more | keep all |
/// | `historyKeepTransactions` | transactions, 1 or more | keep all |
///
/// Any other name, or a value outside these, is ``StrataError/Code/invalidOption``.
struct SQLiteStoreOptions: Sendable {
    var isReadOnly: Bool
    var createsIfMissing: Bool
    var synchronous: SQLiteSynchronous = .normal
    var busyTimeoutMilliseconds: Int32 = 5000
    /// The SQLite VFS every connection of the store uses (`nil`: the default one).
    var vfs: String?
    /// Whether readers open the file as immutable: a read-only open of a store in a directory
    /// this process cannot write, where SQLite cannot create the `-shm` file it reads a WAL
    /// database through (read-only media).
    var immutable = false
    /// The identifier a store created by this open gets (see `StoreOptions.identifierForNewStore`).
    var identifierForNewStore: String?
    /// Whether saves record history, and how much of it is kept.
    var history = HistoryOptions()

    /// The options the SQLite backend declares (``SQLiteBackend/supportedOptions``).
    static let declared: [StoreBackendOption] =
        [
            .choice(
                "synchronous", SQLiteSynchronous.allCases.map(\.rawValue), ignoringCase: true,
                summary: "How hard a commit pushes data to the disk (PRAGMA synchronous).",
                configFileKey: "sqliteSynchronous"),
            .integer(
                "busyTimeout", in: 0...Int(Int32.max), unit: "milliseconds",
                summary: "How long a connection waits for another process's lock before failing."),
            StoreBackendOption(
                name: "vfs", summary: "The registered SQLite VFS every connection of the store uses.",
                expected: "the name of a SQLite VFS registered in this process", isValid: { !$0.isEmpty }),
        ] + HistoryOptions.supportedOptions

    /// Parses `options` and the query options of `url`, rejecting unknown names and unusable values with
    /// ``StrataError/Code/invalidOption``.
    init(_ options: StoreOptions, url: StoreURL) throws {
        let options = try options.addingQueryOptions(of: url)
        try SQLiteBackend().checkOptions(options.options, for: url)
        isReadOnly = options.isReadOnly
        createsIfMissing = options.createsIfMissing
        identifierForNewStore = options.identifierForNewStore
        history = try HistoryOptions(options)
        if let value = options["synchronous"], let mode = SQLiteSynchronous(rawValue: value.lowercased()) {
            synchronous = mode
        }
        if let value = options["busyTimeout"], let ms = Int32(value) { busyTimeoutMilliseconds = ms }
        if let value = options["vfs"] {
            guard sqlite3_vfs_find(value) != nil else {
                throw StrataError(
                    .invalidOption,
                    "option vfs='\(value)' is not valid for the sqlite backend: no SQLite VFS of that name is registered in this process",
                    location: [
                        "url": url.description, "option": "vfs", "value": value, "backend": SQLiteBackend.schemeName,
                    ])
            }
            vfs = value
        }
    }
}
