/// What a store records about itself.
public struct StoreMetadata: Sendable, Hashable {
    /// The store's unique identifier; it appears in every permanent ``ObjectID`` of the store.
    public var storeIdentifier: String
    /// The backend's scheme (`"sqlite"`).
    public var storeType: String
    /// The ``Model/versionHash`` of the model the store was written with.
    public var modelVersionHash: String
    /// The ``Model/versionIdentifier`` of that model, for messages (`"v2"`).
    public var modelVersionIdentifier: String
    /// Application-defined keys and values, changed through ``SaveRequest/metadataChanges``.
    public var userInfo: [String: String]

    /// Creates metadata.
    public init(
        storeIdentifier: String, storeType: String, modelVersionHash: String, modelVersionIdentifier: String,
        userInfo: [String: String] = [:]
    ) {
        self.storeIdentifier = storeIdentifier
        self.storeType = storeType
        self.modelVersionHash = modelVersionHash
        self.modelVersionIdentifier = modelVersionIdentifier
        self.userInfo = userInfo
    }

    /// Metadata for a new store of `storeType` written with `model`, with `identifier` or a new one.
    public static func new(storeType: String, model: Model, identifier: String? = nil) -> StoreMetadata {
        StoreMetadata(
            storeIdentifier: identifier ?? StoreIdentifier.make(), storeType: storeType,
            modelVersionHash: model.versionHash, modelVersionIdentifier: model.versionIdentifier)
    }

    /// Throws ``StrataError/Code/modelMismatch``, naming both hashes and versions, unless the store
    /// was written with `model`'s structure.
    public func checkCompatible(with model: Model, at url: StoreURL) throws {
        guard !model.matchesVersionHash(modelVersionHash) else { return }
        throw StrataError(
            .modelMismatch,
            "the store at \(url) was written with model version '\(modelVersionIdentifier)' (hash \(modelVersionHash)), but the model given is version '\(model.versionIdentifier)' (hash \(model.versionHash)); migrate the store (strata migrate) or open it with the model it was written with",
            location: ["url": url.description, "storeHash": modelVersionHash, "modelHash": model.versionHash]
        )
    }
}
