import Foundation
import StrataCore

/// The in-memory backend, scheme `memory`: the reference implementation of the store protocol
/// and the test double.
///
/// - `memory:` opens a new, private store each time.
/// - `memory:NAME` opens the store named `NAME`, shared by everyone in this process who opens
///   the same name: closing and reopening it keeps its data until ``destroyStore(at:)`` or the
///   end of the process.
public struct InMemoryBackend: StoreBackend {
    /// `"memory"`.
    public let scheme = "memory"
    /// Named stores keep their data across close and reopen within the process.
    public let capabilities: BackendCapabilities = [.persistent, .readOnly]

    /// The backend (stateless: named stores live in a process-wide table).
    public init() {}

    /// The history options (``HistoryOptions``): the in-memory store has no others.
    public var supportedOptions: [StoreBackendOption]? { HistoryOptions.supportedOptions }

    /// Opens (creating when allowed) the store at `url`.
    public func open(_ url: StoreURL, model: Model, options: StoreOptions) throws -> any PersistentStore {
        let start = ContinuousClock.now
        let store = try openUnlogged(url, model: model, options: options)
        StrataLog.storeOpened(url, backend: scheme, model: model, readOnly: options.isReadOnly, since: start)
        return store
    }

    private func openUnlogged(_ url: StoreURL, model: Model, options: StoreOptions) throws -> InMemoryStore {
        try checkOptions(options.options, for: url)
        let historyOptions = try HistoryOptions(options)
        let name = try url.plainLocation(for: "the in-memory store")
        let storage: InMemoryStorage
        if name.isEmpty {
            guard options.createsIfMissing else {
                throw StrataError(.storeNotFound, "\(url) names no store", location: ["url": url.description])
            }
            storage = InMemoryStorage(
                metadata: .new(storeType: scheme, model: model, identifier: options.identifierForNewStore),
                model: model)
        } else {
            storage = try InMemoryStorage.named(
                name,
                createWith: options.createsIfMissing
                    ? StoreMetadata.new(storeType: scheme, model: model, identifier: options.identifierForNewStore)
                    : nil, model: model, url: url)
        }
        try storage.metadata().checkCompatible(with: model, at: url)
        try storage.checkDeclarationOrder(of: model, at: url)
        storage.record(model)
        return InMemoryStore(
            url: url, model: model, storage: storage, readOnly: options.isReadOnly, historyOptions: historyOptions)
    }

    /// The metadata of the named store, or `nil` when there is none.
    public func metadata(at url: StoreURL) throws -> StoreMetadata? {
        let name = try url.plainLocation(for: "the in-memory store")
        guard !name.isEmpty else { return nil }
        return InMemoryStorage.existing(name)?.metadata()
    }

    /// Forgets the named store and its data.
    /// The JSON of the model version with `versionHash` the named store at `url` has been opened
    /// with in this process, or `nil`.
    public func storedModelJSON(at url: StoreURL, versionHash: String) throws -> Data? {
        let name = try url.plainLocation(for: "the in-memory store")
        guard !name.isEmpty else { return nil }
        return InMemoryStorage.existing(name)?.model(withHash: versionHash)?.jsonData()
    }

    public func destroyStore(at url: StoreURL) throws {
        InMemoryStorage.remove(try url.plainLocation(for: "the in-memory store"))
    }
}

/// The data of one in-memory store, shared by every ``InMemoryStore`` opened on it.
final class InMemoryStorage: Sendable {
    let state: Locked<InMemoryState>
    /// Each entity's attribute and relationship names in the order of the model that made the
    /// store: the order its snapshots hold their values in.
    private let declarationOrder: [String: [String]]

    init(metadata: StoreMetadata, model: Model) {
        state = Locked(InMemoryState(metadata: metadata))
        declarationOrder = Self.declarationOrder(of: model)
    }

    private static func declarationOrder(of model: Model) -> [String: [String]] {
        Dictionary(
            uniqueKeysWithValues: model.entities.map { entity in
                (entity.name, entity.attributes.map(\.name) + [";"] + entity.relationships.map(\.name))
            })
    }

    /// Throws ``StrataError/Code/modelMismatch`` when `model` declares an entity's properties in
    /// another order than the model that made the store: the stored snapshots hold their values
    /// by position, so they would be read as the wrong properties. (The version hash ignores the
    /// order; persistent stores read their values by name or record their order.)
    func checkDeclarationOrder(of model: Model, at url: StoreURL) throws {
        for (entity, names) in Self.declarationOrder(of: model) where declarationOrder[entity] != names {
            throw StrataError(
                .modelMismatch,
                "the in-memory store \(url) was made with a model that declares the properties of \(entity) in another order; open it with the same model declaration (its values are kept by position)",
                location: ["url": url.description, "entity": entity])
        }
    }

    func metadata() -> StoreMetadata { state.withLock { $0.metadata } }

    /// Records `model`, which the store was opened with, as the model of the store's version.
    func record(_ model: Model) {
        state.withLock { state in
            if state.models[state.metadata.modelVersionHash] == nil {
                state.models[state.metadata.modelVersionHash] = model
            }
        }
    }

    /// The model recorded for the version with `hash`, or `nil`.
    func model(withHash hash: String) -> Model? { state.withLock { $0.models[hash] } }

    private static let named = Locked<[String: InMemoryStorage]>([:])

    static func named(_ name: String, createWith metadata: StoreMetadata?, model: Model, url: StoreURL) throws
        -> InMemoryStorage
    {
        try Self.named.withLock { table in
            if let existing = table[name] { return existing }
            guard let metadata else {
                throw StrataError(
                    .storeNotFound, "no in-memory store is named '\(name)'", location: ["url": url.description])
            }
            let storage = InMemoryStorage(metadata: metadata, model: model)
            table[name] = storage
            return storage
        }
    }

    static func existing(_ name: String) -> InMemoryStorage? { Self.named.withLock { $0[name] } }

    static func remove(_ name: String) { _ = Self.named.withLock { $0.removeValue(forKey: name) } }
}

/// Everything an in-memory store holds; replaced as a whole value at each save, so a save is
/// atomic and readers holding the old value see a consistent state.
struct InMemoryState: Sendable {
    var metadata: StoreMetadata
    /// The models the store has been opened with, by the hash of the version each was opened at.
    var models: [String: Model] = [:]
    var tables = InMemoryTables()
    var nextKeys: [String: Int64] = [:]
    var history = InMemoryHistory()
}

/// The tables of a store by entity name. A lookup by a ``TableName`` the store made once (as a
/// fault's lookup by ID does) hashes no string; a lookup by a plain name hashes it once.
struct InMemoryTables: Sendable {
    private var byName: [TableName: InMemoryTable] = [:]

    /// The table of `name`; changed in place through optional chaining.
    subscript(name: TableName) -> InMemoryTable? {
        get { byName[name] }
        _modify { yield &byName[name] }
    }

    /// The table of the entity named `name`.
    subscript(name: String) -> InMemoryTable? {
        get { byName[TableName(name)] }
        _modify { yield &byName[TableName(name)] }
    }

    /// Takes the table of `name` out (so it can change without a copy), or `nil`.
    mutating func removeValue(forKey name: String) -> InMemoryTable? { byName.removeValue(forKey: TableName(name)) }
}

/// An entity name hashed once, when made: a table lookup by it hashes one integer and compares
/// the name only when the hashes match.
struct TableName: Hashable, Sendable {
    let name: String
    private let hash: Int

    init(_ name: String) {
        self.name = name
        hash = name.hashValue
    }

    static func == (lhs: TableName, rhs: TableName) -> Bool { lhs.hash == rhs.hash && lhs.name == rhs.name }

    func hash(into hasher: inout Hasher) { hasher.combine(hash) }

    /// The name's hash mixed with the table's seed (SplitMix64's finalizer), not fed through
    /// SipHash again.
    func _rawHashValue(seed: Int) -> Int {
        var x = UInt64(bitPattern: Int64(hash)) ^ UInt64(bitPattern: Int64(seed))
        x = (x ^ (x >> 30)) &* 0xBF58_476D_1CE4_E5B9
        x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int(bitPattern: UInt(x ^ (x >> 31)))
    }
}
