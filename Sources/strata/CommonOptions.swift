import ArgumentParser
import Foundation
import Strata

/// The options every store command takes.
struct CommonOptions: ParsableArguments {
    @Option(
        name: .customLong("model"),
        help: ArgumentHelp("The model: a directory NAME.stratamodel, or one JSON model file.", valueName: "MODEL"))
    var modelPath: String = "Examples/Models/Company.stratamodel"

    @Flag(help: "Print machine-readable JSON on standard output (errors too) instead of text.")
    var json = false

    @Option(
        name: .customLong("log-level"),
        help: ArgumentHelp(
            "Log on standard error at this level: trace (SQL with its values), debug (SQL, store opens) or coarser "
                + "(default: $STRATA_LOG_LEVEL, else nothing).",
            valueName: "LEVEL"))
    var logLevel: String?
}

/// The tool's exit codes (docs/CLI.md).
enum ToolExit {
    /// A Strata error; the message on standard error starts with its code.
    static let strataError = ExitCode(1)
    /// `strata validate` found objects that break the model's rules.
    static let violations = ExitCode(2)
}
