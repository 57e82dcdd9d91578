import ArgumentParser
import Foundation
import Strata

/// `strata model hash|diff|lint DIR`: a model's version hashes, the migration between two of its
/// versions, and what in it is valid but probably a mistake. No store is opened.
struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Show a model's version hashes, the changes between versions, and lint warnings.",
        discussion: """
            MODEL is a model directory (NAME.stratamodel) or one JSON model file. No store is \
            opened. A model that is not valid is a Strata error (exit code 1, naming the file \
            and the JSON path).
            """,
        subcommands: [ModelHashCommand.self, ModelDiffCommand.self, ModelLintCommand.self]
    )
}

/// The model argument and `--json`, shared by the `model` subcommands.
struct ModelArguments: ParsableArguments {
    @Argument(
        help: ArgumentHelp("The model: a directory NAME.stratamodel, or one JSON model file.", valueName: "MODEL"))
    var modelPath: String

    @Flag(help: "Print machine-readable JSON on standard output (errors too) instead of text.")
    var json = false

    /// The model the argument names.
    func load() throws -> VersionedModel { try ToolEnvironment.model(at: modelPath) }
}
