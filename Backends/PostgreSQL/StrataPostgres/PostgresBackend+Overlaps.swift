import Foundation
import StrataCore

extension PostgresBackend {
    /// Whether `url` and `other` name one PostgreSQL store, however each is spelled.
    ///
    /// Two schemas, or two databases, are two stores, which the URLs alone tell (the schema is
    /// `public` when not given). The same server written the same way (host, address and port),
    /// database and schema is one store, whatever the scheme (`postgres://`, `postgresql://`),
    /// user or other options. Otherwise the URLs may still reach one server (`localhost` and
    /// `127.0.0.1`, a unix socket, the default port written out or not): both servers are then
    /// asked what identifies the store there (``PostgresStoreIdentity``), the cluster's system
    /// identifier, the database's OID and the schema. A store of another backend is never this one.
    ///
    /// - Throws: the connection errors of either URL when the servers must be asked
    ///   (`serverUnavailable`, `authenticationFailed`, `storeNotFound` for a missing database): a
    ///   caller about to delete a store must not take "could not tell" for "another store".
    public func overlaps(_ url: StoreURL, with other: StoreURL, of otherBackend: any StoreBackend) throws -> Bool {
        guard otherBackend is PostgresBackend else { return false }
        try Self.checkScheme(of: url)
        try Self.checkScheme(of: other)
        let mine = try PostgresStoreOptions(StoreOptions(), url: url)
        let theirs = try PostgresStoreOptions(StoreOptions(), url: other)
        let schemas = (PostgresNaming.identifier(mine.schema), PostgresNaming.identifier(theirs.schema))
        guard schemas.0 == schemas.1, mine.connection.database == theirs.connection.database else { return false }
        func place(_ options: PostgresStoreOptions) -> [String?] {
            let keywords = Dictionary(options.connection.keywords, uniquingKeysWith: { $1 })
            return [keywords["host"], keywords["hostaddr"], keywords["port"]]
        }
        if place(mine) == place(theirs) { return true }
        func identity(_ options: PostgresStoreOptions, schema: String) throws -> PostgresStoreIdentity {
            let connection = try PostgresConnection(settings: options.connection)
            defer { connection.close() }
            return try PostgresStoreIdentity.read(connection, schema: schema)
        }
        return try identity(mine, schema: schemas.0).isSameStore(as: identity(theirs, schema: schemas.1))
    }
}
