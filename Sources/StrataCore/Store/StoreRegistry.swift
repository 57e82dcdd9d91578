/// The backends by scheme: the one place a store URL is turned into a store.
///
/// The `Strata` module registers the built-in backends (`memory`, `sqlite`, `lmdb`, `xml`) in
/// ``shared`` the first time it is used; others register themselves. Thread-safe.
public final class StoreRegistry: Sendable {
    /// The process-wide registry.
    public static let shared = StoreRegistry()

    private let backends = Locked<[String: any StoreBackend]>([:])

    /// An empty registry (tests use their own).
    public init() {}

    /// Registers `backend` under its scheme, replacing any backend registered for that scheme.
    public func register(_ backend: any StoreBackend) {
        backends.withLock { $0[backend.scheme] = backend }
    }

    /// Registers `backend` only if no backend has its scheme yet.
    public func registerIfAbsent(_ backend: any StoreBackend) {
        backends.withLock { if $0[backend.scheme] == nil { $0[backend.scheme] = backend } }
    }

    /// The registered schemes, sorted.
    public var schemes: [String] { backends.withLock { $0.keys.sorted() } }

    /// The backend for `scheme`.
    ///
    /// - Throws: ``StrataError/Code/unknownStoreScheme`` listing the registered schemes.
    public func backend(for scheme: String) throws -> any StoreBackend {
        if let backend = backends.withLock({ $0[scheme] }) { return backend }
        let known = schemes
        throw StrataError(
            .unknownStoreScheme,
            "no store backend is registered for scheme '\(scheme)'; registered: \(known.isEmpty ? "none" : known.joined(separator: ", "))",
            location: ["scheme": scheme]
        )
    }

    /// Opens the store at `url` with the backend registered for its scheme.
    public func open(_ url: StoreURL, model: Model, options: StoreOptions = StoreOptions()) throws
        -> any PersistentStore
    {
        try backend(for: url.scheme).open(url, model: model, options: options)
    }

    /// Parses `text` as a store URL and opens it.
    public func open(_ text: String, model: Model, options: StoreOptions = StoreOptions()) throws -> any PersistentStore
    {
        try open(StoreURL.parse(text), model: model, options: options)
    }
}
