import Foundation
import StrataCore

/// The PostgreSQL server the tests run against: `STRATA_TEST_POSTGRES_URL`
/// (`scripts/postgres-test-server start` prints one; `make test` sets it). Without it the
/// PostgreSQL tests are skipped and say so, unless `STRATA_REQUIRE_POSTGRES` is set (CI sets it):
/// then they run and fail.
///
/// ```swift
/// @Test(.enabled(if: PostgresTestServer.shouldRun, Comment(rawValue: PostgresTestServer.skipReason)))
/// func savesOnPostgres() throws {
///     let url = try PostgresTestServer.freshStoreURL()
/// }
/// ```
public enum PostgresTestServer {
    /// The server's URL (a database), when one is set.
    public static let url: StoreURL? = {
        guard let text = ProcessInfo.processInfo.environment["STRATA_TEST_POSTGRES_URL"], !text.isEmpty else {
            return nil
        }
        return StoreURL(text)
    }()

    /// Whether a missing server is a failure rather than a reason to skip.
    public static let isRequired: Bool = {
        let value = ProcessInfo.processInfo.environment["STRATA_REQUIRE_POSTGRES"] ?? ""
        return !value.isEmpty && value != "0"
    }()

    /// Whether the PostgreSQL tests run: a server is set, or one is required (and its absence fails them).
    public static var shouldRun: Bool { url != nil || isRequired }

    /// What a skipped test says.
    public static let skipReason =
        "no PostgreSQL server: set STRATA_TEST_POSTGRES_URL (scripts/postgres-test-server start prints one)"

    /// The server's URL.
    ///
    /// - Throws: when none is set (the tests run only then when a server is required).
    public static func requireURL() throws -> StoreURL {
        guard let url else {
            throw StrataError(
                .serverUnavailable,
                "STRATA_REQUIRE_POSTGRES is set but STRATA_TEST_POSTGRES_URL is not: start a server with scripts/postgres-test-server start"
            )
        }
        return url
    }

    /// A store URL of its own on the server: a new PostgreSQL schema (`schema=` option), so tests
    /// run in parallel without seeing each other's tables. `query` adds store options.
    public static func freshStoreURL(_ query: [String: String] = [:]) throws -> StoreURL {
        var url = try requireURL()
        url.query["schema"] = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(20)
        for (key, value) in query { url.query[key] = value }
        return url
    }
}
