/// How to open a store.
///
/// The common options are typed fields; backend-specific ones (`synchronous` for SQLite,
/// `mapSize` for LMDB) travel in ``values`` as text, so they can come from a config file or an
/// environment variable unchanged. A backend rejects an option value it cannot use with
/// ``StrataError/Code/invalidOption``.
public struct StoreOptions: Sendable, Hashable {
    /// Open without ever writing: saves fail with ``StrataError/Code/readOnly``.
    public var readOnly: Bool
    /// Create the store when nothing exists at the location (the default). When `false`, a missing
    /// store is ``StrataError/Code/storeNotFound``. An existing store is never recreated.
    public var createIfMissing: Bool
    /// Backend-specific options by name.
    public var values: [String: String]

    /// Creates options.
    public init(readOnly: Bool = false, createIfMissing: Bool = true, values: [String: String] = [:]) {
        self.readOnly = readOnly
        self.createIfMissing = createIfMissing
        self.values = values
    }

    /// The value of the backend option `name`.
    public subscript(name: String) -> String? {
        get { values[name] }
        set { values[name] = newValue }
    }
}
