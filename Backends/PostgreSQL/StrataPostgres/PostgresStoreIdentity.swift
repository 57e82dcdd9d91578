import Foundation
import StrataCore

/// What names one PostgreSQL store whatever the spelling of its URL (`localhost` or
/// `127.0.0.1`, the default port written out or not, `postgres://` or `postgresql://`, a unix
/// socket, the options in another order): the cluster's system identifier, the database's OID
/// and the schema, as the server reports them.
struct PostgresStoreIdentity: Sendable, Hashable {
    /// `pg_control_system().system_identifier`: unique per cluster (shared by its replicas), or
    /// `nil` when the server does not let this user read it.
    var systemIdentifier: Int64?
    /// The database's OID in `pg_database`.
    var databaseOID: Int64
    /// The schema the store occupies, as PostgreSQL names it (shortened to 63 bytes).
    var schema: String
    /// The store's identifier (its `_strata_metadata`), `nil` when there is no store yet.
    var storeIdentifier: String?

    /// Reads the identity of the store `schema` of the database `connection` is connected to.
    static func read(_ connection: PostgresConnection, schema: String) throws -> PostgresStoreIdentity {
        let database = try connection.queryOnce("SELECT oid::int8 FROM pg_database WHERE datname = current_database()")
        var identity = PostgresStoreIdentity(
            systemIdentifier: nil, databaseOID: database.rowCount > 0 ? database.int64(0, 0) : -1, schema: schema)
        if let system = try? connection.queryOnce("SELECT system_identifier FROM pg_control_system()"),
            system.rowCount > 0, !system.isNull(0, 0)
        {
            identity.systemIdentifier = system.int64(0, 0)
        }
        let table = try connection.queryOnce(
            "SELECT to_regclass(quote_ident($1) || '.' || quote_ident($2)) IS NOT NULL",
            [.text(schema), .text(PostgresSchema.metadataTable)])
        if table.rowCount > 0, table.bool(0, 0) {
            let metadata = try connection.queryOnce(
                "SELECT value FROM \(pq(schema)).\(pq(PostgresSchema.metadataTable)) WHERE key = 'storeIdentifier'")
            if metadata.rowCount > 0, !metadata.isNull(0, 0) { identity.storeIdentifier = metadata.string(0, 0) }
        }
        return identity
    }

    /// Whether `self` and `other` name one store. When the server hides its system identifier,
    /// the stores' identifiers decide; when neither tells, the answer is yes: a caller about to
    /// delete one of them must not guess.
    func isSameStore(as other: PostgresStoreIdentity) -> Bool {
        guard schema == other.schema, databaseOID == other.databaseOID else { return false }
        if let mine = systemIdentifier, let theirs = other.systemIdentifier { return mine == theirs }
        if let mine = storeIdentifier, let theirs = other.storeIdentifier { return mine == theirs }
        return true
    }
}
