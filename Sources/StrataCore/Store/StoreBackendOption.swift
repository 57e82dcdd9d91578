/// One option a backend's stores accept: its name, what it does, which values it takes, and how
/// a value is checked.
///
/// A backend lists its options in ``StoreBackend/supportedOptions``; configuration files, the
/// environment and ``StoreBackend/checkOptions(_:for:)`` read that list, so a new backend adds
/// options without any change elsewhere:
///
/// ```swift
/// var supportedOptions: [StoreBackendOption]? {
///     [.choice("consistency", ["strong", "eventual"], summary: "How reads see other writers."),
///      .integer("timeout", in: 0...600_000, summary: "Milliseconds a request may take.")]
/// }
/// ```
public struct StoreBackendOption: Sendable {
    /// The option's name in ``StoreOptions/options`` (`"synchronous"`).
    public var name: String
    /// What the option does, for documentation and `--help` text.
    public var summary: String
    /// The values it takes, as error messages say them (`"one of: normal, full, off"`).
    public var expected: String
    /// A key a configuration file's store entry may use for this option directly, beside
    /// `"options"` (`"sqliteSynchronous"`); `nil` for none.
    public var configFileKey: String?
    /// Whether `value` is acceptable. Checks that need the store (a value too large for the
    /// file) stay in the backend's `open`.
    public var isValid: @Sendable (String) -> Bool

    /// An option whose values `isValid` checks.
    public init(
        name: String,
        summary: String,
        expected: String,
        configFileKey: String? = nil,
        isValid: @escaping @Sendable (String) -> Bool
    ) {
        self.name = name
        self.summary = summary
        self.expected = expected
        self.configFileKey = configFileKey
        self.isValid = isValid
    }

    /// An option taking one of `values` (compared ignoring case when `ignoringCase`).
    public static func choice(
        _ name: String, _ values: [String], ignoringCase: Bool = false, summary: String, configFileKey: String? = nil
    ) -> StoreBackendOption {
        StoreBackendOption(
            name: name, summary: summary, expected: "one of: " + values.joined(separator: ", "),
            configFileKey: configFileKey
        ) { value in
            ignoringCase ? values.contains { $0.lowercased() == value.lowercased() } : values.contains(value)
        }
    }

    /// An option taking a decimal integer in `range`.
    public static func integer(
        _ name: String, in range: ClosedRange<Int>, unit: String, summary: String, configFileKey: String? = nil
    ) -> StoreBackendOption {
        StoreBackendOption(
            name: name, summary: summary,
            expected: "a number of \(unit) from \(range.lowerBound) to \(range.upperBound)",
            configFileKey: configFileKey
        ) { value in
            Int(value).map(range.contains) ?? false
        }
    }
}
