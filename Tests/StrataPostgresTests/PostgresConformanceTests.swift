import Foundation
import StrataConformance
import StrataCore
import StrataPostgres
import StrataTestSupport
import Testing

/// Every check gets a PostgreSQL schema of its own on the test server, so checks run in parallel.
let postgresSubject = ConformanceSubject(backend: PostgresBackend()) { try PostgresTestServer.freshStoreURL() }

@Suite(.enabled(if: PostgresTestServer.shouldRun, Comment(rawValue: PostgresTestServer.skipReason)))
struct PostgresConformanceTests {
    @Test(arguments: ConformanceKit.checks)
    func postgresStoreConforms(_ check: ConformanceCheck) throws {
        try check.run(on: postgresSubject)
    }
}
