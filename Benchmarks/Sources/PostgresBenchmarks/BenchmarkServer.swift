import CStrataPostgres
import Foundation

/// The PostgreSQL server the benchmarks run against: `STRATA_BENCH_POSTGRES_URL`, else the test
/// cluster's `STRATA_TEST_POSTGRES_URL`, else the URL `scripts/postgres-test-server` prints. Each
/// side of each run gets a PostgreSQL schema of its own, dropped after the run.
struct BenchmarkServer: Sendable {
    /// The server URL without a query (`postgres://user:password@host:port/database`).
    let base: String
    /// The URL's query options other than Strata's own (`sslmode=...`), kept for every client.
    let connectionOptions: [String]

    init() {
        let environment = ProcessInfo.processInfo.environment
        let url =
            environment["STRATA_BENCH_POSTGRES_URL"] ?? environment["STRATA_TEST_POSTGRES_URL"]
            ?? "postgres://strata:strata@127.0.0.1:54329/strata"
        let parts = url.split(separator: "?", maxSplits: 1).map(String.init)
        base = parts[0]
        connectionOptions =
            parts.count > 1
            ? parts[1].split(separator: "&").map(String.init).filter {
                !$0.hasPrefix("schema=") && !$0.hasPrefix("pool=")
            } : []
    }

    /// The URL libpq connects with (the server's own options only).
    var libpqURL: String { connectionOptions.isEmpty ? base : base + "?" + connectionOptions.joined(separator: "&") }

    /// The server's address without the password, for the printed header.
    var description: String {
        guard let at = base.lastIndex(of: "@"), let scheme = base.range(of: "://") else { return base }
        return String(base[..<scheme.upperBound]) + "..." + String(base[at...])
    }

    /// A Strata store URL on `schema`, opening at most `pool` connections when given, with the
    /// store options `storeOptions` (`history=off`; they reach the store, never libpq).
    func storeURL(schema: String, pool: Int? = nil, storeOptions: [String] = []) -> String {
        var options = connectionOptions + ["schema=\(schema)"] + storeOptions
        if let pool { options.append("pool=\(pool)") }
        return base + "?" + options.joined(separator: "&")
    }

    /// A schema name unique to this process and `suffix`.
    func schemaName(_ suffix: String) -> String { "bench_\(getpid())_\(suffix)" }

    /// Drops `schema` and everything in it.
    func dropSchema(_ schema: String) {
        guard let connection = PQconnectdb(libpqURL), PQstatus(connection) == CONNECTION_OK else {
            fatalError("cannot connect to \(description) to drop schema \(schema)")
        }
        defer { PQfinish(connection) }
        PQclear(PQexec(connection, "SET client_min_messages = warning"))
        let result = PQexec(connection, "DROP SCHEMA IF EXISTS \"\(schema)\" CASCADE")
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else {
            fatalError("dropping schema \(schema): \(String(cString: PQerrorMessage(connection)))")
        }
    }

    /// Makes `schema` (empty).
    func createSchema(_ schema: String) {
        dropSchema(schema)
        guard let connection = PQconnectdb(libpqURL), PQstatus(connection) == CONNECTION_OK else {
            fatalError("cannot connect to \(description) to create schema \(schema)")
        }
        defer { PQfinish(connection) }
        let result = PQexec(connection, "CREATE SCHEMA \"\(schema)\"")
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else {
            fatalError("creating schema \(schema): \(String(cString: PQerrorMessage(connection)))")
        }
    }
}

/// The 1-, 5- and 15-minute load averages.
func loadAverage() -> String {
    var loads = [Double](repeating: 0, count: 3)
    _ = getloadavg(&loads, 3)
    return loads.map { String(format: "%.2f", $0) }.joined(separator: ", ")
}

/// `--name value` from the command line.
func option(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: "--\(name)"), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}
