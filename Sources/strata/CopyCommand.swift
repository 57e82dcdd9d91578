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
            refused unless --replace is given, which deletes it first.
            """
    )

    @Argument(help: ArgumentHelp("The URL of the store to copy.", valueName: "FROM"))
    var from: String

    @Argument(help: ArgumentHelp("The URL of the store to create.", valueName: "TO"))
    var to: String

    @Flag(help: "Delete TO first when it already holds objects (destructive).")
    var replace = false

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
}
