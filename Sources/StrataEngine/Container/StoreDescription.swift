import StrataCore

/// How a ``PersistentContainer`` opens one store: where it is, which entities it holds, and with
/// which options. The persistent store description of Core Data.
///
/// ```swift
/// var description = try StoreDescription("sqlite:/var/data/app.sqlite")
/// description.options["synchronous"] = "full"        // `import Strata`: description.sqliteSynchronous = .full
/// let archive = try StoreDescription("lmdb:/var/data/archive", configuration: "Archive")
/// let container = PersistentContainer(name: "App", model: model, storeDescriptions: [description, archive])
/// ```
///
/// Descriptions also come from a JSON file (``load(contentsOf:registry:)``) and from the environment
/// (``applyingEnvironment(_:to:)``, `STRATA_STORE=lmdb:/var/data/app`); docs/Container.md gives
/// the file format and the exact override rules.
///
/// Nothing here ever deletes, empties or recreates a store: a store that cannot be opened as it is
/// fails the load with a typed error and stays as it was.
public struct StoreDescription: Sendable, Hashable, CustomStringConvertible {
    /// Where the store lives; its scheme picks the backend.
    public var url: StoreURL
    /// The model configuration whose entities this store holds (``Model/defaultConfiguration``,
    /// every entity, by default). Each entity is served by exactly one store.
    public var configuration: String
    /// Open without ever writing: saves fail with ``StrataError/Code/readOnly``, and a store that
    /// would need migrating fails the load with ``StrataError/Code/modelMismatch``.
    public var isReadOnly: Bool
    /// Create the store when nothing exists at ``url`` (the default). An existing store is never
    /// recreated.
    public var createsIfMissing: Bool
    /// Migrate a store written with another version of the model while loading (the default),
    /// through the container's migrator. When `false`, such a store fails the load with
    /// ``StrataError/Code/modelMismatch``.
    public var migratesAutomatically: Bool
    /// Let the migrator infer the mapping between versions from the models themselves (renaming
    /// identifiers, added and removed properties; the default). Strata has no hand-written mapping
    /// models yet, so a store that needs migrating is only migrated when this and
    /// ``migratesAutomatically`` are both `true`.
    public var infersMappingAutomatically: Bool
    /// Backend options by name, passed to the backend unchanged (``StoreOptions/options``): for
    /// SQLite `synchronous` and `busyTimeout`, for LMDB `mapSize` and `sync`, for XML
    /// `lockTimeout` (see docs/SQLiteStore.md, LMDBStore.md, XMLStore.md; each backend lists them
    /// in ``StoreBackend/supportedOptions``). A backend rejects a name or value it does not know
    /// with ``StrataError/Code/invalidOption`` when the store loads, or when a configuration file
    /// or the environment gives it.
    public var options: [String: String]

    /// A description of the store at `url`.
    public init(
        url: StoreURL,
        configuration: String = Model.defaultConfiguration,
        isReadOnly: Bool = false,
        createsIfMissing: Bool = true,
        migratesAutomatically: Bool = true,
        infersMappingAutomatically: Bool = true,
        options: [String: String] = [:]
    ) {
        self.url = url
        self.configuration = configuration
        self.isReadOnly = isReadOnly
        self.createsIfMissing = createsIfMissing
        self.migratesAutomatically = migratesAutomatically
        self.infersMappingAutomatically = infersMappingAutomatically
        self.options = options
    }

    /// A description of the store whose URL is `text` (`"sqlite:/var/data/app.sqlite"`).
    ///
    /// - Throws: ``StrataError/Code/invalidStoreURL`` naming the text.
    public init(_ text: String, configuration: String = Model.defaultConfiguration) throws {
        self.init(url: try StoreURL.parse(text), configuration: configuration)
    }

    /// The options the backend opens the store with.
    public var storeOptions: StoreOptions {
        StoreOptions(isReadOnly: isReadOnly, createsIfMissing: createsIfMissing, options: options)
    }

    /// `url (configuration)` with the options that differ from the defaults.
    public var description: String {
        var parts: [String] = []
        if configuration != Model.defaultConfiguration { parts.append("configuration \(configuration)") }
        if isReadOnly { parts.append("read-only") }
        if !createsIfMissing { parts.append("must exist") }
        if !migratesAutomatically { parts.append("no automatic migration") }
        if !infersMappingAutomatically { parts.append("no inferred mapping") }
        for (name, value) in options.sorted(by: { $0.key < $1.key }) { parts.append("\(name)=\(value)") }
        return parts.isEmpty ? url.description : "\(url) (\(parts.joined(separator: ", ")))"
    }
}
