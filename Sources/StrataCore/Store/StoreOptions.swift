/// How to open a store.
///
/// The common options are typed fields; backend-specific ones (`synchronous` for SQLite,
/// `mapSize` for LMDB) travel in ``options`` as text, so they can come from a config file or an
/// environment variable unchanged. A backend rejects an option value it cannot use with
/// ``StrataError/Code/invalidOption``.
public struct StoreOptions: Sendable, Hashable {
    /// Open without ever writing: saves fail with ``StrataError/Code/readOnly``.
    /// (`StoreDescription.isReadOnly` is the same setting.)
    public var isReadOnly: Bool
    /// Create the store when nothing exists at the location (the default). When `false`, a missing
    /// store is ``StrataError/Code/storeNotFound``. An existing store is never recreated.
    /// (`StoreDescription.createsIfMissing` is the same setting.)
    public var createsIfMissing: Bool
    /// Backend-specific options by name (``StoreDescription``'s `options` in the engine).
    public var options: [String: String]
    /// The identifier a store created by this open gets (a new UUID when `nil`). Migrations that
    /// rebuild a store set it to the old store's identifier, so permanent IDs and their URIs stay
    /// valid; an existing store keeps its own identifier whatever this says.
    public var identifierForNewStore: String?

    /// Creates options.
    public init(
        isReadOnly: Bool = false,
        createsIfMissing: Bool = true,
        options: [String: String] = [:],
        identifierForNewStore: String? = nil
    ) {
        self.isReadOnly = isReadOnly
        self.createsIfMissing = createsIfMissing
        self.options = options
        self.identifierForNewStore = identifierForNewStore
    }

    /// The value of the backend option `name`.
    public subscript(name: String) -> String? {
        get { options[name] }
        set { options[name] = newValue }
    }
}
