import StrataCore

/// The PostgreSQL backend's options, parsed from ``StoreOptions`` and the URL's query (declared
/// in ``declared``).
///
/// | name | values | default |
/// |---|---|---|
/// | `schema` | a PostgreSQL schema name (at most 63 bytes) | `public` |
/// | `pool` | connections, 1 to 1000 | `10` |
/// | `copyRows` | rows, 1 to 1,000,000,000 | `50` (see ``copyRows``) |
/// | `history` | `on`, `off` | `on` (see ``HistoryOptions``) |
/// | `historyKeepDays` | days, 1 or more | keep all |
/// | `historyKeepTransactions` | transactions, 1 or more | keep all |
/// | `sslmode`, `connect_timeout`, `host`, ... | libpq's connection settings (``PostgresConnectionSettings``) | libpq's |
///
/// Any other name, or a value outside these, is ``StrataError/Code/invalidOption``.
struct PostgresStoreOptions: Sendable {
    var isReadOnly: Bool
    var createsIfMissing: Bool
    /// The PostgreSQL schema holding the store.
    var schema = "public"
    /// The most connections the store opens at once.
    var poolSize = 10
    /// From how many new rows of one entity a save loads them with binary `COPY` rather than
    /// one `INSERT` of arrays (``PostgresConnection/copyIn(_:rows:_:)``): `COPY` takes one more
    /// round trip but inserts many rows several times faster.
    var copyRows = 50
    /// The identifier a store created by this open gets.
    var identifierForNewStore: String?
    /// Whether saves record history, and how much of it is kept.
    var history = HistoryOptions()
    /// How to reach the server.
    var connection: PostgresConnectionSettings

    static let schemaOption = "schema"
    static let poolOption = "pool"
    static let copyRowsOption = "copyRows"

    /// The options the PostgreSQL backend declares (``PostgresBackend/supportedOptions``).
    static let declared: [StoreBackendOption] =
        [
            StoreBackendOption(
                name: schemaOption, summary: "The PostgreSQL schema that holds the store's tables (public by default).",
                expected: "a schema name of 1 to 63 bytes, without NUL",
                isValid: {
                    !$0.isEmpty && $0.utf8.count <= PostgresNaming.maximumIdentifierBytes && !$0.utf8.contains(0)
                }
            ),
            .integer(
                poolOption, in: 1...1000, unit: "connections",
                summary: "The most connections to the server the store opens at once."),
            .integer(
                copyRowsOption, in: 1...1_000_000_000, unit: "rows",
                summary: "From how many new objects of one entity a save loads them with binary COPY (50)."),
        ] + HistoryOptions.supportedOptions
        + PostgresConnectionSettings.connectionOptionNames.sorted().map { name in
            StoreBackendOption(
                name: name, summary: "libpq's connection setting '\(name)'.", expected: "a value libpq accepts",
                isValid: { _ in true })
        }

    /// Parses `options` and the query options of `url`.
    ///
    /// - Throws: ``StrataError/Code/invalidOption`` for unknown names and unusable values,
    ///   ``StrataError/Code/invalidStoreURL`` for a URL that names no database.
    init(_ options: StoreOptions, url: StoreURL) throws {
        let options = try options.addingQueryOptions(of: url)
        try PostgresBackend().checkOptions(options.options, for: url)
        isReadOnly = options.isReadOnly
        createsIfMissing = options.createsIfMissing
        identifierForNewStore = options.identifierForNewStore
        history = try HistoryOptions(options)
        if let value = options[Self.schemaOption] { schema = value }
        if let value = options[Self.poolOption], let size = Int(value) { poolSize = size }
        if let value = options[Self.copyRowsOption], let rows = Int(value) { copyRows = rows }
        var connectionURL = url
        connectionURL.query = options.options
        connection = try PostgresConnectionSettings(connectionURL)
    }
}
