import ArgumentParser
import Foundation
import Strata
import StrataTransfer

/// `strata validate URL`: every object against the model's rules.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check every object of a store against the model's rules and list the violations.",
        discussion: """
            Checks required values, minimum and maximum, lengths, patterns, required to-one \
            relationships, to-many counts and unique constraints. Nothing is changed. \
            Exit code 0 when every object passes, 2 when some do not.
            """
    )

    @Argument(help: ArgumentHelp("The store URL (memory:NAME, sqlite:PATH, lmdb:DIR, xml:PATH).", valueName: "URL"))
    var url: String

    @OptionGroup var options: CommonOptions

    func run() throws {
        var violations = 0
        try reportingErrors(json: options.json) {
            let environment = try ToolEnvironment(options)
            let url = try storeURL(url)
            let (store, _) = try environment.openExisting(url)
            defer { try? store.close() }
            let report = try StoreValidator().validate(store)
            let checked = report.checked.values.reduce(0, +)
            violations = report.violations.count
            if options.json {
                print(
                    JSONNode.object([
                        ("url", .string(url.description)),
                        ("checked", .integer(Int64(checked))),
                        ("entities", countsNode(report.checked, model: store.model)),
                        (
                            "violations",
                            .array(
                                report.violations.map { failure in
                                    .object([
                                        ("object", .string(failure.objectID.uriRepresentation)),
                                        ("entity", .string(failure.objectID.entityName)),
                                        ("property", failure.property.map(JSONNode.string) ?? .null),
                                        ("reason", .string(failure.reason)),
                                    ])
                                })
                        ),
                    ]).compactText())
            } else {
                for failure in report.violations { print(failure) }
                print("\(objects(checked)) checked, \(violations) violation\(violations == 1 ? "" : "s")")
            }
        }
        if violations > 0 { throw ToolExit.violations }
    }
}
