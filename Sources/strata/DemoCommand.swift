import ArgumentParser
import Foundation
import Strata

/// `strata demo`: builds the Company example's graph through a persistent container, queries it,
/// and prints what happens with timings.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract:
            "Fill a store with the Company example through a persistent container and query it, printing what happens.",
        discussion: """
            The store is loaded in the background (with progress), the employees are imported through \
            background contexts on the three-tier stack and merged into the view context, and a few \
            fetches run on the view context. Without --store the store is sqlite:strata-demo.sqlite, \
            or $STRATA_STORE when it is set.
            The store is never deleted or emptied: run the demo twice and it adds to what is there, \
            unless you pass --delete-existing-store.
            """
    )

    @Option(
        help: ArgumentHelp("The store URL (default: $STRATA_STORE, else sqlite:strata-demo.sqlite).", valueName: "URL"))
    var store: String?

    @Option(help: ArgumentHelp("How many employees to insert.", valueName: "N"))
    var objects: Int = 100_000

    @Option(
        help: ArgumentHelp(
            "Another model shaped like the Company example: a directory NAME.stratamodel or one JSON model file "
                + "(default: $STRATA_MODEL, else the Company model built into the tool).",
            valueName: "MODEL"))
    var model: String?

    @Option(
        name: .customLong("log-level"),
        help: ArgumentHelp(
            "Log on standard error at this level: trace (SQL with its values), debug (SQL, store opens) or coarser "
                + "(default: $STRATA_LOG_LEVEL, else nothing).",
            valueName: "LEVEL"))
    var logLevel: String?

    @Flag(help: "Delete the store at --store first (destructive).")
    var deleteExistingStore = false

    func validate() throws {
        guard objects >= 0 else { throw ValidationError("--objects must be 0 or more, got \(objects)") }
    }

    func run() throws {
        do {
            ToolLogging.start(try ToolLogging.level(option: logLevel))
            let variable = ProcessInfo.processInfo.environment[CommonOptions.modelVariable]
            let path = model ?? (variable?.isEmpty == false ? variable : nil)
            let versioned = try path.map(ToolEnvironment.model(at:)) ?? DemoCompanyModel.versioned()
            let demo = Demo(storeURL: store, objects: objects, versioned: versioned, deleteFirst: deleteExistingStore)
            try DemoMainQueue.run { try await demo.run() }
        } catch let error as StrataError {
            FileHandle.standardError.write(Data("strata: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
