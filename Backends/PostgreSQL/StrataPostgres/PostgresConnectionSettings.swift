import Foundation
import StrataCore

/// How to reach a PostgreSQL server, read from a store URL: the keywords libpq connects with.
///
/// `postgres://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=require&connect_timeout=5`. What the URL
/// leaves out, libpq takes from its environment (`PGHOST`, `PGPORT`, `PGUSER`, `PGPASSWORD`,
/// `PGPASSFILE`, `PGSSLMODE`, ...) and its defaults, as `psql` does. A `host` option names a unix
/// socket directory (`postgres:///app?host=/var/run/postgresql`). The password is never part of
/// ``description`` or of an error.
struct PostgresConnectionSettings: Sendable, Hashable, CustomStringConvertible {
    /// libpq's connection keywords and values, in order, password included.
    let keywords: [(String, String)]
    /// The server and database, for messages: `user@host:port/database`, no password.
    let endpoint: String
    /// How long a connection attempt may take, in seconds (`connect_timeout`, 10 by default).
    let connectTimeoutSeconds: Int

    /// The URL's query options that are connection settings (all others belong to the store).
    static let connectionOptionNames: Set<String> = [
        "host", "hostaddr", "sslmode", "sslrootcert", "sslcert", "sslkey", "sslcrl", "sslpassword",
        "connect_timeout", "application_name", "target_session_attrs", "options",
    ]

    static let sslModes: Set<String> = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"]

    /// The settings of `url`.
    ///
    /// - Throws: `invalidStoreURL` when the URL names no database; `invalidOption` for an
    ///   `sslmode` libpq does not know or a `connect_timeout` that is not a positive number.
    init(_ url: StoreURL) throws {
        var database = url.location
        while database.hasPrefix("/") { database.removeFirst() }
        guard !database.isEmpty, !database.contains("/") else {
            throw StrataError(
                .invalidStoreURL,
                "a PostgreSQL store URL names one database after the host: postgres://HOST/DATABASE, not '\(url)'",
                location: ["url": url.description])
        }
        var keywords: [(String, String)] = [("dbname", database)]
        if let host = url.host, !host.isEmpty { keywords.append(("host", host)) }
        if let port = url.port { keywords.append(("port", String(port))) }
        if let user = url.user { keywords.append(("user", user)) }
        if let password = url.password { keywords.append(("password", password)) }
        var timeout = 10
        for (name, value) in url.query.sorted(by: { $0.key < $1.key })
        where Self.connectionOptionNames.contains(name) {
            switch name {
            case "sslmode":
                guard Self.sslModes.contains(value) else {
                    throw StrataError(
                        .invalidOption,
                        "sslmode '\(value)' is not one of \(Self.sslModes.sorted().joined(separator: ", "))",
                        location: ["option": name, "value": value])
                }
            case "connect_timeout":
                guard let seconds = Int(value), seconds > 0 else {
                    throw StrataError(
                        .invalidOption, "connect_timeout '\(value)' is not a positive number of seconds",
                        location: ["option": name, "value": value])
                }
                timeout = seconds
                continue
            default: break
            }
            if name == "host" { keywords.removeAll { $0.0 == "host" } }
            keywords.append((name, value))
        }
        keywords.append(("connect_timeout", String(timeout)))
        if !keywords.contains(where: { $0.0 == "application_name" }) { keywords.append(("application_name", "strata")) }
        self.keywords = keywords
        self.connectTimeoutSeconds = timeout
        var endpoint = ""
        if let user = url.user { endpoint += user + "@" }
        endpoint += keywords.first { $0.0 == "host" }?.1 ?? "localhost"
        if let port = url.port { endpoint += ":\(port)" }
        self.endpoint = endpoint + "/" + database
    }

    /// The database's name.
    var database: String { keywords.first { $0.0 == "dbname" }?.1 ?? "" }

    var description: String { endpoint }

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.keywords.elementsEqual(rhs.keywords) { $0 == $1 }
    }

    func hash(into hasher: inout Hasher) {
        for (key, value) in keywords {
            hasher.combine(key)
            hasher.combine(value)
        }
    }
}
