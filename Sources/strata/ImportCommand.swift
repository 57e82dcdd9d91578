import ArgumentParser
import Foundation
import Strata

/// `strata import URL FILE|-`: JSON Lines into a store, all or nothing.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import objects from a JSON Lines file (or - for standard input) into a store.",
        discussion: """
            One object per line: {"entity":"Employee","ref":"e1","attributes":{...},"relationships":{"department":"d1"}}.
            The whole file is checked first and then saved at once: on any problem (reported with
            its line number) nothing is imported. A missing store is created at the current model
            version, or at --version.
            """
    )

    @Argument(help: ArgumentHelp("The store URL (created when missing).", valueName: "URL"))
    var url: String

    @Argument(help: ArgumentHelp("The JSON Lines file, or - for standard input.", valueName: "FILE"))
    var file: String

    @Option(help: ArgumentHelp("Create the store at this model version instead of the current one.", valueName: "V"))
    var version: String?

    @OptionGroup var options: CommonOptions

    func run() throws {
        try reportingErrors(json: options.json) {
            let environment = try ToolEnvironment(options)
            let url = try storeURL(url)
            let backend = try environment.backend(for: url)
            let model: Model
            if let version {
                model = try environment.version(named: version)
            } else if try backend.metadata(at: url) != nil {
                model = try environment.existing(url).model
            } else {
                model = environment.versioned.current
            }
            let data: Data
            do {
                data = file == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw StrataError(.io, "cannot read \(file): \(error.localizedDescription)", location: ["file": file])
            }
            let store = try backend.open(url, model: model, options: StoreOptions())
            defer { try? store.close() }
            let report = try JSONLinesImporter().importLines(data, source: file, into: store)
            if options.json {
                print(JSONNode.object([
                    ("url", .string(url.description)), ("modelVersion", .string(model.versionIdentifier)),
                    ("imported", .integer(Int64(report.total))), ("entities", countsNode(report.counts, model: model)),
                ]).compactText())
            } else {
                print("imported \(objects(report.total)) into \(url) (model \(model.versionIdentifier))" + (report.total > 0 ? ": \(countsText(report.counts, model: model))" : ""))
            }
        }
    }
}
