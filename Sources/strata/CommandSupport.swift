import ArgumentParser
import Foundation
import Strata

/// The options every store command takes.
struct CommonOptions: ParsableArguments {
    @Option(name: .customLong("model"), help: ArgumentHelp("The model directory (NAME.stratamodel).", valueName: "DIR"))
    var modelDirectory: String = "Examples/Models/Company.stratamodel"

    @Flag(help: "Print machine-readable JSON on standard output (errors too) instead of text.")
    var json = false
}

/// The tool's exit codes (docs/CLI.md).
enum ToolExit {
    /// A Strata error; the message on standard error starts with its code.
    static let strataError = ExitCode(1)
    /// `strata validate` found objects that break the model's rules.
    static let violations = ExitCode(2)
}

/// The model directory and the backends, shared by the store commands.
struct ToolEnvironment {
    let versioned: VersionedModel
    let registry = BuiltInBackends.registry

    init(_ options: CommonOptions) throws {
        versioned = try VersionedModel(directory: URL(fileURLWithPath: options.modelDirectory))
    }

    func backend(for url: StoreURL) throws -> any StoreBackend { try registry.backend(for: url.scheme) }

    /// The model version named `identifier`, or an error listing the versions there are.
    func version(named identifier: String) throws -> Model {
        guard let model = versioned.version(named: identifier) else {
            throw StrataError(.modelMismatch, "the model \(versioned.name) has no version '\(identifier)' (it has \(versioned.versions.map(\.versionIdentifier).joined(separator: ", ")))",
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
            let known = versioned.versions.map { "\($0.versionIdentifier) \($0.versionHash.prefix(12))" }.joined(separator: ", ")
            throw StrataError(.modelMismatch, "the store at \(url) was written with model version '\(metadata.modelVersionIdentifier)' (hash \(metadata.modelVersionHash)), which the model \(versioned.name) does not have (it has \(known))",
                              location: ["url": url.description, "hash": metadata.modelVersionHash])
        }
        return (metadata, model)
    }

    /// Opens the existing store at `url` with the model version it was written with.
    func openExisting(_ url: StoreURL) throws -> (store: any PersistentStore, metadata: StoreMetadata) {
        let (metadata, model) = try existing(url)
        let store = try backend(for: url).open(url, model: model, options: StoreOptions(createIfMissing: false))
        return (store, metadata)
    }
}

/// Runs `body`, turning a ``StrataError`` into its message on standard error (and a JSON
/// `{"error":...}` object on standard output with `--json`) and exit code 1.
func reportingErrors(json: Bool, _ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as StrataError {
        if json {
            let location = JSONNode.object(error.location.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })
            print(JSONNode.object([("error", .object([("code", .string(error.code.rawValue)), ("message", .string(error.message)), ("location", location)]))]).compactText())
        }
        FileHandle.standardError.write(Data("strata: \(error)\n".utf8))
        throw ToolExit.strataError
    }
}

/// Parses a store URL argument.
func storeURL(_ text: String) throws -> StoreURL { try StoreURL.parse(text) }

/// Per-entity counts as a JSON object, in model order.
func countsNode(_ counts: [String: Int], model: Model) -> JSONNode {
    .object(model.entities.compactMap { entity in counts[entity.name].map { (entity.name, JSONNode.integer(Int64($0))) } })
}

/// `Company 2, Department 6, ...` in model order.
func countsText(_ counts: [String: Int], model: Model) -> String {
    model.entities.compactMap { entity in counts[entity.name].map { "\(entity.name) \($0)" } }.joined(separator: ", ")
}

/// Writes text to standard output in large chunks.
final class OutputBuffer {
    private var buffer = Data()
    private let handle = FileHandle.standardOutput

    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { flush() }
    }

    func flush() {
        guard !buffer.isEmpty else { return }
        handle.write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}
