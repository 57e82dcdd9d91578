import ArgumentParser
import Foundation
import Strata

/// `strata model hash DIR`: each version's identifier and version hash.
struct ModelHashCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hash",
        abstract: "Print each version's identifier and version hash, oldest first.",
        discussion: """
            A store records the hash of the version it was written with (strata inspect shows \
            it); the version with the same hash is the one that reads it.
            """
    )

    @OptionGroup var arguments: ModelArguments

    func run() throws {
        try reportingErrors(json: arguments.json) {
            let versioned = try arguments.load()
            guard arguments.json else {
                for model in versioned.versions { print("\(model.versionIdentifier) \(model.versionHash)") }
                return
            }
            print(
                JSONNode.object([
                    ("model", .string(versioned.name)),
                    ("current", .string(versioned.current.versionIdentifier)),
                    (
                        "versions",
                        .array(
                            versioned.versions.map { model in
                                .object([
                                    ("version", .string(model.versionIdentifier)),
                                    ("hash", .string(model.versionHash)),
                                ])
                            })
                    ),
                ]).compactText())
        }
    }
}
