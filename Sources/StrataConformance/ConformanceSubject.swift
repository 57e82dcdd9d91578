import Foundation
import StrataCore

/// The backend under test: how to get a fresh, empty store location and how to open it.
///
/// ```swift
/// let subject = ConformanceSubject(backend: SQLiteBackend()) {
///     try ConformanceSubject.temporaryURL(scheme: "sqlite", fileExtension: "sqlite")
/// }
/// @Test(arguments: ConformanceKit.checks)
/// func conformance(_ check: ConformanceCheck) throws { try check.run(on: subject) }
/// ```
///
/// Every check asks ``makeURL`` for a new location, so checks can run in parallel.
public struct ConformanceSubject: Sendable {
    /// A name for reports (the scheme by default).
    public var name: String
    /// The backend that opens the stores.
    public var backend: any StoreBackend
    /// Options passed to every open.
    public var options: StoreOptions
    /// Returns a location where no store exists yet; each call a different one.
    public var makeURL: @Sendable () throws -> StoreURL
    /// Wraps a store the way a container or a decorator does; the wrapper check expects every
    /// capability of the store to work through the wrapper. ``ForwardingStore`` by default: set
    /// your own wrapper here to check that it forwards.
    public var wrap: @Sendable (any PersistentStore) -> any PersistentStore = { ForwardingStore($0) }

    /// Describes a backend under test.
    public init(
        name: String? = nil, backend: any StoreBackend, options: StoreOptions = StoreOptions(),
        makeURL: @escaping @Sendable () throws -> StoreURL
    ) {
        self.name = name ?? backend.scheme
        self.backend = backend
        self.options = options
        self.makeURL = makeURL
    }

    /// What the backend declares it can do; checks that need a capability are skipped (and say
    /// so in their result) for backends without it.
    public var capabilities: BackendCapabilities { backend.capabilities }

    /// A new location in a fresh temporary directory: `scheme:/tmp/strata-conformance-UUID/store.EXT`
    /// (or the directory itself when `fileExtension` is `nil`, as LMDB wants).
    public static func temporaryURL(scheme: String, fileExtension: String?) throws -> StoreURL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "strata-conformance-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let location =
            fileExtension.map { directory.appendingPathComponent("store.\($0)").path }
            ?? directory.appendingPathComponent("store").path
        return StoreURL(scheme: scheme, location: location)
    }
}
