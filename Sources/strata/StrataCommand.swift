import ArgumentParser

/// `strata`: demo, inspect, import, export, validate, query, copy, follow and migrate stores, read
/// their history; inspect models.
@main
struct StrataCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata",
        abstract: "Work with Strata object-graph stores.",
        discussion: """
            Stores are named by URL: memory:[NAME], sqlite:PATH, lmdb:DIR, xml:PATH. \
            A store carries its model, so reading one needs no --model; creating a store (import) \
            and migrating one need --model MODEL or $STRATA_MODEL. Every store command takes --json; \
            strata model looks at a model without a store.

            Exit codes: 0 success, 1 a Strata error (printed with its code) or lint \
            warnings, 2 validate found violations, 64 bad usage. \
            strata migrate exits with 3 when a migration is not confirmed; strata history and \
            strata copy --follow exit with 4 when the history they need was pruned.
            """,
        version: "0.1.0",
        subcommands: [
            DemoCommand.self, InspectCommand.self, ImportCommand.self, ExportCommand.self, ValidateCommand.self,
            QueryCommand.self, CopyCommand.self, HistoryCommand.self, MigrateCommand.self, ModelCommand.self,
        ]
    )
}
