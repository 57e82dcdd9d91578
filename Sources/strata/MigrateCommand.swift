import ArgumentParser
import Foundation
import Strata
import StrataMigrations

extension ToolExit {
    /// `strata migrate` was not confirmed; nothing changed.
    static let notConfirmed = ExitCode(3)
}

/// `strata migrate`: shows the plan that brings a store to a model version, asks, and runs it.
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Migrate a store to a version of its model (the current one by default).",
        discussion: """
            Prints the plan (every step and change), asks before changing the store unless --yes, \
            and shows progress on a terminal. --dry-run prints the plan and touches nothing. \
            Each step is atomic: an interrupted migration leaves the store at a whole version, \
            and running the command again continues from there. The store is never deleted.

            Exit codes: 0 migrated, or nothing to do, or a dry run; 1 a Strata error (a change \
            inference cannot map, a store newer than the model, ...); 3 not confirmed (the answer \
            was not yes, or there is no terminal to ask and --yes was not given); 64 bad usage.
            """
    )

    @Argument(help: ArgumentHelp("The store URL (memory:NAME, sqlite:PATH, lmdb:DIR, xml:PATH).", valueName: "URL"))
    var url: String

    @Option(
        name: .customLong("to"),
        help: ArgumentHelp("The version to migrate to (default: the model's current version).", valueName: "VERSION"))
    var target: String?

    @Flag(help: "Print the plan and change nothing.")
    var dryRun = false

    @Flag(help: "Do not ask for confirmation.")
    var yes = false

    @OptionGroup var options: CommonOptions

    func run() throws {
        var confirmed = true
        try reportingErrors(json: options.json) {
            let environment = try ToolEnvironment(options)
            let storeURL = try storeURL(url)
            let migrator = try StoreMigrator(
                versions: try environment.requireModel(to: "migrating \(storeURL)"), target: target,
                registry: environment.registry)
            let plan = try migrator.plan(forStoreAt: storeURL)
            if !options.json { print(plan.description) }
            if plan.isEmpty || dryRun {
                if options.json { emit(plan, url: storeURL, migrated: false, milliseconds: nil) }
                return
            }
            if !yes {
                guard isatty(STDIN_FILENO) != 0 else {
                    FileHandle.standardError.write(
                        Data(
                            "strata: not migrating \(storeURL): standard input is not a terminal; pass --yes to migrate without asking\n"
                                .utf8))
                    confirmed = false
                    return
                }
                FileHandle.standardError.write(
                    Data(
                        "Migrate \(storeURL) from \(plan.storeVersion.versionIdentifier) to \(plan.targetVersion.versionIdentifier)? [y/N] "
                            .utf8))
                let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
                guard answer == "y" || answer == "yes" else {
                    FileHandle.standardError.write(Data("strata: not migrated; the store is unchanged\n".utf8))
                    confirmed = false
                    return
                }
            }
            let showProgress = isatty(STDERR_FILENO) != 0
            let start = Date()
            try migrator.migrate(
                storeAt: storeURL,
                progress: { report in
                    guard showProgress else { return }
                    FileHandle.standardError.write(Data("\r\u{1B}[K\(report)".utf8))
                })
            if showProgress { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            let elapsed = Int(Date().timeIntervalSince(start) * 1000)
            if options.json {
                emit(plan, url: storeURL, migrated: true, milliseconds: elapsed)
            } else {
                print("migrated \(storeURL) to \(plan.targetVersion.versionIdentifier) in \(elapsed) ms")
            }
        }
        if !confirmed { throw ToolExit.notConfirmed }
    }

    private func emit(_ plan: MigrationPlan, url: StoreURL, migrated: Bool, milliseconds: Int?) {
        var members: [(String, JSONNode)] = [
            ("url", .string(url.description)), ("dryRun", .bool(dryRun)), ("migrated", .bool(migrated)),
            ("plan", plan.jsonNode()),
        ]
        if let milliseconds { members.append(("milliseconds", .integer(Int64(milliseconds)))) }
        print(JSONNode.object(members).compactText())
    }
}
