import CStrataSQLite
import StrataCore

extension SQLiteSchema {
    /// Compiles (without running) every statement the store runs against its tables, so that a
    /// file whose metadata matches the model but whose schema does not (a damaged
    /// `sqlite_master`, a table or column renamed by hand) is ``StrataError/Code/storeCorrupt``
    /// at open, naming the table and SQLite's complaint, instead of an
    /// ``StrataError/Code/internalInconsistency`` at the first fetch. Costs one `sqlite3_prepare`
    /// per statement (microseconds each); nothing is cached or written.
    func verify(on connection: SQLiteConnection, path: String) throws {
        for table in orderedTables {
            var statements = SQLiteEntityTable.Statement.allCases.map { table.sql($0) }
            statements += table.toManySQL.keys.sorted().compactMap { table.toManySQL[$0] }
            statements += table.toManyBulkSQL.keys.sorted().compactMap { table.toManyBulkSQL[$0] }
            statements += table.positionSQL.keys.sorted().compactMap { table.positionSQL[$0] }
            statements += table.deleteJoinRowsSQL
            for sql in statements {
                var raw: OpaquePointer?
                let code = sqlite3_prepare_v2(connection.handle, sql, -1, &raw, nil)
                sqlite3_finalize(raw)
                guard code == SQLITE_OK else {
                    let message = String(cString: sqlite3_errmsg(connection.handle))
                    let error = SQLiteErrorMapping.error(
                        code: code, message: message, path: path,
                        action: "checking the schema of table \(table.sqlName)", sql: sql)
                    if error.code != .internalInconsistency { throw error }
                    throw StrataError(
                        .storeCorrupt,
                        "'\(path)' has Strata metadata for this model, but its table \(q(table.sqlName)) does not match the model (damaged or edited by hand): \(message)",
                        location: ["path": path, "table": table.sqlName, "sql": sql], underlying: error.underlying)
                }
            }
        }
    }
}
