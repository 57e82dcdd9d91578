import CStrataPostgres
import Foundation
import StrataCore

/// One libpq connection: statements run synchronously on the calling thread, with their values
/// bound in binary (``PostgresParameter``) and their prepared forms kept per SQL text and parameter
/// types. Not thread-safe: one owner at a time (``PostgresConnectionPool`` hands it out).
final class PostgresConnection: @unchecked Sendable {
    let handle: OpaquePointer
    let settings: PostgresConnectionSettings
    /// Prepared statement names by SQL text and parameter types.
    private var prepared: [PreparedKey: String] = [:]
    private var nextStatement = 0
    static let statementCacheLimit = 512
    /// How many statements ran since the pool last handed the connection out (a failure on the
    /// first one of a reused connection is a connection the server dropped while idle).
    var statementsSinceCheckout = 0
    /// How many of those statements were a `COPY` (``copyIn(_:rows:_:)``).
    var copiesSinceCheckout = 0
    /// How many times since the checkout the connection sent statements and waited for their
    /// answer: one per statement, one per ``pipeline(_:)`` whatever its length, two per `COPY`
    /// (a statement's first preparation is not counted).
    var roundTripsSinceCheckout = 0
    /// The `BEGIN` of a transaction not yet sent: it goes with the next statement, in the same
    /// round trip (``begin(_:)``).
    private(set) var pendingBegin: String?

    private struct PreparedKey: Hashable {
        let sql: String
        let types: [UInt32]
    }

    /// Connects, within the settings' `connect_timeout`.
    ///
    /// - Throws: `authenticationFailed`, `storeNotFound` (no such database) or
    ///   `serverUnavailable` (no server answered), saying which server.
    init(settings: PostgresConnectionSettings) throws {
        let keywords = settings.keywords.map { strdup($0.0) } + [nil]
        let values = settings.keywords.map { strdup($0.1) } + [nil]
        defer {
            for pointer in keywords { free(pointer) }
            for pointer in values { free(pointer) }
        }
        let connection = keywords.withUnsafeBufferPointer { k in
            values.withUnsafeBufferPointer { v in
                k.withMemoryRebound(to: UnsafePointer<CChar>?.self) { k in
                    v.withMemoryRebound(to: UnsafePointer<CChar>?.self) { v in
                        PQconnectdbParams(k.baseAddress, v.baseAddress, 0)
                    }
                }
            }
        }
        guard let connection else {
            throw StrataError(.io, "libpq could not allocate a connection", location: ["server": settings.endpoint])
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection))
            PQfinish(connection)
            throw PostgresErrorMapping.connectionError(
                message: message, endpoint: settings.endpoint, timeoutSeconds: settings.connectTimeoutSeconds)
        }
        handle = connection
        self.settings = settings
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        try execute("SET client_encoding = 'UTF8'; SET TIME ZONE 'UTC'; SET client_min_messages = warning")
    }

    func close() {
        PQfinish(handle)
    }

    /// Whether the connection is lost (the server went away or ended the session).
    var isBroken: Bool { PQstatus(handle) != CONNECTION_OK }

    /// The server process serving this connection.
    var backendPID: Int32 { PQbackendPID(handle) }

    /// The server's version number (150018 for 15.18).
    var serverVersion: Int { Int(PQserverVersion(handle)) }

    /// Whether a transaction is open (or failed and awaits a ROLLBACK).
    var isInTransaction: Bool {
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    /// Opens a transaction with `sql` (a `BEGIN`), sent with the next statement in one round trip
    /// rather than on its own; ``endPendingBegin()`` drops it when no statement followed.
    func begin(_ sql: String) {
        assert(pendingBegin == nil, "a transaction is already pending")
        pendingBegin = sql
    }

    /// Drops a ``begin(_:)`` no statement followed; `true` when there was one (no transaction
    /// was opened: there is nothing to commit or roll back).
    func endPendingBegin() -> Bool {
        defer { pendingBegin = nil }
        return pendingBegin != nil
    }

    /// Runs `sql` (one or more statements separated by semicolons, no parameters) with the simple
    /// query protocol: DDL, BEGIN, COMMIT, SET.
    ///
    /// - Throws: the mapped error of the first statement that fails.
    func execute(_ sql: String) throws {
        if let begin = pendingBegin {
            pendingBegin = nil
            statementsSinceCheckout += 1
            return try execute(begin + "; " + sql)
        }
        statementsSinceCheckout += 1
        roundTripsSinceCheckout += 1
        guard PQsendQuery(handle, sql) == 1 else {
            throw PostgresErrorMapping.error(
                result: nil, connection: handle, endpoint: settings.endpoint, action: "sending a statement", sql: sql)
        }
        var failure: StrataError?
        while let result = PQgetResult(handle) {
            let status = PQresultStatus(result)
            if failure == nil, status != PGRES_COMMAND_OK, status != PGRES_TUPLES_OK, status != PGRES_EMPTY_QUERY {
                failure = PostgresErrorMapping.error(
                    result: result, connection: handle, endpoint: settings.endpoint, action: "running a statement",
                    sql: sql)
            }
            PQclear(result)
        }
        if let failure { throw failure }
        if isBroken {
            throw PostgresErrorMapping.error(
                result: nil, connection: handle, endpoint: settings.endpoint, action: "running a statement", sql: sql)
        }
    }

    /// Runs one statement with `$1`... bound to `parameters`, prepared once per SQL text and
    /// parameter types and reused after; the rows come back in binary.
    ///
    /// - Throws: the mapped error (``PostgresErrorMapping``).
    @discardableResult
    func query(_ sql: String, _ parameters: [PostgresParameter] = []) throws -> PostgresResult {
        if pendingBegin != nil { return try pipeline([PostgresStatement(sql: sql, parameters: parameters)])[0] }
        statementsSinceCheckout += 1
        roundTripsSinceCheckout += 1
        let name = try preparedName(sql, types: parameters.map(\.type))
        return try run(sql: sql, parameters) { values, lengths, formats in
            PQexecPrepared(handle, name, Int32(parameters.count), values, lengths, formats, 1)
        }
    }

    /// The name of the prepared form of `sql` with parameters of `types`, preparing it first
    /// (one round trip) when the connection has not yet.
    private func preparedName(_ sql: String, types: [UInt32]) throws -> String {
        let key = PreparedKey(sql: sql, types: types)
        if let known = prepared[key] { return known }
        if prepared.count >= Self.statementCacheLimit {
            try execute("DEALLOCATE ALL")
            prepared.removeAll(keepingCapacity: true)
        }
        nextStatement += 1
        let name = "strata_\(nextStatement)"
        let result = types.withUnsafeBufferPointer { types in
            PQprepare(handle, name, sql, Int32(types.count), types.baseAddress)
        }
        try check(result, PGRES_COMMAND_OK, action: "preparing a statement", sql: sql)
        prepared[key] = name
        return name
    }

    /// Runs `statements` in one round trip (libpq's pipeline mode), each prepared as
    /// ``query(_:_:)`` prepares it (after a pending ``begin(_:)``), and returns their results in
    /// order. The server runs them one
    /// after another, each starting once the one before ended, as if they had been sent one by
    /// one; only the waiting between them goes. When one fails the later ones do not run and its
    /// error is thrown (a transaction it was in is then failed, as after any failed statement).
    ///
    /// Every statement is prepared before the first runs, so the tables they use must exist
    /// before the pipeline. The results are read after the last statement is sent: only the
    /// last one may return many rows.
    ///
    /// - Throws: the mapped error of the first statement that fails (``PostgresErrorMapping``).
    @discardableResult
    func pipeline(_ statements: [PostgresStatement]) throws -> [PostgresResult] {
        try pipeline(statements, whileRunning: {}).results
    }

    /// ``pipeline(_:)``, running `work` in this thread while the server runs `statements`: they
    /// are sent before `work` starts and their results read after it returns, so the client's
    /// work and the server's overlap. When `work` throws, the results are still read (the
    /// connection stays usable) and its error is thrown.
    func pipeline<Work>(_ statements: [PostgresStatement], whileRunning work: () throws -> Work) throws -> (
        results: [PostgresResult], work: Work
    ) {
        if let begin = pendingBegin {
            pendingBegin = nil
            let (results, done) = try pipeline([PostgresStatement(sql: begin)] + statements, whileRunning: work)
            return (Array(results.dropFirst()), done)
        }
        if prepared.count + statements.count > Self.statementCacheLimit {
            // Not in the middle of preparing them: that would drop the ones prepared before.
            try execute("DEALLOCATE ALL")
            prepared.removeAll(keepingCapacity: true)
        }
        let names = try statements.map { statement in
            try preparedName(statement.sql, types: statement.parameters.map(\.type))
        }
        statementsSinceCheckout += statements.count
        roundTripsSinceCheckout += 1
        guard PQenterPipelineMode(handle) == 1 else {
            throw PostgresErrorMapping.error(
                result: nil, connection: handle, endpoint: settings.endpoint, action: "entering pipeline mode")
        }
        var sent = 0
        for (statement, name) in zip(statements, names) {
            let accepted = withBound(statement.parameters) { values, lengths, formats in
                PQsendQueryPrepared(handle, name, Int32(statement.parameters.count), values, lengths, formats, 1)
            }
            guard accepted == 1 else { break }
            sent += 1
        }
        var failure: StrataError?
        if sent < statements.count {
            failure = PostgresErrorMapping.error(
                result: nil, connection: handle, endpoint: settings.endpoint, action: "sending a statement",
                sql: statements[sent].sql)
        }
        var results: [PostgresResult] = []
        var done: Result<Work, any Error>?
        // The sync flushes what was sent: the server runs it while `work` does.
        if PQpipelineSync(handle) == 1 {
            done = Result { try work() }
            for index in 0..<sent {
                // Each statement's results end with a null one.
                while let result = PQgetResult(handle) {
                    let status = PQresultStatus(result)
                    if status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK {
                        results.append(PostgresResult(result))
                        continue
                    }
                    if failure == nil, status != PGRES_PIPELINE_ABORTED {
                        failure = PostgresErrorMapping.error(
                            result: result, connection: handle, endpoint: settings.endpoint,
                            action: "running a statement", sql: statements[index].sql)
                    }
                    PQclear(result)
                }
            }
            // Then the end of the pipeline.
            while let result = PQgetResult(handle) {
                let status = PQresultStatus(result)
                PQclear(result)
                if status == PGRES_PIPELINE_SYNC { break }
            }
        } else if failure == nil {
            failure = PostgresErrorMapping.error(
                result: nil, connection: handle, endpoint: settings.endpoint, action: "sending a pipeline")
        }
        PQexitPipelineMode(handle)
        if let failure { throw failure }
        if isBroken || results.count != statements.count {
            throw PostgresErrorMapping.error(
                result: nil, connection: handle, endpoint: settings.endpoint, action: "running a pipeline",
                sql: statements.last?.sql)
        }
        guard let done else { preconditionFailure("a pipeline that was sent ran its work") }
        return (results, try done.get())
    }

    /// Runs one statement without preparing it (SQL that varies with every call).
    @discardableResult
    func queryOnce(_ sql: String, _ parameters: [PostgresParameter] = []) throws -> PostgresResult {
        if let begin = pendingBegin {
            pendingBegin = nil
            try execute(begin)
        }
        statementsSinceCheckout += 1
        roundTripsSinceCheckout += 1
        let types = parameters.map(\.type)
        return try run(sql: sql, parameters) { values, lengths, formats in
            types.withUnsafeBufferPointer { types in
                PQexecParams(handle, sql, Int32(parameters.count), types.baseAddress, values, lengths, formats, 1)
            }
        }
    }

    private func run(
        sql: String, _ parameters: [PostgresParameter],
        _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> OpaquePointer?
    ) throws -> PostgresResult {
        let result = withBound(parameters, body)
        guard let result else {
            throw PostgresErrorMapping.error(
                result: nil, connection: handle, endpoint: settings.endpoint, action: "running a statement", sql: sql)
        }
        let status = PQresultStatus(result)
        guard status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK else {
            defer { PQclear(result) }
            throw PostgresErrorMapping.error(
                result: result, connection: handle, endpoint: settings.endpoint, action: "running a statement", sql: sql
            )
        }
        return PostgresResult(result)
    }

    /// Calls `body` with libpq's arrays of `parameters`: the values' pointers, their lengths and
    /// formats, valid during the call.
    private func withBound<R>(
        _ parameters: [PostgresParameter],
        _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> R
    ) -> R {
        let lengths = parameters.map { Int32($0.bytes?.count ?? 0) }
        let formats = parameters.map(\.format)
        // One buffer holds every value; the pointers point into it.
        var storage: [UInt8] = []
        storage.reserveCapacity(lengths.reduce(0) { $0 + Int($1) })
        var offsets: [Int?] = []
        offsets.reserveCapacity(parameters.count)
        for parameter in parameters {
            if let bytes = parameter.bytes {
                offsets.append(storage.count)
                storage += bytes
            } else {
                offsets.append(nil)
            }
        }
        return storage.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!)
            let values: [UnsafePointer<CChar>?] = offsets.map { offset in
                offset.map { (base + $0).assumingMemoryBound(to: CChar.self) }
            }
            return values.withUnsafeBufferPointer { values in
                lengths.withUnsafeBufferPointer { lengths in
                    formats.withUnsafeBufferPointer { formats in
                        body(values.baseAddress, lengths.baseAddress, formats.baseAddress)
                    }
                }
            }
        }
    }

    private func check(_ result: OpaquePointer?, _ expected: ExecStatusType, action: String, sql: String) throws {
        defer { if let result { PQclear(result) } }
        guard let result, PQresultStatus(result) == expected else {
            throw PostgresErrorMapping.error(
                result: result, connection: handle, endpoint: settings.endpoint, action: action, sql: sql)
        }
    }

    /// Rolls back an open transaction, ignoring failures (the connection may be gone).
    func rollbackQuietly() {
        pendingBegin = nil
        guard !isBroken, isInTransaction else { return }
        try? execute("ROLLBACK")
    }

    // MARK: Notifications

    /// The channel notifications that arrived, consumed: (channel, payload).
    func drainNotifications() -> [(channel: String, payload: String)] {
        PQconsumeInput(handle)
        var found: [(String, String)] = []
        while let notification = PQnotifies(handle) {
            found.append((String(cString: notification.pointee.relname), String(cString: notification.pointee.extra)))
            PQfreemem(notification)
        }
        return found
    }

    /// Waits up to `timeout` seconds for data from the server (a notification), without
    /// consuming it: `true` when some arrived.
    ///
    /// - Throws: `serverUnavailable` when the connection is lost.
    func waitForInput(timeout: Double) throws -> Bool {
        let socket = PQsocket(handle)
        guard socket >= 0, !isBroken else {
            throw PostgresErrorMapping.error(
                result: nil, connection: handle, endpoint: settings.endpoint, action: "waiting for notifications")
        }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, Int32(max(0, timeout * 1000)))
        if ready > 0 {
            guard PQconsumeInput(handle) == 1 else {
                throw PostgresErrorMapping.error(
                    result: nil, connection: handle, endpoint: settings.endpoint, action: "waiting for notifications")
            }
            return true
        }
        return false
    }
}
