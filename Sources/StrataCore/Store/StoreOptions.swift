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

extension StoreOptions {
    /// These options with the query options of `url` added: `lmdb:/data/app?durability=full`
    /// opens as `options["durability"] = "full"` would. A backend that takes its URL's query as
    /// options calls this before it reads ``options``.
    ///
    /// - Throws: ``StrataError/Code/invalidOption`` when the query and ``options`` give one
    ///   option two different values; `location` has `option`, `value` (the query's), `url`.
    public func addingQueryOptions(of url: StoreURL) throws -> StoreOptions {
        var result = self
        for (name, value) in url.query.sorted(by: { $0.key < $1.key }) {
            if let given = options[name], given != value {
                throw StrataError(
                    .invalidOption,
                    "option \(name) is '\(value)' in the URL \(url) and '\(given)' in the store's options; give it once",
                    location: ["option": name, "value": value, "url": url.description])
            }
            result.options[name] = value
        }
        return result
    }
}
