import ArgumentParser
import Foundation
import Strata

/// `strata demo`: builds the seeds' Company graph in a store and queries it, with timings.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Fill a store with the Company example and query it, printing what happens.",
        discussion: """
            The store is never deleted or emptied: run the demo twice and it adds to what is there,
            unless you pass --delete-existing-store.
            """
    )

    @Option(help: "The store URL.")
    var store: String = "sqlite:strata-demo.sqlite"

    @Option(help: "How many employees to insert.")
    var objects: Int = 100_000

    @Option(help: "The model directory (NAME.stratamodel).")
    var model: String = "Examples/Models/Company.stratamodel"

    @Flag(help: "Delete the store at --store first (destructive).")
    var deleteExistingStore = false

    func validate() throws {
        guard objects >= 0 else { throw ValidationError("--objects must be 0 or more, got \(objects)") }
    }

    func run() throws {
        do {
            try Demo(storeURL: store, objects: objects, modelDirectory: model, deleteFirst: deleteExistingStore).run()
        } catch let error as StrataError {
            FileHandle.standardError.write(Data("strata: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
