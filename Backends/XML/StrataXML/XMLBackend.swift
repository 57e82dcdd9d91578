import Foundation
import StrataCore

/// The XML file backend, registered under the scheme `xml`: `xml:/var/data/app.xml`.
///
/// ```swift
/// StoreRegistry.shared.register(XMLBackend())
/// let store = try StoreRegistry.shared.open("xml:/var/data/app.xml", model: model,
///                                           options: StoreOptions(options: ["lockTimeout": "500"]))
/// ```
///
/// Options (``StoreOptions/options``): `lockTimeout`, the milliseconds a save waits for another
/// process's save to finish before failing with ``StrataError/Code/storeBusy`` (default 0), and
/// the history options (``HistoryOptions``; without a limit an XML store keeps the newest 1,000
/// transactions). See ``XMLStore`` for the store's behaviour and `docs/XMLStore.md` for the file format.
public struct XMLBackend: StoreBackend {
    /// `"xml"`.
    public static let schemeName = "xml"

    /// Creates the backend.
    public init() {}

    /// `"xml"`.
    public var scheme: String { Self.schemeName }

    /// Persistent, several processes may open a store (one saves at a time), read-only opening.
    public var capabilities: BackendCapabilities { [.persistent, .multiProcess, .readOnly] }

    /// `lockTimeout`: the milliseconds a save waits for another process's save; and the history
    /// options (``HistoryOptions``).
    public var supportedOptions: [StoreBackendOption]? { XMLStoreOptions.declared }

    /// Opens (or creates) the XML store at `url`: loads the whole graph, checking the model version
    /// hash first; a new store's file is written at once (mode 0600).
    ///
    /// The location is resolved to the real file first (symbolic links, `.` and `..`; for a new
    /// store, the real directory and the name), and the store, its lock file and its key ledger
    /// are named after it, so every spelling of one store shares one lock and one ledger.
    ///
    /// - Throws: ``StrataError/Code/modelMismatch`` for a file written with another model,
    ///   ``StrataError/Code/storeCorrupt`` (with `path` and `line`) for a bad file, including
    ///   relationships that disagree with their inverses,
    ///   ``StrataError/Code/storeNotFound`` when the file is missing and may not be created,
    ///   ``StrataError/Code/invalidOption`` for a bad option, ``StrataError/Code/io`` (also when the
    ///   path, or its lock file, is not a regular file: a FIFO, a socket, a device, a directory).
    public func open(_ url: StoreURL, model: Model, options: StoreOptions) throws -> any PersistentStore {
        try openStore(url, model: model, options: options)
    }

    /// ``open(_:model:options:)`` with the concrete type.
    public func openStore(_ url: StoreURL, model: Model, options: StoreOptions = StoreOptions()) throws -> XMLStore {
        let start = ContinuousClock.now
        let store = try openUnlogged(url, model: model, options: options)
        StrataLog.storeOpened(url, backend: scheme, model: model, readOnly: store.options.isReadOnly, since: start)
        return store
    }

    private func openUnlogged(_ url: StoreURL, model: Model, options: StoreOptions) throws -> XMLStore {
        _ = XMLLibrary.initialized
        let options = try options.addingQueryOptions(of: url)
        let path = try XMLStorePath.resolve(Self.path(of: url))
        let storeOptions = try XMLStoreOptions(options, url: url)
        // A FIFO or a device is refused before a lock file is created beside it.
        var found = stat()
        if stat(path, &found) == 0 && (found.st_mode & S_IFMT) != S_IFREG {
            throw XMLStorePath.notRegular(path, mode: found.st_mode, role: "XML store")
        }
        let accessLock = try StoreAccessLock.acquire(
            .shared, forStoreAt: path, url: url,
            timeoutMilliseconds: options["lockTimeout"] == nil
                ? StoreAccessLock.defaultTimeoutMilliseconds : storeOptions.lockTimeoutMilliseconds,
            readOnly: options.isReadOnly
        )
        let layout = XMLModelLayout(model: model)
        if XMLFileIdentity.of(path: path) == nil {
            guard options.createsIfMissing, !options.isReadOnly else {
                throw StrataError(
                    .storeNotFound,
                    "there is no XML store at \(path)"
                        + (options.isReadOnly ? " (a read-only open does not create one)" : ""),
                    location: ["path": path])
            }
            let lock = try XMLFileLock(storePath: path)
            try lock.lock(timeoutMilliseconds: storeOptions.lockTimeoutMilliseconds, storePath: path)
            defer { lock.unlock() }
            // Another process may have created the store while this one waited for the lock.
            if XMLFileIdentity.of(path: path) == nil {
                let image = XMLStoreImage(
                    metadata: StoreMetadata.new(
                        storeType: scheme, model: model, identifier: options.identifierForNewStore), model: model)
                let writer = XMLStoreWriter(layout: layout)
                let identity = try XMLAtomicFile.replace(path) { fd, temporary in
                    try writer.write(image, to: fd, path: temporary)
                }
                return XMLStore(
                    url: url, path: path, model: model, layout: layout, options: storeOptions, image: image,
                    fileIdentity: identity, fileLock: lock, accessLock: accessLock)
            }
        }
        let (image, identity) = try StoreOperationLog(component: "xml", path: path).timed {
            try XMLStoreReader.load(path: path, url: url, layout: layout, model: model)
        } _: { image, identity in
            (
                "loaded \(image.objectCount) objects",
                ["objects": String(image.objectCount), "bytes": String(identity.size)]
            )
        }
        let lock = options.isReadOnly ? nil : try XMLFileLock(storePath: path)
        if let lock, (try? lock.lock(timeoutMilliseconds: 0, storePath: path)) != nil {
            XMLAtomicFile.removeStrayTemporaries(of: path)
            lock.unlock()
        }
        return XMLStore(
            url: url, path: path, model: model, layout: layout, options: storeOptions, image: image,
            fileIdentity: identity, fileLock: lock, accessLock: accessLock)
    }

    /// The metadata in the file's root element (and `_meta` entries), or `nil` when there is no file.
    public func metadata(at url: StoreURL) throws -> StoreMetadata? {
        _ = XMLLibrary.initialized
        let path = try XMLStorePath.resolve(Self.path(of: url))
        guard XMLFileIdentity.of(path: path) != nil else { return nil }
        return try XMLStoreReader.metadata(path: path, url: url)
    }

    /// The JSON of the model the store at `url` carries (its root element's `model` attribute)
    /// when the store is at the version with `versionHash`, or `nil`: an XML store keeps only its
    /// current model.
    public func storedModelJSON(at url: StoreURL, versionHash: String) throws -> Data? {
        _ = XMLLibrary.initialized
        let path = try XMLStorePath.resolve(Self.path(of: url))
        guard XMLFileIdentity.of(path: path) != nil else { return nil }
        let (metadata, json) = try XMLStoreReader.header(path: path, url: url)
        guard metadata.modelVersionHash == versionHash, let json else { return nil }
        return Data(json.utf8)
    }

    /// Deletes the store file, its lock file and its key ledger (and temporary files a crash may
    /// have left).
    public func destroyStore(at url: StoreURL) throws {
        let path = try XMLStorePath.resolve(Self.path(of: url))
        let lock = try lockForMigration(of: url)
        defer { lock?.release() }
        let file = URL(fileURLWithPath: path)
        let directory = file.deletingLastPathComponent()
        let strayPrefix = ".\(file.lastPathComponent).tmp-"
        if let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) {
            for name in names where name.hasPrefix(strayPrefix) { unlink(directory.appendingPathComponent(name).path) }
        }
        for victim in [path, path + ".lock", path + ".keys"] where unlink(victim) != 0 && errno != ENOENT {
            throw XMLAtomicFile.ioError("cannot delete \(victim)", path: victim)
        }
        lock?.removeFileOfDeletedStore()
    }

    /// The store file, then its writer lock and key ledger.
    public func files(of url: StoreURL) throws -> [String] {
        let path = try Self.path(of: url)
        return [path, path + ".lock", path + ".keys"]
    }

    /// The file path of `url`.
    static func path(of url: StoreURL) throws -> String {
        guard url.scheme == schemeName else {
            throw StrataError(.invalidStoreURL, "'\(url)' is not an xml: URL", location: ["url": url.description])
        }
        let path = try url.plainLocation(for: "the XML store", acceptingQueryOptions: true)
        guard !path.isEmpty else {
            throw StrataError(
                .invalidStoreURL, "'\(url)' names no file; write xml:/path/to/store.xml",
                location: ["url": url.description])
        }
        return path
    }
}

/// The XML store's options, parsed from ``StoreOptions``.
struct XMLStoreOptions: Sendable {
    /// Whether the store was opened read-only.
    var isReadOnly: Bool
    /// How long a save waits for another process's save (`lockTimeout`, ms).
    var lockTimeoutMilliseconds: Int
    /// How the store keeps its history (the `history` options).
    var history: HistoryOptions

    /// The transactions an XML store keeps when neither `historyKeepDays` nor
    /// `historyKeepTransactions` is given (`historyKeepTransactions=all` keeps every one): each save rewrites the whole file, history included,
    /// so an unbounded history would make every save slower than the one before.
    static let defaultHistoryKeepTransactions = 1_000

    /// The options the XML backend declares (``XMLBackend/supportedOptions``).
    static let declared: [StoreBackendOption] =
        [
            .integer(
                "lockTimeout", in: 0...Int(Int32.max), unit: "milliseconds",
                summary: "How long a save waits for another process's save before failing with storeBusy.")
        ] + HistoryOptions.supportedOptions

    /// Parses `options` and the query options of `url`, rejecting unknown names and unusable values with
    /// ``StrataError/Code/invalidOption``.
    init(_ options: StoreOptions, url: StoreURL) throws {
        let options = try options.addingQueryOptions(of: url)
        try XMLBackend().checkOptions(options.options, for: url)
        isReadOnly = options.isReadOnly
        lockTimeoutMilliseconds = options["lockTimeout"].flatMap { Int($0) } ?? 0
        history = try HistoryOptions(options)
        if history.isEnabled && !history.prunesAutomatically && !history.keepsAllTransactions {
            history.keepTransactions = Self.defaultHistoryKeepTransactions
        }
    }
}
