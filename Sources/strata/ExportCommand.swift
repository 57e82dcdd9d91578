import ArgumentParser
import Foundation
import Strata
import StrataTransfer

/// `strata export URL [--entity E] [--where PREDICATE]`: a store as JSON Lines.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a store's objects to standard output as JSON Lines.",
        discussion: """
            The output is canonical (entities in model order, objects in key order, every property \
            written, refs ENTITY/N), so importing it into a new store and exporting again gives \
            the same bytes. With --entity or --where, only relationships between exported objects \
            are written. The output is JSON already; --json only changes how errors are reported.
            """
    )

    @Argument(help: ArgumentHelp("The store URL.", valueName: "URL"))
    var url: String

    @Option(help: ArgumentHelp("Export only this entity (repeat for several).", valueName: "ENTITY"))
    var entity: [String] = []

    @Option(
        name: .customLong("where"),
        help: ArgumentHelp("Export only objects matching this predicate (needs --entity).", valueName: "PREDICATE"))
    var predicate: String?

    @OptionGroup var options: CommonOptions

    func validate() throws {
        if predicate != nil && entity.isEmpty {
            throw ValidationError("--where needs --entity: a predicate names one entity's properties")
        }
    }

    func run() throws {
        try reportingErrors(json: options.json) {
            let environment = try ToolEnvironment(options)
            let url = try storeURL(url)
            let (store, _) = try environment.openExisting(url)
            defer { try? store.close() }
            let filter = try predicate.map { try ObjectPredicate(format: $0) }
            let output = OutputBuffer()
            defer { output.flush() }
            try JSONLinesExporter().export(from: store, entityNames: entity.isEmpty ? nil : entity, predicate: filter) {
                output.write($0)
            }
        }
    }
}
