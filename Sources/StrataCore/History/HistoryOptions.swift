/// How a store keeps its history, read from its backend options so a config file or
/// `STRATA_STORE` can set it:
///
/// | option | values | default |
/// |---|---|---|
/// | `history` | `on`, `off` | `on` |
/// | `historyKeepDays` | days to keep transactions | keep all |
/// | `historyKeepTransactions` | newest transactions to keep, or `all` | keep all |
///
/// `historyKeepTransactions=all` says to keep every transaction: the default of most stores, and
/// how to lift the limit of a store that keeps fewer by default (the XML store keeps 1,000).
/// With a limit set, a store prunes older transactions as it saves, a bounded batch at a time,
/// so no save waits long.
public struct HistoryOptions: Sendable, Hashable {
    /// Whether saves append to the history.
    public var isEnabled: Bool
    /// Transactions older than this many days are pruned automatically; `nil` keeps them.
    public var keepDays: Int?
    /// Only the newest this many transactions are kept; `nil` keeps them all.
    public var keepTransactions: Int?
    /// Whether the options say to keep every transaction (`historyKeepTransactions=all`), which
    /// overrides a store's default limit.
    public var keepsAllTransactions = false

    /// The option names.
    public static let enabledOption = "history"
    /// The option naming how many days to keep.
    public static let keepDaysOption = "historyKeepDays"
    /// The option naming how many transactions to keep.
    public static let keepTransactionsOption = "historyKeepTransactions"
    /// The value of ``keepTransactionsOption`` that keeps every transaction.
    public static let keepAllValue = "all"

    /// How many transactions an automatic prune deletes at most in one save.
    public static let pruneBatch = 1_000

    /// Creates options.
    public init(isEnabled: Bool = true, keepDays: Int? = nil, keepTransactions: Int? = nil) {
        self.isEnabled = isEnabled
        self.keepDays = keepDays
        self.keepTransactions = keepTransactions
    }

    /// The history options among `options`.
    ///
    /// - Throws: ``StrataError/Code/invalidOption`` naming the option and value when `history` is
    ///   not `on` or `off`, or a limit is not a positive whole number (or, for
    ///   `historyKeepTransactions`, `all`).
    public init(_ options: StoreOptions) throws {
        self.init()
        if let text = options[Self.enabledOption] {
            switch text.lowercased() {
            case "on": isEnabled = true
            case "off": isEnabled = false
            default:
                throw StrataError(
                    .invalidOption, "option history is '\(text.shortenedForMessages)'; use on or off",
                    location: ["option": Self.enabledOption, "value": text])
            }
        }
        keepDays = try Self.positive(options, Self.keepDaysOption)
        if options[Self.keepTransactionsOption]?.lowercased() == Self.keepAllValue {
            keepsAllTransactions = true
        } else {
            keepTransactions = try Self.positive(options, Self.keepTransactionsOption)
        }
    }

    /// The options as a backend lists them in ``StoreBackend/supportedOptions``: every backend
    /// that records history appends these to its own.
    public static let supportedOptions: [StoreBackendOption] = [
        .choice(enabledOption, ["on", "off"], ignoringCase: true, summary: "Whether saves record persistent history."),
        .integer(
            keepDaysOption, in: 1...1_000_000, unit: "days",
            summary: "Prune history transactions older than this as the store saves."),
        StoreBackendOption(
            name: keepTransactionsOption,
            summary: "Keep only this many of the newest history transactions (all: every one).",
            expected: "a number of transactions from 1 to \(Int32.max), or \(keepAllValue)"
        ) { value in
            value.lowercased() == keepAllValue || Int(value).map((1...Int(Int32.max)).contains) ?? false
        },
    ]

    /// Whether a store should prune as it saves.
    public var prunesAutomatically: Bool { keepDays != nil || keepTransactions != nil }

    private static func positive(_ options: StoreOptions, _ name: String) throws -> Int? {
        guard let text = options[name] else { return nil }
        guard let value = Int(text), value > 0 else {
            throw StrataError(
                .invalidOption,
                "option \(name) is '\(text.shortenedForMessages)'; use a whole number above 0"
                    + (name == keepTransactionsOption ? " or \(keepAllValue)" : ""),
                location: ["option": name, "value": text])
        }
        return value
    }
}
