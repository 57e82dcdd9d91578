import Foundation

/// A kind of store, registered under a URL scheme: it opens stores and reads their metadata.
///
/// Register a third-party backend once at start-up, and its URLs work everywhere a store URL is
/// accepted (code, config files, `STRATA_STORE`, the `strata` tool):
///
/// ```swift
/// StoreRegistry.shared.register(MyCloudBackend())   // scheme "mycloud"
/// let store = try StoreRegistry.shared.open("mycloud:bucket/app", model: model)
/// ```
public protocol StoreBackend: Sendable {
    /// The URL scheme, e.g. `"sqlite"`.
    var scheme: String { get }
    /// What the backend's stores can do; the conformance kit reads this instead of guessing.
    var capabilities: BackendCapabilities { get }

    /// Opens the store at `url`, creating it when it does not exist and
    /// ``StoreOptions/createsIfMissing`` allows.
    ///
    /// An existing store is checked, never rebuilt: a store written with another model throws
    /// ``StrataError/Code/modelMismatch`` (see ``StoreMetadata/checkCompatible(with:at:)``) and
    /// is left untouched; a damaged one throws ``StrataError/Code/storeCorrupt``.
    ///
    /// A backend calls ``checkLimits(of:)`` first, so that a model it cannot hold is refused
    /// before anything is created at `url`.
    func open(_ url: StoreURL, model: Model, options: StoreOptions) throws -> any PersistentStore

    /// The metadata of the store at `url` without opening it for use, or `nil` when there is no
    /// store there. Migrations use this to choose the model to open with.
    func metadata(at url: StoreURL) throws -> StoreMetadata?

    /// Deletes the store at `url` and every file it owns. Only ever called on a caller's explicit
    /// request (`strata` asks first); Strata itself never deletes a store.
    func destroyStore(at url: StoreURL) throws

    /// The paths of the files and directories the store at `url` occupies, whether or not they
    /// exist yet: the store itself first, then its companions (journals, lock and key files).
    /// Empty for a store that has no files (`memory:`).
    ///
    /// Strata compares these to tell whether two URLs name the same store, or one store's files
    /// lie inside another's, under any spelling of their paths (`copy` refuses to write a store
    /// onto itself), and locks the first one for migrations (see ``StoreBackend/lockForMigration(of:timeoutMilliseconds:)``).
    func files(of url: StoreURL) throws -> [String]

    /// Checks `model` against what this backend can hold (columns per table, key sizes, number
    /// of databases), without touching any store.
    ///
    /// ``open(_:model:options:)`` calls it before it creates anything, so a model that cannot fit
    /// leaves no file behind; tools may call it to check a model on its own. The default accepts
    /// every model: implement it when the backend has limits a valid model can exceed.
    ///
    /// - Throws: ``StrataError/Code/invalidModel`` naming the entity, the limit and the count.
    func checkLimits(of model: Model) throws

    /// The options this backend's stores accept (``StoreOptions/options``), or `nil` when it does
    /// not declare them (the default: they are passed to ``open(_:model:options:)`` unchecked).
    ///
    /// Configuration files and ``checkOptions(_:for:)`` read this list: a name it lacks, or a
    /// value its ``StoreBackendOption/isValid`` refuses, is ``StrataError/Code/invalidOption``
    /// before any store is opened. A backend that declares its options calls
    /// ``checkOptions(_:for:)`` at the start of ``open(_:model:options:)`` too.
    var supportedOptions: [StoreBackendOption]? { get }

    /// The model JSON the store at `url` carries for the model version whose
    /// ``Model/versionHash`` is `versionHash`: the bytes ``Model/jsonData()`` wrote when the store
    /// was created or migrated to that version, or `nil` when the store carries none for it (a
    /// store written before stores kept their model, a version it never had, no store at `url`).
    ///
    /// A backend writes the model in the same atomic write that creates the store or moves it to
    /// a new version, so a store never records a hash without its model. Read it through
    /// ``StoreModelReader``, which checks the JSON against the store's hash. The default carries
    /// none: implement it so that tools can open the backend's stores without being given the model.
    func storedModelJSON(at url: StoreURL, versionHash: String) throws -> Data?

    /// Takes the store-wide lock of the store at `url` exclusively, for a migration, a
    /// replacement or a deletion: it waits up to `timeoutMilliseconds` for every other process
    /// (and every other open of this process) to close the store, or, for a store on a server,
    /// for any other migration of it to end, and keeps the next ones waiting until it is
    /// released. `nil` when the store needs no lock.
    ///
    /// The default locks the store's first file (``StoreAccessLock``, see ``files(of:)``), and
    /// returns `nil` for a store with no files. A backend whose stores live on a server takes
    /// the server's lock instead (PostgreSQL: an advisory lock), and returns it as
    /// ``StoreAccessLock/init(heldElsewhere:)``.
    ///
    /// - Throws: ``StrataError/Code/storeBusy`` when the store stays open elsewhere (or another
    ///   migration goes on) for the whole wait; nothing is changed then.
    func lockForMigration(of url: StoreURL, timeoutMilliseconds: Int) throws -> StoreAccessLock?

    /// Whether the stores at `url` and `other` (of `otherBackend`) are one store, or share
    /// something one of them would destroy: `copy --replace` refuses to write a store onto
    /// itself under another spelling of its URL.
    ///
    /// The default compares the stores' files (``files(of:)``) by real path and file identity,
    /// and, for stores without files, their scheme, host and location. A backend whose stores
    /// live on a server implements it to compare what identifies the store there (the server, the
    /// database and the namespace the store occupies), so that two spellings of one server's
    /// address name one store.
    func overlaps(_ url: StoreURL, with other: StoreURL, of otherBackend: any StoreBackend) throws -> Bool
}

extension StoreBackend {
    /// No files: stores that live elsewhere, or a backend that does not say.
    public func files(of url: StoreURL) throws -> [String] { [] }

    /// No model: a backend that does not keep the model its stores were written with.
    public func storedModelJSON(at url: StoreURL, versionHash: String) throws -> Data? { nil }

    /// Accepts every model: a backend without limits a valid model can exceed needs no check.
    public func checkLimits(of model: Model) throws {}

    /// The lock of the store's first file, taken exclusively (``StoreAccessLock``): it waits for
    /// every other process (and every other open of this process) to close the store, and keeps
    /// them from opening it until it is released. `nil` for a store with no files.
    ///
    /// - Throws: ``StrataError/Code/storeBusy`` when the store stays open elsewhere for the whole
    ///   wait; nothing is changed then.
    public func lockForMigration(of url: StoreURL, timeoutMilliseconds: Int) throws -> StoreAccessLock? {
        guard let path = try files(of: url).first else { return nil }
        return try StoreAccessLock.acquire(
            .exclusive, forStoreAt: path, url: url, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// ``lockForMigration(of:timeoutMilliseconds:)`` with the usual wait,
    /// ``StoreAccessLock/defaultTimeoutMilliseconds``.
    public func lockForMigration(of url: StoreURL) throws -> StoreAccessLock? {
        try lockForMigration(of: url, timeoutMilliseconds: StoreAccessLock.defaultTimeoutMilliseconds)
    }

    /// Whether the stores at `url` and `other` (of `otherBackend`) share a file: the same store
    /// under two spellings, or one store's files inside the other's directory.
    ///
    /// Files are compared by real path and, where they exist, by device and inode, so a bind
    /// mount or a hard link of a store's directory or file counts as the store itself.
    public func overlaps(_ url: StoreURL, with other: StoreURL, of otherBackend: any StoreBackend) throws -> Bool {
        let mine = try files(of: url).map(StoreAccessLock.realPath)
        let theirs = try otherBackend.files(of: other).map(StoreAccessLock.realPath)
        if mine.isEmpty || theirs.isEmpty {
            // Stores without files: the same location is the same store, whatever options the
            // two URLs' queries give.
            return scheme == otherBackend.scheme && url.host == other.host && url.location == other.location
                && !url.location.isEmpty
        }
        func inside(_ path: String, _ directory: String) -> Bool {
            path == directory || path.hasPrefix(directory.hasSuffix("/") ? directory : directory + "/")
        }
        if mine.contains(where: { a in theirs.contains { b in inside(a, b) || inside(b, a) } }) { return true }
        // The same file or directory reached through another mount: compare identities, and
        // each file's directory with the other's files (one inside the other's directory).
        let myFiles = mine.compactMap(FileIdentity.init)
        let theirFiles = theirs.compactMap(FileIdentity.init)
        let myDirectories = mine.compactMap { FileIdentity(($0 as NSString).deletingLastPathComponent) }
        let theirDirectories = theirs.compactMap { FileIdentity(($0 as NSString).deletingLastPathComponent) }
        return myFiles.contains(where: theirFiles.contains) || myDirectories.contains(where: theirFiles.contains)
            || theirDirectories.contains(where: myFiles.contains)
    }
}

/// A file's device and inode, for telling whether two paths lead to one file.
private struct FileIdentity: Equatable {
    var device: UInt64
    var inode: UInt64

    /// The identity of the file at `path`, or `nil` when there is none.
    init?(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}

/// What a backend's stores can do.
public struct BackendCapabilities: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: UInt32
    /// Creates capabilities from bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Data survives closing and reopening the store.
    public static let persistent = BackendCapabilities(rawValue: 1 << 0)
    /// Several processes may open the same store at once.
    public static let multiProcess = BackendCapabilities(rawValue: 1 << 1)
    /// Stores can be opened read-only.
    public static let readOnly = BackendCapabilities(rawValue: 1 << 2)
}
