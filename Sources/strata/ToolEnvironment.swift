import Foundation
import Logging
import Strata

/// The model directory and the backends, shared by the store commands.
struct ToolEnvironment {
    let versioned: VersionedModel
    let registry = BuiltInBackends.registry

    init(_ options: CommonOptions) throws {
        ToolLogging.start(try ToolLogging.level(option: options.logLevel))
        versioned = try VersionedModel(directory: URL(fileURLWithPath: options.modelDirectory))
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
