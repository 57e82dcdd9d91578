import ArgumentParser
import Foundation
import Strata
import StrataTransfer

/// `strata query URL --entity E ...`: ad-hoc reads and aggregates, pushed down to the store.
struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Read objects of one entity, or aggregates over them, from a store.",
        discussion: """
            Prints the matching objects' attributes as a table (with --json, one JSON object per \
            line), or their count with --count. The predicate and the sort run in the store where \
            it can (SQL for sqlite:), as a fetch in a program would; nothing is changed.

            Aggregates: --sum, --avg, --min and --max (each repeatable) reduce the matching \
            objects to one row, or to one row per group with --group-by. Their columns are named \
            count, sum_K, avg_K, min_K and max_K (K with its dots written as _), and --having and \
            --sort name those columns.
            """
    )

    @Argument(help: ArgumentHelp("The store URL (memory:NAME, sqlite:PATH, lmdb:DIR, xml:PATH).", valueName: "URL"))
    var url: String

    @Option(help: ArgumentHelp("The entity to read.", valueName: "ENTITY"))
    var entity: String

    @Option(
        name: .customLong("where"),
        help: ArgumentHelp(
            "Only objects matching this predicate (level > 2 AND name BEGINSWITH 'A').",
            valueName: "PREDICATE"))
    var predicate: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Sort by these keys, -KEY for descending (name,-height).", valueName: "KEYS"))
    var sort: String?

    @Option(help: ArgumentHelp("At most this many rows.", valueName: "N"))
    var limit: Int?

    @Option(help: ArgumentHelp("Skip this many rows first.", valueName: "N"))
    var offset: Int = 0

    @Flag(help: "Print only the number of matching objects.")
    var count = false

    @Option(help: ArgumentHelp("Sum of this attribute (repeat for several).", valueName: "KEY"))
    var sum: [String] = []

    @Option(help: ArgumentHelp("Average of this attribute (repeat for several).", valueName: "KEY"))
    var avg: [String] = []

    @Option(help: ArgumentHelp("Smallest value of this attribute (repeat for several).", valueName: "KEY"))
    var min: [String] = []

    @Option(help: ArgumentHelp("Largest value of this attribute (repeat for several).", valueName: "KEY"))
    var max: [String] = []

    @Option(
        name: .customLong("group-by"),
        help: ArgumentHelp("One aggregate row per distinct value of these keys (department.name).", valueName: "KEYS"))
    var groupBy: String?

    @Option(
        help: ArgumentHelp("Keep only the aggregate rows matching this predicate (count > 2).", valueName: "PREDICATE"))
    var having: String?

    @OptionGroup var options: CommonOptions

    /// Whether the command reduces objects to aggregate rows.
    private var aggregates: Bool { !(sum + avg + min + max).isEmpty || groupBy != nil }

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more, got \(limit)") }
        if offset < 0 { throw ValidationError("--offset must be 0 or more, got \(offset)") }
        if count && aggregates {
            throw ValidationError(
                "--count counts objects; with --sum, --avg, --min, --max or --group-by the rows have a count column")
        }
        if having != nil && !aggregates {
            throw ValidationError("--having filters aggregate rows: give --group-by or an aggregate")
        }
        _ = try Self.sorts(sort)
        _ = try Self.keys(groupBy, option: "--group-by")
    }

    func run() throws {
        try reportingErrors(json: options.json) {
            let environment = try ToolEnvironment(options)
            let url = try storeURL(url)
            let (store, _) = try environment.openExisting(url)
            defer { try? store.close() }
            let filter = try predicate.map { try ObjectPredicate(format: $0) }
            let sorts = try Self.sorts(sort)
            if aggregates {
                try printAggregates(from: store, filter: filter, sorts: sorts)
                return
            }
            var request = FetchRequest(
                entityName: entity, predicate: filter, sorts: sorts, limit: limit, offset: offset,
                resultType: count ? .count : .snapshots)
            if count {
                let number = try store.fetch(request).count()
                print(options.json ? JSONNode.object([("count", .integer(Int64(number)))]).compactText() : "\(number)")
                return
            }
            request.resultType = .snapshots
            let snapshots = try store.fetch(request).snapshots()
            guard let described = store.model.entity(named: entity) else { return }
            let columns = ["id"] + described.attributes.map(\.name)
            let rows = snapshots.map { snapshot in
                [Value.string("\(entity)/\(snapshot.objectID.permanentKey)")] + snapshot.attributes
            }
            printRows(rows, columns: columns)
        }
    }

    /// Runs the aggregate request the options describe and prints its rows.
    private func printAggregates(from store: any PersistentStore, filter: ObjectPredicate?, sorts: [Sort]) throws {
        let groups = try Self.keys(groupBy, option: "--group-by")
        var properties = groups.map { AggregateProperty.value(PropertyPath($0), as: Self.columnName($0)) }
        properties.append(.count(as: "count"))
        for key in sum { properties.append(.sum(PropertyPath(key), as: "sum_" + Self.columnName(key))) }
        for key in avg { properties.append(.average(PropertyPath(key), as: "avg_" + Self.columnName(key))) }
        for key in min { properties.append(.minimum(PropertyPath(key), as: "min_" + Self.columnName(key))) }
        for key in max { properties.append(.maximum(PropertyPath(key), as: "max_" + Self.columnName(key))) }
        let request = AggregateRequest(
            entityName: entity, predicate: filter, propertiesToFetch: properties,
            propertiesToGroupBy: groups.map { PropertyPath($0) },
            havingPredicate: try having.map { try ObjectPredicate(format: $0) }, sorts: sorts, limit: limit,
            offset: offset)
        let columns = properties.map(\.name)
        let rows = try store.fetchAggregates(request).map { row in columns.map { row[$0] ?? .null } }
        printRows(rows, columns: columns)
    }

    /// Prints rows as an aligned table, or as JSON Lines with `--json`.
    private func printRows(_ rows: [[Value]], columns: [String]) {
        let output = OutputBuffer()
        defer { output.flush() }
        if options.json {
            for row in rows {
                output.write(
                    JSONNode.object(zip(columns, row).map { ($0, JSONValueCoding.encode($1)) }).compactText() + "\n")
            }
            return
        }
        let cells = rows.map { $0.map(Self.text) }
        // Columns are as wide as their widest cell on a terminal: CJK and emoji take two columns.
        let widths = columns.indices.map { column in
            cells.reduce(TerminalDisplayWidth.of(columns[column])) {
                Swift.max($0, TerminalDisplayWidth.of($1[column]))
            }
        }
        func line(_ texts: [String]) -> String {
            zip(texts, widths).map { TerminalDisplayWidth.padded($0, toWidth: $1) }.joined(separator: "  ")
                .replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) + "\n"
        }
        output.write(line(columns))
        for row in cells { output.write(line(row)) }
        output.write("(\(rows.count) \(rows.count == 1 ? "row" : "rows"))\n")
    }

    /// A value as a table cell: strings as they are (control characters escaped), dates in ISO 8601
    /// to the millisecond (JSON Lines keep their full precision), null as `null`.
    private static func text(_ value: Value) -> String {
        switch value {
        case .date(let date):
            return JSONValueCoding.formatDate(date)
        case .string(let string):
            return string.unicodeScalars.map {
                $0.value < 0x20 || $0.value == 0x7F ? $0.escaped(asASCII: true) : String($0)
            }
            .joined()
        default:
            return JSONValueCoding.encode(value).compactText().trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
    }

    /// `department.name` as a column name: `department_name`.
    static func columnName(_ key: String) -> String { key.replacingOccurrences(of: ".", with: "_") }

    /// The sorts `name,-salary` describes.
    static func sorts(_ text: String?) throws -> [Sort] {
        try keys(text, option: "--sort").map { key in
            key.hasPrefix("-") ? .descending(PropertyPath(String(key.dropFirst()))) : .ascending(PropertyPath(key))
        }
    }

    /// The comma-separated keys of `text`; none may be empty.
    static func keys(_ text: String?, option: String) throws -> [String] {
        guard let text else { return [] }
        let keys = text.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard !keys.contains(where: { $0.isEmpty || $0 == "-" }) else {
            throw ValidationError("\(option) '\(text)' has an empty key; write KEY,KEY2 (and -KEY to sort descending)")
        }
        return keys
    }
}
