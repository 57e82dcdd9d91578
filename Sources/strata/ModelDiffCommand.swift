import ArgumentParser
import Foundation
import Strata
import StrataMigrations

/// `strata model diff DIR`: what a migration from one version to another would do.
struct ModelDiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Print what a migration from one version of a model to another would do.",
        discussion: """
            The plan is the one strata migrate --dry-run prints for a store at the --from \
            version: every step and change, in the same words. A change inference cannot map \
            is a Strata error naming it (migrationNotInferable), as in strata migrate.
            """
    )

    @OptionGroup var arguments: ModelArguments

    @Option(
        name: .customLong("from"),
        help: ArgumentHelp("The version to start from (default: the one before --to).", valueName: "VERSION"))
    var source: String?

    @Option(
        name: .customLong("to"),
        help: ArgumentHelp("The version to end at (default: the current version).", valueName: "VERSION"))
    var destination: String?

    func run() throws {
        try reportingErrors(json: arguments.json) {
            let versioned = try arguments.load()
            let identifiers = versioned.versions.map(\.versionIdentifier)
            let to = destination ?? versioned.current.versionIdentifier
            let from =
                source ?? identifiers.firstIndex(of: to).map { identifiers[Swift.max($0 - 1, 0)] } ?? to
            let plan = try MigrationPlan.make(versions: versioned, from: from, to: to)
            print(arguments.json ? plan.jsonNode().compactText() : plan.description)
        }
    }
}
