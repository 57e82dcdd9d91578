import ArgumentParser

/// `strata`: inspect, demo and (in later releases) migrate, import, export and copy stores.
@main
struct StrataCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata",
        abstract: "Work with Strata object-graph stores.",
        discussion: """
            Stores are named by URL: memory:[NAME], sqlite:PATH, lmdb:DIR, xml:PATH.
            Exit codes: 0 success, 1 a Strata error (printed with its code), 64 bad usage.
            """,
        version: "0.1.0",
        subcommands: [DemoCommand.self, MigrateCommand.self]
    )
}
