import ArgumentParser
import Foundation
import Strata

/// `strata inspect URL`: what a store is and what it holds.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show a store's type, model version and hash, object counts and size on disk.",
        discussion: """
            The store is opened with the model it carries, or with the version of --model it was \
            written with when --model is given; nothing is changed.
            """
    )

    @Argument(help: ArgumentHelp("The store URL (memory:NAME, sqlite:PATH, lmdb:DIR, xml:PATH).", valueName: "URL"))
    var url: String

    @OptionGroup var options: CommonOptions

    func run() throws {
        try reportingErrors(json: options.json) {
            let environment = try ToolEnvironment(options)
            let url = try storeURL(url)
            let (store, metadata) = try environment.openExisting(url)
            defer { try? store.close() }
            let model = store.model
            var counts: [String: Int] = [:]
            for entity in model.entities {
                counts[entity.name] = try store.fetch(FetchRequest(entityName: entity.name, resultType: .count)).count()
            }
            let size = StoreFiles.sizeOnDisk(of: url)
            let current = environment.given?.current
            if options.json {
                print(
                    JSONNode.object([
                        ("url", .string(url.description)),
                        ("storeType", .string(metadata.storeType)),
                        ("storeIdentifier", .string(metadata.storeIdentifier)),
                        ("model", environment.given.map { .string($0.name) } ?? .null),
                        ("modelSource", .string(environment.given == nil ? "store" : "option")),
                        ("modelVersion", .string(model.versionIdentifier)),
                        ("modelVersionHash", .string(metadata.modelVersionHash)),
                        ("currentModelVersion", current.map { .string($0.versionIdentifier) } ?? .null),
                        ("sizeOnDisk", size.map { .integer(Int64($0)) } ?? .null),
                        ("objects", .integer(Int64(counts.values.reduce(0, +)))),
                        ("entities", countsNode(counts, model: model)),
                        (
                            "userInfo",
                            .object(metadata.userInfo.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })
                        ),
                    ]).compactText())
                return
            }
            print("store:        \(url)")
            print("type:         \(metadata.storeType)")
            print("identifier:   \(metadata.storeIdentifier)")
            if let given = environment.given, let current {
                let note =
                    model.versionIdentifier == current.versionIdentifier
                    ? "the current version" : "older than the current \(current.versionIdentifier)"
                print("model:        \(given.name) \(model.versionIdentifier) (\(note))")
            } else {
                print("model:        \(model.versionIdentifier) (carried by the store)")
            }
            print("model hash:   \(metadata.modelVersionHash)")
            print(
                "size on disk: \(size.map { "\($0) bytes" } ?? (url.scheme == "memory" ? "none (in memory)" : "none here (on its server)"))"
            )
            print("objects:      \(counts.values.reduce(0, +))")
            let width = model.entities.map(\.name.count).max() ?? 0
            for entity in model.entities {
                print(
                    "  \(entity.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(counts[entity.name] ?? 0)"
                )
            }
            for (key, value) in metadata.userInfo.sorted(by: { $0.key < $1.key }) {
                print("user info:    \(key) = \(value)")
            }
        }
    }
}
