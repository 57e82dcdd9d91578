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

    /// Runs `sql` (one or more statements separated by semicolons, no parameters) with the simple
    /// query protocol: DDL, BEGIN, COMMIT, SET.
    ///
    /// - Throws: the mapped error of the first statement that fails.
    func execute(_ sql: String) throws {
        statementsSinceCheckout += 1
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
        statementsSinceCheckout += 1
        let types = parameters.map(\.type)
        let key = PreparedKey(sql: sql, types: types)
        let name: String
        if let known = prepared[key] {
            name = known
        } else {
            if prepared.count >= Self.statementCacheLimit {
                try execute("DEALLOCATE ALL")
                prepared.removeAll(keepingCapacity: true)
            }
            nextStatement += 1
            name = "strata_\(nextStatement)"
            let result = types.withUnsafeBufferPointer { types in
                PQprepare(handle, name, sql, Int32(parameters.count), types.baseAddress)
            }
            try check(result, PGRES_COMMAND_OK, action: "preparing a statement", sql: sql)
            prepared[key] = name
        }
        return try run(sql: sql, parameters) { values, lengths, formats in
            PQexecPrepared(handle, name, Int32(parameters.count), values, lengths, formats, 1)
        }
    }

    /// Runs one statement without preparing it (SQL that varies with every call).
    @discardableResult
    func queryOnce(_ sql: String, _ parameters: [PostgresParameter] = []) throws -> PostgresResult {
        statementsSinceCheckout += 1
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
        let result = storage.withUnsafeBufferPointer { buffer -> OpaquePointer? in
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

    private func check(_ result: OpaquePointer?, _ expected: ExecStatusType, action: String, sql: String) throws {
        defer { if let result { PQclear(result) } }
        guard let result, PQresultStatus(result) == expected else {
            throw PostgresErrorMapping.error(
                result: result, connection: handle, endpoint: settings.endpoint, action: action, sql: sql)
        }
    }

    /// Rolls back an open transaction, ignoring failures (the connection may be gone).
    func rollbackQuietly() {
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
