import ArgumentParser
import Foundation
import Strata
import StrataTransfer

/// `strata import URL FILE|-`: JSON Lines into a store, all or nothing.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import objects from a JSON Lines file (or - for standard input) into a store.",
        discussion: """
            One object per line, such as:
            {"entity":"Employee","ref":"e1","attributes":{...},"relationships":{...}}

            The whole file is checked first, against the model's rules too, and only then written, \
            in batches: on any problem (reported with its line number) nothing is imported. The \
            input is read twice (standard input is first copied to a private temporary file), so \
            memory does not grow with the file. An existing store is written with the model it \
            carries. A missing store is created with --model (or $STRATA_MODEL) at its current \
            version, or at --model-version; it is removed again if the import fails.
            """
    )

    @Argument(help: ArgumentHelp("The store URL (created when missing).", valueName: "URL"))
    var url: String

    @Argument(help: ArgumentHelp("The JSON Lines file, or - for standard input.", valueName: "FILE"))
    var file: String

    @Option(
        name: .customLong("model-version"),
        help: ArgumentHelp("Create the store at this model version instead of the current one.", valueName: "VERSION"))
    var version: String?

    @OptionGroup var options: CommonOptions

    func run() throws {
        try reportingErrors(json: options.json) {
            let environment = try ToolEnvironment(options)
            let url = try storeURL(url)
            let backend = try environment.backend(for: url)
            let exists = try backend.metadata(at: url) != nil
            let model: Model
            if let version {
                model = try environment.version(named: version)
            } else if exists {
                model = try environment.existing(url).model
            } else {
                model = try environment.requireModel(to: "creating the store at \(url)").current
            }
            let input = file == "-" ? try StandardInputSpool() : nil
            defer { input?.remove() }
            let path = input?.path ?? file
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw StrataError(.io, "cannot read \(file): no such readable file", location: ["file": file])
            }
            // A store this import creates gets an identifier of its own, so that a failed import
            // removes that store and never one another process made meanwhile.
            let created = exists ? nil : UUID().uuidString
            let store = try backend.open(url, model: model, options: StoreOptions(identifierForNewStore: created))
            let report: JSONLinesImporter.Report
            let progress = TerminalProgress(json: options.json)
            do {
                report = try JSONLinesImporter(batchSize: Self.batchSize(for: url)).importLines(
                    contentsOf: URL(fileURLWithPath: path), source: file, into: store, progress: progress.show)
                progress.finish()
                try store.close()
            } catch {
                progress.finish()
                try? store.close()
                // The import's error is what the user needs; a store that cannot be removed
                // now (another process opened it meanwhile) stays, empty.
                if let created, (try? backend.metadata(at: url))??.storeIdentifier == created {
                    try? backend.destroyStore(at: url)
                }
                throw error
            }
            if options.json {
                print(
                    JSONNode.object([
                        ("url", .string(url.description)), ("modelVersion", .string(model.versionIdentifier)),
                        ("imported", .integer(Int64(report.total))),
                        ("entities", countsNode(report.counts, model: model)),
                    ]).compactText())
            } else {
                print(
                    "imported \(objects(report.total)) into \(url) (model \(model.versionIdentifier))"
                        + (report.total > 0 ? ": \(countsText(report.counts, model: model))" : ""))
            }
        }
    }
}

extension ImportCommand {
    /// Objects per save: 1,000, but 100,000 for an XML store, which holds every object in memory
    /// anyway and writes its whole file at each save (so small batches would write it thousands
    /// of times).
    static func batchSize(for url: StoreURL) -> Int { url.scheme == "xml" ? 100_000 : 1_000 }
}

/// Standard input copied to a new file only this user can read, so that an import can read it
/// twice; ``remove()`` deletes it.
struct StandardInputSpool {
    let path: String

    init() throws {
        let directory = FileManager.default.temporaryDirectory.path
        let path = directory + "/strata-import-\(UUID().uuidString).jsonl"
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY, 0o600)
        guard descriptor >= 0 else {
            let code = errno
            throw StrataError(
                .io,
                "cannot create a temporary file in \(directory) for standard input: \(String(cString: strerror(code)))",
                location: ["path": path])
        }
        self.path = path
        let output = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            while let chunk = try FileHandle.standardInput.read(upToCount: 1 << 20), !chunk.isEmpty {
                try output.write(contentsOf: chunk)
            }
            try output.close()
        } catch {
            try? output.close()
            unlink(path)
            throw StrataError(
                .io, "cannot copy standard input to \(path): \(error.localizedDescription)", location: ["path": path])
        }
    }

    func remove() { unlink(path) }
}
