import ArgumentParser
import Foundation
import Strata

/// The options every store command takes.
struct CommonOptions: ParsableArguments {
    /// The environment variable that names the model when `--model` is not given.
    static let modelVariable = "STRATA_MODEL"

    @Option(
        name: .customLong("model"),
        help: ArgumentHelp(
            "The model: a directory NAME.stratamodel, or one JSON model file (default: $STRATA_MODEL, else the model "
                + "the store carries). Needed to create a store or to migrate one.",
            valueName: "MODEL"))
    var modelPath: String?

    @Flag(help: "Print machine-readable JSON on standard output (errors too) instead of text.")
    var json = false

    @Option(
        name: .customLong("log-level"),
        help: ArgumentHelp(
            "Log on standard error at this level: trace (SQL with its values), debug (SQL, store opens) or coarser "
                + "(default: $STRATA_LOG_LEVEL, else nothing).",
            valueName: "LEVEL"))
    var logLevel: String?

    /// `--model`, else `$STRATA_MODEL` when it is set and not empty, else `nil`.
    var givenModelPath: String? {
        if let modelPath { return modelPath }
        let variable = ProcessInfo.processInfo.environment[Self.modelVariable]
        return variable?.isEmpty == false ? variable : nil
    }
}

/// The tool's exit codes (docs/CLI.md).
enum ToolExit {
    /// A Strata error; the message on standard error starts with its code.
    static let strataError = ExitCode(1)
    /// `strata validate` found objects that break the model's rules.
    static let violations = ExitCode(2)
    /// A history token was older than what the store still keeps (`historyExpired`): read
    /// everything again, or copy again for a follower.
    static let historyExpired = ExitCode(4)
}
