import ArgumentParser
import Foundation
import Strata

/// `strata history URL`: a store's persistent history, read or pruned.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List the saves a store's history recorded, or prune old ones.",
        discussion: """
            Lists each transaction (token, time, author, context) and under it one line per \
            changed object: insert, update with each changed property's old and new value, or \
            delete with the values the model keeps after deletion. The store is opened \
            read-only. With --json, one JSON object per transaction and line.

            TOKEN is STORE:N as listed, or N for this store; --after TOKEN lists what came after \
            it. --prune-before TOKEN deletes that transaction and every older one (what --after \
            TOKEN leaves out); --prune-before DATE (2026-11-27 for midnight UTC, or \
            2026-11-27T12:00:00Z) deletes those committed before it. A reader asking for \
            history after a pruned token gets historyExpired (exit code 4).
            """
    )

    @Argument(help: ArgumentHelp("The store URL (sqlite:PATH, lmdb:DIR, xml:PATH).", valueName: "URL"))
    var url: String

    @Option(help: ArgumentHelp("List only the transactions after this one.", valueName: "TOKEN"))
    var after: String?

    @Option(help: ArgumentHelp("Only transactions saved by this author (repeat for several).", valueName: "A"))
    var author: [String] = []

    @Option(help: ArgumentHelp("Only changes of this entity (repeat for several).", valueName: "E"))
    var entity: [String] = []

    @Option(help: ArgumentHelp("At most this many transactions, the oldest first.", valueName: "N"))
    var limit: Int?

    @Option(
        name: .customLong("prune-before"),
        help: ArgumentHelp(
            "Delete the transactions through this token, or those committed before this date.",
            valueName: "TOKEN|DATE"))
    var pruneBefore: String?

    @Option(
        name: .customLong("keep-last"),
        help: ArgumentHelp("Delete every transaction but the newest N.", valueName: "N"))
    var keepLast: Int?

    @OptionGroup var options: CommonOptions

    /// Whether the command prunes instead of listing.
    private var prunes: Bool { pruneBefore != nil || keepLast != nil }

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more, got \(limit)") }
        if let keepLast, keepLast < 0 { throw ValidationError("--keep-last must be 0 or more, got \(keepLast)") }
        if pruneBefore != nil && keepLast != nil {
            throw ValidationError("--prune-before and --keep-last each prune; give one of them")
        }
        if prunes && (after != nil || !author.isEmpty || !entity.isEmpty || limit != nil) {
            throw ValidationError("--after, --author, --entity and --limit choose what to list; pruning takes none")
        }
    }

    func run() throws {
        try reportingErrors(json: options.json) {
            let environment = try ToolEnvironment(options)
            let url = try storeURL(url)
            if prunes {
                try prune(url, environment: environment)
            } else {
                try list(url, environment: environment)
            }
        }
    }

    /// The store's history, or an error saying it keeps none.
    private static func history(of store: any PersistentStore) throws -> any HistoryRecording {
        guard let history = store.capability((any HistoryRecording).self) else {
            throw StrataError(
                .unsupported, "the \(store.url.scheme) store at \(store.url) keeps no history",
                location: ["url": store.url.description])
        }
        return history
    }

    private func list(_ url: StoreURL, environment: ToolEnvironment) throws {
        let (store, _) = try environment.openExisting(url)
        defer { try? store.close() }
        let history = try Self.history(of: store)
        if !history.recordsHistory {
            FileHandle.standardError.write(
                Data(
                    "strata: history is off for \(url) (\(HistoryOptions.enabledOption)=off): saves made so are not recorded; listing what was recorded before\n"
                        .utf8))
        }
        let request = HistoryRequest(
            after: try after.map {
                try HistoryArguments.token($0, storeIdentifier: store.identifier, option: "--after")
            },
            authors: author.isEmpty ? nil : Set(author), entityNames: entity.isEmpty ? nil : Set(entity),
            limit: limit)
        for name in entity where store.model.entity(named: name) == nil {
            throw StrataError(
                .unknownEntity, "the model \(store.model.versionIdentifier) has no entity '\(name)'",
                location: ["entity": name, "option": "--entity"])
        }
        let transactions = try history.fetchHistory(request)
        let output = OutputBuffer()
        defer { output.flush() }
        let format = HistoryFormat(storeIdentifier: store.identifier)
        for transaction in transactions {
            output.write(options.json ? format.json(transaction).compactText() + "\n" : format.text(transaction))
        }
        if !options.json {
            output.write("(\(transactions.count) \(transactions.count == 1 ? "transaction" : "transactions"))\n")
        }
        if transactions.isEmpty, let after = request.after {
            let last = try history.lastHistoryToken()
            if after.sequence > (last?.sequence ?? 0) {
                output.flush()
                FileHandle.standardError.write(
                    Data(
                        "strata: --after \(after) is past the end of the history of \(url) (\(last.map { "its last transaction is \($0)" } ?? "it has no transaction yet")); there is nothing after it\n"
                            .utf8))
            }
        }
    }

    private func prune(_ url: StoreURL, environment: ToolEnvironment) throws {
        let (_, model) = try environment.existing(url)
        let store = try environment.backend(for: url).open(
            url, model: model, options: StoreOptions(createsIfMissing: false))
        defer { try? store.close() }
        let history = try Self.history(of: store)
        let pruning: HistoryPruning =
            if let keepLast { .keepingLast(keepLast) } else {
                try HistoryArguments.pruning(pruneBefore ?? "", storeIdentifier: store.identifier)
            }
        let pruned = try history.pruneHistory(pruning)
        let kept = try history.lastHistoryToken()
        if options.json {
            print(
                JSONNode.object([
                    ("url", .string(url.description)), ("pruned", .integer(Int64(pruned))),
                    ("lastToken", kept.map { .string($0.description) } ?? .null),
                ]).compactText())
        } else {
            print("pruned \(pruned) \(pruned == 1 ? "transaction" : "transactions") from \(url)")
        }
    }
}
