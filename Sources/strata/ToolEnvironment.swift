import Foundation
import Logging
import Strata

/// The model given to a command (`--model`, `$STRATA_MODEL`), if any, and the backends, shared by
/// the store commands.
///
/// A command that reads a store needs no model: it opens the store with the model the store
/// carries. A given model must then be one the store was written with.
struct ToolEnvironment {
    /// The model given with `--model` or `$STRATA_MODEL`, or `nil`.
    let given: VersionedModel?
    let registry = BuiltInBackends.registry

    init(_ options: CommonOptions) throws {
        ToolLogging.start(try ToolLogging.level(option: options.logLevel))
        given = try options.givenModelPath.map(Self.model(at:))
    }

    /// The model at `path`: a `NAME.stratamodel` directory, or one JSON model file (a model with
    /// one version, named by the file's `version` or, when it has none, by the file's name), such
    /// as the one `Schema.modelJSON()` or `Model.jsonData()` writes for a model declared in Swift.
    static func model(at path: String) throws -> VersionedModel {
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            return try VersionedModel(directory: url)
        }
        let model = try Model(contentsOf: url)
        let name = url.deletingPathExtension().lastPathComponent
        guard model.versionIdentifier.isEmpty else { return try VersionedModel(name: name, versions: [model]) }
        let named = try Model(versionIdentifier: name, entities: model.entities, configurations: model.configurations)
        return try VersionedModel(name: name, versions: [named])
    }

    func backend(for url: StoreURL) throws -> any StoreBackend { try registry.backend(for: url.scheme) }

    /// The given model, or an error saying that `purpose` needs one.
    func requireModel(to purpose: String) throws -> VersionedModel {
        guard let given else {
            throw StrataError(
                .invalidRequest,
                "\(purpose) needs a model: pass --model MODEL (a NAME.stratamodel directory or a JSON model file) or set \(CommonOptions.modelVariable)",
                location: ["option": "--model"])
        }
        return given
    }

    /// The given model's version named `identifier`, or an error listing the versions there are.
    func version(named identifier: String) throws -> Model {
        let versioned = try requireModel(to: "--model-version")
        guard let model = versioned.version(named: identifier) else {
            throw StrataError(
                .modelMismatch,
                "the model \(versioned.name) has no version '\(identifier)' (it has \(versioned.versions.map(\.versionIdentifier).joined(separator: ", ")))",
                location: ["version": identifier])
        }
        return model
    }

    /// The metadata of the existing store at `url` and the model version it was written with:
    /// the given model's version with the store's hash, or without a given model the model the
    /// store carries.
    func existing(_ url: StoreURL) throws -> (metadata: StoreMetadata, model: Model) {
        guard let metadata = try backend(for: url).metadata(at: url) else {
            throw StrataError(.storeNotFound, "there is no store at \(url)", location: ["url": url.description])
        }
        guard let versioned = given else { return (metadata, try carriedModel(at: url)) }
        guard let model = versioned.version(withHash: metadata.modelVersionHash) else {
            let known = versioned.versions.map { "\($0.versionIdentifier) \($0.versionHash.prefix(12))" }.joined(
                separator: ", ")
            throw StrataError(
                .modelMismatch,
                "the store at \(url) was written with model version '\(metadata.modelVersionIdentifier)' (hash \(metadata.modelVersionHash)), which the model \(versioned.name) does not have (it has \(known))",
                location: ["url": url.description, "hash": metadata.modelVersionHash])
        }
        return (metadata, model)
    }

    /// The model the store at `url` carries; for a store that carries none, the error says to
    /// give one.
    private func carriedModel(at url: StoreURL) throws -> Model {
        do { return try StoreModelReader.model(at: url, registry: registry) } catch var error as StrataError
            where error.code == .storeHasNoModel
        {
            error.message += "; pass --model MODEL or set \(CommonOptions.modelVariable)"
            throw error
        }
    }

    /// Opens the existing store at `url` read-only, with the model version it was written with:
    /// the commands that use it only read, so they work on read-only media and files too.
    func openExisting(_ url: StoreURL) throws -> (store: any PersistentStore, metadata: StoreMetadata) {
        let (metadata, model) = try existing(url)
        let store = try backend(for: url).open(
            url, model: model, options: StoreOptions(isReadOnly: true, createsIfMissing: false))
        StrataLog.logger("tool").debug(
            "opened \(url) read-only",
            metadata: ["model": .string(model.versionIdentifier), "type": .string(metadata.storeType)])
        return (store, metadata)
    }
}
