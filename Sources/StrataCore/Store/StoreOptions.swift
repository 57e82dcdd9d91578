/// How to open a store.
///
/// The common options are typed fields; backend-specific ones (`synchronous` for SQLite,
/// `mapSize` for LMDB) travel in ``values`` as text, so they can come from a config file or an
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
    /// Backend-specific options by name.
    public var values: [String: String]
    /// The identifier a store created by this open gets (a new UUID when `nil`). Migrations that
    /// rebuild a store set it to the old store's identifier, so permanent IDs and their URIs stay
    /// valid; an existing store keeps its own identifier whatever this says.
    public var identifierForNewStore: String?

    /// Creates options.
    public init(
        isReadOnly: Bool = false,
        createsIfMissing: Bool = true,
        values: [String: String] = [:],
        identifierForNewStore: String? = nil
    ) {
        self.isReadOnly = isReadOnly
        self.createsIfMissing = createsIfMissing
        self.values = values
        self.identifierForNewStore = identifierForNewStore
    }

    /// The value of the backend option `name`.
    public subscript(name: String) -> String? {
        get { values[name] }
        set { values[name] = newValue }
    }
}

extension StoreOptions {
    /// The former spelling of ``init(isReadOnly:createsIfMissing:values:identifierForNewStore:)``.
    @available(*, deprecated, renamed: "init(isReadOnly:createsIfMissing:values:identifierForNewStore:)")
    public init(readOnly: Bool, createIfMissing: Bool = true, values: [String: String] = [:], identifierForNewStore: String? = nil) {
        self.init(isReadOnly: readOnly, createsIfMissing: createIfMissing, values: values, identifierForNewStore: identifierForNewStore)
    }

    /// The former spelling of ``init(isReadOnly:createsIfMissing:values:identifierForNewStore:)``.
    @available(*, deprecated, renamed: "init(isReadOnly:createsIfMissing:values:identifierForNewStore:)")
    public init(createIfMissing: Bool, values: [String: String] = [:], identifierForNewStore: String? = nil) {
        self.init(createsIfMissing: createIfMissing, values: values, identifierForNewStore: identifierForNewStore)
    }

    /// The former name of ``isReadOnly``.
    @available(*, deprecated, renamed: "isReadOnly")
    public var readOnly: Bool {
        get { isReadOnly }
        set { isReadOnly = newValue }
    }

    /// The former name of ``createsIfMissing``.
    @available(*, deprecated, renamed: "createsIfMissing")
    public var createIfMissing: Bool {
        get { createsIfMissing }
        set { createsIfMissing = newValue }
    }
}
