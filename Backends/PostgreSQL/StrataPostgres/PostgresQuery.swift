import StrataCore

/// A generated query: SQL text with `$n` placeholders (identifiers quoted, no value spliced in)
/// and the values bound to them, in order.
struct PostgresQuery {
    /// What the statement's rows are.
    enum Answer {
        /// The request's answer itself: its rows are the result (snapshots, IDs, a count or
        /// dictionaries, as the request asks).
        case exact
        /// The candidates: every object whose predicate is true or undecided in SQL, as snapshots,
        /// in no particular order. The in-memory evaluator decides, sorts and pages them.
        case candidates
    }

    var sql: String
    var parameters: [PostgresParameter]
    var answer: Answer
    /// For dictionary fetches answered exactly: each selected key path and its attribute type.
    var dictionaryColumns: [(key: String, type: AttributeType)] = []
}
