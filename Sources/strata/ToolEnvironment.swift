import Foundation
import Logging
import Strata

/// The model directory and the backends, shared by the store commands.
struct ToolEnvironment {
    let versioned: VersionedModel
    let registry = BuiltInBackends.registry

    init(_ options: CommonOptions) throws {
        ToolLogging.start(try ToolLogging.level(option: options.logLevel))
        versioned = try Self.model(at: options.modelPath)
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

    /// The model version named `identifier`, or an error listing the versions there are.
    func version(named identifier: String) throws -> Model {
        guard let model = versioned.version(named: identifier) else {
            throw StrataError(
                .modelMismatch,
                "the model \(versioned.name) has no version '\(identifier)' (it has \(versioned.versions.map(\.versionIdentifier).joined(separator: ", ")))",
                location: ["version": identifier])
        }
        return model
    }

    /// The metadata of the existing store at `url` and the model version it was written with.
    func existing(_ url: StoreURL) throws -> (metadata: StoreMetadata, model: Model) {
        guard let metadata = try backend(for: url).metadata(at: url) else {
            throw StrataError(.storeNotFound, "there is no store at \(url)", location: ["url": url.description])
        }
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
