import Foundation

/// Reads the model a store carries, so that a store can be opened without being given its model.
///
/// Every built-in persistent backend (SQLite, LMDB, XML) keeps, in the store's metadata, the
/// canonical JSON of the model the store was written with (``Model/jsonData()``), written in the
/// same atomic step that creates the store or migrates it; SQLite and LMDB keep the JSON of every
/// version a store has been migrated through. The in-memory store keeps its model in the process.
///
/// ```swift
/// let url = try StoreURL("sqlite:app.sqlite")
/// let model = try StoreModelReader.model(at: url, registry: BuiltInBackends.registry)
/// let store = try BuiltInBackends.registry.open(url, model: model, options: StoreOptions(isReadOnly: true))
/// ```
///
/// Nothing is opened for writing, nothing is changed.
public enum StoreModelReader {
    /// The model the store at `url` was written with: the JSON it carries for its
    /// ``StoreMetadata/modelVersionHash``, checked against that hash.
    ///
    /// - Throws: ``StrataError/Code/storeNotFound`` when there is no store at `url`;
    ///   ``StrataError/Code/storeHasNoModel`` when the store carries no model (it was written
    ///   before stores kept theirs: give the model instead); ``StrataError/Code/storeCorrupt``,
    ///   naming the store and both hashes, when the JSON it carries is damaged or describes a
    ///   model of another hash.
    public static func model(at url: StoreURL, registry: StoreRegistry = .shared) throws -> Model {
        let backend = try registry.backend(for: url.scheme)
        guard let metadata = try backend.metadata(at: url) else {
            throw StrataError(.storeNotFound, "there is no store at \(url)", location: ["url": url.description])
        }
        guard let model = try model(at: url, versionHash: metadata.modelVersionHash, backend: backend) else {
            throw StrataError(
                .storeHasNoModel,
                "the store at \(url) carries no model (it was written before Strata stores kept their model); give the model it was written with, version '\(metadata.modelVersionIdentifier)' (hash \(metadata.modelVersionHash))",
                location: ["url": url.description, "storeHash": metadata.modelVersionHash])
        }
        return model
    }

    /// The model version with `versionHash` that the store at `url` carries (the current one,
    /// or one it was migrated through), or `nil` when it carries none for that hash.
    ///
    /// - Throws: ``StrataError/Code/storeCorrupt`` naming the store and both hashes when the JSON
    ///   it carries is damaged or describes a model of another hash.
    public static func model(at url: StoreURL, versionHash: String, registry: StoreRegistry = .shared) throws
        -> Model?
    {
        try model(at: url, versionHash: versionHash, backend: try registry.backend(for: url.scheme))
    }

    private static func model(at url: StoreURL, versionHash: String, backend: any StoreBackend) throws -> Model? {
        guard let data = try backend.storedModelJSON(at: url, versionHash: versionHash) else { return nil }
        let model: Model
        do { model = try Model(jsonData: data, source: "the model in \(url)") } catch let error as StrataError {
            throw StrataError(
                .storeCorrupt,
                "the model the store at \(url) carries for hash \(versionHash) is damaged: \(error.message)",
                location: ["url": url.description, "storeHash": versionHash])
        }
        guard model.matchesVersionHash(versionHash) else {
            throw StrataError(
                .storeCorrupt,
                "the model the store at \(url) carries has hash \(model.versionHash), but the store records hash \(versionHash); the store's metadata is damaged",
                location: ["url": url.description, "storeHash": versionHash, "modelHash": model.versionHash])
        }
        return model
    }
}
