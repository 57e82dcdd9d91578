/// One statement of a ``PostgresConnection/pipeline(_:)``: SQL text with `$n` placeholders and
/// the values bound to them, in order.
struct PostgresStatement {
    var sql: String
    var parameters: [PostgresParameter] = []
}
