import CStrataSQLite
import StrataCore

/// The SQLite backend's options, parsed from ``StoreOptions``.
///
/// | name | values | default |
/// |---|---|---|
/// | `synchronous` | `normal`, `full`, `off` | `normal` (with WAL: durable up to the last checkpoint on power loss, never corrupt) |
/// | `busyTimeout` | milliseconds, 0 or more | `5000` |
/// | `vfs` | the name of a registered SQLite VFS | SQLite's default VFS |
///
/// Any other name, or a value outside these, is ``StrataError/Code/invalidOption``.
struct SQLiteStoreOptions: Sendable {
    /// `PRAGMA synchronous` values.
    enum Synchronous: String, Sendable, CaseIterable {
        case normal = "NORMAL", full = "FULL", off = "OFF"
    }

    var readOnly: Bool
    var createIfMissing: Bool
    var synchronous: Synchronous = .normal
    var busyTimeoutMilliseconds: Int32 = 5000
    /// The SQLite VFS every connection of the store uses (`nil`: the default one).
    var vfs: String?
    /// Whether readers open the file as immutable: a read-only open of a store in a directory
    /// this process cannot write, where SQLite cannot create the `-shm` file it reads a WAL
    /// database through (read-only media).
    var immutable = false
    /// The identifier a store created by this open gets (see `StoreOptions.identifierForNewStore`).
    var identifierForNewStore: String?

    static let names = ["busyTimeout", "synchronous", "vfs"]

    init(_ options: StoreOptions, url: StoreURL) throws {
        readOnly = options.readOnly
        createIfMissing = options.createIfMissing
        identifierForNewStore = options.identifierForNewStore
        for (name, value) in options.values.sorted(by: { $0.key < $1.key }) {
            switch name {
            case "synchronous":
                guard let mode = Synchronous(rawValue: value.uppercased()) else {
                    throw Self.invalid(name, value, "expected normal, full or off", url)
                }
                synchronous = mode
            case "busyTimeout":
                guard let ms = Int32(value), ms >= 0 else {
                    throw Self.invalid(name, value, "expected a number of milliseconds from 0 to \(Int32.max)", url)
                }
                busyTimeoutMilliseconds = ms
            case "vfs":
                guard sqlite3_vfs_find(value) != nil else {
                    throw Self.invalid(name, value, "no SQLite VFS of that name is registered in this process", url)
                }
                vfs = value
            default:
                throw StrataError(
                    .invalidOption,
                    "the SQLite store does not know the option '\(name)'; it knows: \(Self.names.joined(separator: ", "))",
                    location: ["url": url.description, "option": name]
                )
            }
        }
    }

    private static func invalid(_ name: String, _ value: String, _ expected: String, _ url: StoreURL) -> StrataError {
        StrataError(.invalidOption, "option \(name)='\(value)' is not valid for the SQLite store: \(expected)", location: ["url": url.description, "option": name, "value": value])
    }
}
