extension HistoryOptions {
    /// The history options as a backend declares them in ``StoreBackend/supportedOptions``, so
    /// configuration files, `STRATA_STORE` and ``StoreBackend/checkOptions(_:for:)`` accept them
    /// for every backend that records history.
    public static let declared: [StoreBackendOption] = [
        .choice(
            enabledOption, ["on", "off", "true", "false", "yes", "no", "1", "0"], ignoringCase: true,
            summary: "Whether saves append to the store's persistent history (default on)."),
        .integer(
            keepDaysOption, in: 1...Int.max, unit: "days",
            summary: "Transactions older than this are pruned as the store saves (default: kept)."),
        .integer(
            keepTransactionsOption, in: 1...Int.max, unit: "transactions",
            summary: "Only the newest this many transactions are kept (default: all)."),
    ]
}
