import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataPostgres

/// The libpq layer against a real server: binding and reading every type in binary, prepared
/// statements reused, typed errors for a wrong password, a missing database and no server.
@Suite(.enabled(if: PostgresTestServer.shouldRun, Comment(rawValue: PostgresTestServer.skipReason)))
struct PostgresConnectionTests {
    func connect(_ change: (inout StoreURL) -> Void = { _ in }) throws -> PostgresConnection {
        var url = try PostgresTestServer.requireURL()
        change(&url)
        return try PostgresConnection(settings: PostgresConnectionSettings(url))
    }

    @Test func everyBoundTypeComesBackUnchanged() throws {
        let connection = try connect()
        defer { connection.close() }
        let date = Date(timeIntervalSince1970: 1_700_000_000.123456)
        let uuid = UUID()
        let result = try connection.query(
            "SELECT $1::int8, $2::float8, $3::bool, $4::text, $5::bytea, $6::uuid, $7::timestamptz, $8::numeric, $9::float4, $10::int8",
            [
                .int64(-42), .double(.pi), .bool(true), .text("Crème ' brûlée; DROP TABLE x"),
                .bytea(Data([0, 1, 255])), .uuid(uuid), .timestamp(date), .numeric(Decimal(string: "-12345.06789")!),
                .float(1.5), .null(PostgresType.int8),
            ])
        #expect(result.rowCount == 1)
        #expect(result.int64(0, 0) == -42)
        #expect(result.double(0, 1) == .pi)
        #expect(result.bool(0, 2))
        #expect(result.string(0, 3) == "Crème ' brûlée; DROP TABLE x")
        #expect(result.data(0, 4) == Data([0, 1, 255]))
        #expect(result.uuid(0, 5) == uuid)
        #expect(abs(result.date(0, 6).timeIntervalSince(date)) < 0.000_001)
        #expect(result.decimal(0, 7) == Decimal(string: "-12345.06789")!)
        #expect(result.float(0, 8) == 1.5)
        #expect(result.isNull(0, 9))
    }

    @Test func numericsDecodeAtEveryWeightAndScale() throws {
        let connection = try connect()
        defer { connection.close() }
        for text in ["0", "1", "-1", "10000", "0.0001", "123456789.987654321", "-0.5", "99999999999999999999", "0.10"] {
            let result = try connection.query("SELECT $1::numeric", [.numeric(Decimal(string: text)!)])
            #expect(result.decimal(0, 0) == Decimal(string: text)!, "\(text) came back as \(result.numericText(0, 0))")
        }
    }

    @Test func arraysBindForAny() throws {
        let connection = try connect()
        defer { connection.close() }
        let result = try connection.query(
            "SELECT x FROM generate_series(1, 10) AS x WHERE x = ANY($1) ORDER BY x", [.int64Array([2, 5, 11])])
        #expect((0..<result.rowCount).map { result.int64($0, 0) } == [2, 5])
        let texts = try connection.query("SELECT 'b' = ANY($1), 'z' = ANY($1)", [.textArray(["a", "b"])])
        #expect(texts.bool(0, 0) && !texts.bool(0, 1))
        let empty = try connection.query("SELECT 1 = ANY($1)", [.int64Array([])])
        #expect(!empty.bool(0, 0))
    }

    @Test func aWrongPasswordIsAuthenticationFailedAndNeverPrinted() throws {
        let error = #expect(throws: StrataError.self) {
            _ = try connect { $0.password = "not-the-password-x9" }
        }
        #expect(error?.code == .authenticationFailed)
        #expect(error.map { !"\($0)".contains("not-the-password-x9") } ?? false)
    }

    @Test func aMissingDatabaseIsStoreNotFound() throws {
        let error = #expect(throws: StrataError.self) {
            _ = try connect { $0.location = "/no_such_database_strata" }
        }
        #expect(error?.code == .storeNotFound)
    }

    @Test func noServerIsServerUnavailableWithinTheTimeout() throws {
        let started = Date()
        let error = #expect(throws: StrataError.self) {
            _ = try connect {
                $0.port = 1
                $0.query["connect_timeout"] = "2"
            }
        }
        #expect(error?.code == .serverUnavailable)
        #expect(Date().timeIntervalSince(started) < 10)
    }

    @Test func aBadSSLModeIsInvalidOption() throws {
        var url = try PostgresTestServer.requireURL()
        url.query["sslmode"] = "sometimes"
        #expect(throws: StrataError.self) { _ = try PostgresConnectionSettings(url) }
    }

    @Test func poolRetriesASerializationFailureThenSucceeds() throws {
        let url = try PostgresTestServer.requireURL()
        let pool = PostgresConnectionPool(settings: try PostgresConnectionSettings(url), maximumConnections: 2)
        defer { pool.close() }
        var attempts = 0
        let value = try pool.inTransaction { connection -> Int64 in
            attempts += 1
            if attempts < 3 {
                // What PostgreSQL raises when a serializable transaction must give way.
                try connection.execute("DO $$ BEGIN RAISE EXCEPTION USING ERRCODE = '40001'; END $$")
            }
            return try connection.query("SELECT 7::int8").int64(0, 0)
        }
        #expect(value == 7)
        #expect(attempts == 3)
        #expect(pool.retries.withLock { $0 } == 2)
    }

    @Test func poolGivesUpOnEndlessSerializationFailuresWithStoreBusy() throws {
        let url = try PostgresTestServer.requireURL()
        let pool = PostgresConnectionPool(settings: try PostgresConnectionSettings(url), maximumConnections: 1)
        defer { pool.close() }
        let error = #expect(throws: StrataError.self) {
            try pool.inTransaction { connection in
                try connection.execute("DO $$ BEGIN RAISE EXCEPTION USING ERRCODE = '40P01'; END $$")
            }
        }
        #expect(error?.code == .storeBusy)
        #expect(pool.retries.withLock { $0 } == PostgresConnectionPool.transactionAttempts - 1)
    }

    @Test func poolReconnectsAfterTheServerDroppedAnIdleConnection() throws {
        let url = try PostgresTestServer.requireURL()
        let pool = PostgresConnectionPool(settings: try PostgresConnectionSettings(url), maximumConnections: 2)
        defer { pool.close() }
        let pid = try pool.withConnection { Int64($0.backendPID) }
        let killer = try connect()
        defer { killer.close() }
        try killer.query("SELECT pg_terminate_backend($1::int4)", [.int32(Int32(pid))])
        // The idle connection is dead now; the pool notices and runs the statement on a new one.
        let again = try pool.withConnection { try $0.query("SELECT pg_backend_pid()").int64(0, 0) }
        #expect(again != pid)
        #expect(pool.connectionsOpened == 2)
    }

    @Test func aPipelineAnswersInOrderInOneRoundTripAndStopsAtTheFirstFailure() throws {
        let connection = try connect()
        defer { connection.close() }
        let (statements, roundTrips) = (connection.statementsSinceCheckout, connection.roundTripsSinceCheckout)
        let results = try connection.pipeline([
            PostgresStatement(sql: "SELECT $1::int8", parameters: [.int64(1)]),
            PostgresStatement(sql: "SELECT x FROM generate_series(1, $1::int8) AS x", parameters: [.int64(300)]),
        ])
        #expect(results.map(\.rowCount) == [1, 300])
        #expect(results[0].int64(0, 0) == 1)
        #expect(connection.statementsSinceCheckout - statements == 2)
        #expect(connection.roundTripsSinceCheckout - roundTrips == 1)
        // Each statement is prepared before the first runs: a table they use must exist before.
        try connection.execute("CREATE TEMP TABLE pipelined (x int8)")
        try connection.execute("BEGIN")
        let error = #expect(throws: StrataError.self) {
            try connection.pipeline([
                PostgresStatement(sql: "INSERT INTO pipelined VALUES ($1)", parameters: [.int64(1)]),
                PostgresStatement(sql: "SELECT 1 / $1::int8", parameters: [.int64(0)]),
                PostgresStatement(sql: "INSERT INTO pipelined VALUES ($1)", parameters: [.int64(2)]),
                PostgresStatement(sql: "COMMIT"),
            ])
        }
        #expect(error?.location["sqlstate"] == "22012")
        // The statements after the failure did not run: the transaction is failed, not committed.
        #expect(connection.isInTransaction)
        connection.rollbackQuietly()
        #expect(try connection.query("SELECT count(*) FROM pipelined").int64(0, 0) == 0)
        #expect(try connection.pipeline([PostgresStatement(sql: "SELECT 2::int8")])[0].int64(0, 0) == 2)
    }

    @Test func aTransactionSendsItsBeginWithItsFirstStatementAndMayCommitInItsLast() throws {
        let url = try PostgresTestServer.requireURL()
        let pool = PostgresConnectionPool(settings: try PostgresConnectionSettings(url), maximumConnections: 1)
        defer { pool.close() }
        let value = try pool.inTransaction { connection in
            try connection.pipeline([
                PostgresStatement(sql: "SELECT 7::int8"), PostgresStatement(sql: "COMMIT"),
            ])[0].int64(0, 0)
        }
        #expect(value == 7)
        // BEGIN, SELECT and COMMIT in one round trip; nothing committed after it.
        #expect(pool.statementCounts.statements == 3)
        #expect(pool.statementCounts.roundTrips == 1)
        let isolation = try pool.inTransaction("BEGIN ISOLATION LEVEL REPEATABLE READ") { connection in
            try connection.query("SELECT current_setting('transaction_isolation')").string(0, 0)
        }
        #expect(isolation == "repeatable read", "the SELECT ran in the transaction the BEGIN opened")
        // BEGIN and SELECT, then COMMIT.
        #expect(pool.statementCounts.statements == 6)
        #expect(pool.statementCounts.roundTrips == 3)
        try pool.inTransaction { _ in }
        #expect(pool.statementCounts.statements == 6, "an empty transaction sends nothing")
    }

    @Test func poolRetriesATransactionWhoseFirstRoundTripFoundTheConnectionDropped() throws {
        let url = try PostgresTestServer.requireURL()
        let pool = PostgresConnectionPool(settings: try PostgresConnectionSettings(url), maximumConnections: 1)
        defer { pool.close() }
        let pid = try pool.withConnection { Int64($0.backendPID) }
        let killer = try connect()
        defer { killer.close() }
        try killer.query("SELECT pg_terminate_backend($1::int4)", [.int32(Int32(pid))])
        usleep(100_000)
        let again = try pool.inTransaction { try $0.query("SELECT pg_backend_pid()").int64(0, 0) }
        #expect(again != pid)
    }
}
