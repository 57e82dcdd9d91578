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
    /// ``StoreOptions/createIfMissing`` allows.
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

    /// Checks `model` against what this backend can hold (columns per table, key sizes, number
    /// of databases), without touching any store.
    ///
    /// ``open(_:model:options:)`` calls it before it creates anything, so a model that cannot fit
    /// leaves no file behind; tools may call it to check a model on its own. The default accepts
    /// every model: implement it when the backend has limits a valid model can exceed.
    ///
    /// - Throws: ``StrataError/Code/invalidModel`` naming the entity, the limit and the count.
    func checkLimits(of model: Model) throws
}

extension StoreBackend {
    /// Accepts every model: a backend without limits a valid model can exceed needs no check.
    public func checkLimits(of model: Model) throws {}
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
