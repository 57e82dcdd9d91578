import ArgumentParser
import Foundation
import Strata
import StrataTransfer

/// `strata copy FROM TO`: a store into a new store of any kind, keys kept.
struct CopyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy every object of a store into a new store of any kind (sqlite: to lmdb:, ...).",
        discussion: """
            Objects keep their keys, so relationships copy as they are; the copy streams in \
            batches. TO is created at FROM's model version. A TO that already holds objects is \
            refused unless --replace is given: the copy is then built beside TO and put in \
            its place once whole, so a copy that fails or is stopped leaves TO as it was.

            With --follow, the copy then receives FROM's later saves from FROM's history, each \
            batch in one save of TO that records how far TO is, until SIGINT or SIGTERM. Run the \
            same command again to resume: a TO that follows FROM is not copied again. A TO whose \
            first copy was interrupted is copied again. FROM must record history.
            """
    )

    @Argument(help: ArgumentHelp("The URL of the store to copy.", valueName: "FROM"))
    var from: String

    @Argument(help: ArgumentHelp("The URL of the store to create.", valueName: "TO"))
    var to: String

    @Flag(help: "Replace TO when it already holds objects, once the copy is whole (destructive).")
    var replace = false

    @Flag(
        help: "Keep TO in step with FROM's later saves until stopped (SIGINT, SIGTERM); resumes a TO that follows FROM."
    )
    var follow = false

    @Option(
        help: ArgumentHelp(
            "Objects per save (default: 1,000; 100,000 into an xml: store, which rewrites its whole file at each save).",
            valueName: "N"))
    var batchSize: Int?

    @OptionGroup var options: CommonOptions

    func validate() throws {
        if let batchSize, batchSize < 1 { throw ValidationError("--batch-size must be 1 or more, got \(batchSize)") }
    }

    func run() throws {
        try reportingErrors(json: options.json) {
            let environment = try ToolEnvironment(options)
            let source = try storeURL(from)
            let destination = try storeURL(to)
            let destinationBackend = try environment.backend(for: destination)
            let (store, _) = try environment.openExisting(source)
            defer { try? store.close() }
            if follow {
                try copyAndFollow(
                    store, source: source, destination: destination, backend: destinationBackend,
                    sourceBackend: try environment.backend(for: source))
                return
            }
            let progress = TerminalProgress(json: options.json)
            let report = try StoreCopier(batchSize: batchSize ?? ImportCommand.batchSize(for: destination)).copy(
                from: store, to: destination, backend: destinationBackend,
                sourceBackend: try environment.backend(for: source), replacingExisting: replace, progress: progress.show
            )
            progress.finish()
            if options.json {
                print(
                    JSONNode.object([
                        ("from", .string(source.description)), ("to", .string(destination.description)),
                        ("modelVersion", .string(store.model.versionIdentifier)),
                        ("copied", .integer(Int64(report.total))),
                        ("entities", countsNode(report.counts, model: store.model)),
                    ]).compactText())
            } else {
                print(
                    "copied \(objects(report.total)) from \(source) to \(destination)"
                        + (report.total > 0 ? ": \(countsText(report.counts, model: store.model))" : ""))
            }
        }
    }

    /// Copies (or resumes) and then follows `store` until a stop signal.
    private func copyAndFollow(
        _ store: any PersistentStore, source: StoreURL, destination: StoreURL, backend: any StoreBackend,
        sourceBackend: any StoreBackend
    ) throws {
        let follower = StoreFollower()
        let progress = TerminalProgress(json: options.json)
        let start = try follower.start(
            from: store, to: destination, backend: backend, sourceBackend: sourceBackend,
            replacingExisting: replace,
            copier: StoreCopier(batchSize: batchSize ?? ImportCommand.batchSize(for: destination)),
            progress: progress.show)
        progress.finish()
        defer { try? start.store.close() }
        // Before the first line, so that whoever reads it may stop the follower from then on.
        StopSignals.install()
        if let report = start.copied {
            say(
                json: [
                    ("from", .string(source.description)), ("to", .string(destination.description)),
                    ("modelVersion", .string(store.model.versionIdentifier)),
                    ("copied", .integer(Int64(report.total))),
                    ("entities", countsNode(report.counts, model: store.model)),
                    ("position", .string(start.position.description)),
                ],
                text: "copied \(objects(report.total)) from \(source) to \(destination)"
                    + (report.total > 0 ? ": \(countsText(report.counts, model: store.model))" : ""))
        } else {
            say(
                json: [
                    ("from", .string(source.description)), ("to", .string(destination.description)),
                    ("resumedAfter", .string(start.position.description)),
                ],
                text: "resuming: \(destination) holds \(source) through \(start.position)")
        }
        if !options.json { say(json: [], text: "following \(source) into \(destination); stop with Ctrl-C") }
        let followed = try follower.follow(from: store, to: start.store) { StopSignals.isRequested }
        let position = followed.position
        say(
            json: [
                ("followed", .string(source.description)), ("to", .string(destination.description)),
                ("transactions", .integer(Int64(followed.transactions))), ("saves", .integer(Int64(followed.saves))),
                ("position", .string(position.description)),
            ],
            text:
                "stopped following \(source): applied \(followed.transactions) transaction\(followed.transactions == 1 ? "" : "s") in \(followed.saves) save\(followed.saves == 1 ? "" : "s"); \(destination) holds it through \(position)"
        )
    }

    /// Writes one line, as a JSON object or as text, at once: a follower runs for long, and
    /// `print` keeps its output in a buffer when standard output is a pipe.
    private func say(json members: [(String, JSONNode)], text: String) {
        let line = options.json ? JSONNode.object(members).compactText() : text
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
