import ArgumentParser
import Foundation
import Strata

extension ToolExit {
    /// `strata model lint` found warnings.
    static let lintWarnings = ExitCode(1)
}

/// `strata model lint DIR`: what is valid in a model but probably a mistake.
struct ModelLintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Warn about what is valid in a model but probably a mistake.",
        discussion: """
            Checks each step from one version to the next (a required attribute or to-one \
            added without a default, an attribute that becomes required without one or changes \
            type, a renaming identifier that renames nothing) and the current version (an index \
            no store can use or that repeats another index or a unique constraint, a unique \
            constraint another implies, the noAction delete rule, a cascade across a \
            many-to-many relationship). Exit code 0 when there is no warning, 1 when there are.
            """
    )

    @OptionGroup var arguments: ModelArguments

    func run() throws {
        var warnings: [ModelLintWarning] = []
        try reportingErrors(json: arguments.json) {
            let versioned = try arguments.load()
            warnings = ModelLinter.warnings(in: versioned)
            if arguments.json {
                print(
                    JSONNode.object([
                        ("model", .string(versioned.name)),
                        (
                            "warnings",
                            .array(
                                warnings.map { warning in
                                    .object([
                                        ("rule", .string(warning.rule.rawValue)),
                                        ("version", .string(warning.version)),
                                        ("entity", .string(warning.entity)),
                                        ("property", warning.property.map(JSONNode.string) ?? .null),
                                        ("message", .string(warning.message)),
                                    ])
                                })
                        ),
                    ]).compactText())
            } else {
                for warning in warnings { print("warning: \(warning)") }
                print("\(versioned.name): \(warnings.count) warning\(warnings.count == 1 ? "" : "s")")
            }
        }
        if !warnings.isEmpty { throw ToolExit.lintWarnings }
    }
}
