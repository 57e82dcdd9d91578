import Foundation
import StrataCore

extension PostgresBackend {
    /// Whether `url` and `other` name one PostgreSQL store, however each is spelled: `localhost`
    /// or `127.0.0.1` or a unix socket, the default port written out or not, `postgres://` or
    /// `postgresql://`, other options, `schema=public` written out or left out. Both servers are
    /// asked what identifies the store there (``PostgresStoreIdentity``): the cluster's system
    /// identifier, the database's OID and the schema. A store of another backend is never this
    /// one.
    ///
    /// - Throws: the connection errors of either URL (`serverUnavailable`,
    ///   `authenticationFailed`, `storeNotFound` for a missing database): a caller about to
    ///   delete a store must not take "could not tell" for "another store".
    public func overlaps(_ url: StoreURL, with other: StoreURL, of otherBackend: any StoreBackend) throws -> Bool {
        guard otherBackend is PostgresBackend else { return false }
        func identity(_ url: StoreURL) throws -> PostgresStoreIdentity {
            try Self.checkScheme(of: url)
            let options = try PostgresStoreOptions(StoreOptions(), url: url)
            let connection = try PostgresConnection(settings: options.connection)
            defer { connection.close() }
            return try PostgresStoreIdentity.read(connection, schema: PostgresNaming.identifier(options.schema))
        }
        return try identity(url).isSameStore(as: identity(other))
    }
}
