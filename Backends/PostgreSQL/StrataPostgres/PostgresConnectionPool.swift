import Foundation
import StrataCore

/// The connections a store shares between threads: at most ``maximumConnections`` open at once,
/// idle ones kept for the next caller, broken ones dropped. A caller who finds every connection
/// busy waits up to ``checkoutTimeoutSeconds``, then gets `storeBusy`.
///
/// A connection the server dropped while it sat idle (a restarted server) fails on its first
/// statement; the pool then drops every idle connection and runs the body once more on a new one,
/// so a store keeps working once its server is back, without being reopened.
final class PostgresConnectionPool: Sendable {
    let settings: PostgresConnectionSettings
    let maximumConnections: Int
    let checkoutTimeoutSeconds: Double
    private let slots: DispatchSemaphore
    private let state = Locked(State())
    /// Transactions that ended in a serialization failure or deadlock and ran again.
    let retries = Locked(0)
    private let counts = Locked(PostgresStatementCounts())

    private struct State {
        var idle: [PostgresConnection] = []
        var isClosed = false
        var opened = 0
    }

    /// How many times a transaction runs again after a serialization failure or deadlock.
    static let transactionAttempts = 5

    init(settings: PostgresConnectionSettings, maximumConnections: Int, checkoutTimeoutSeconds: Double = 30) {
        self.settings = settings
        self.maximumConnections = max(1, maximumConnections)
        self.checkoutTimeoutSeconds = checkoutTimeoutSeconds
        slots = DispatchSemaphore(value: self.maximumConnections)
    }

    deinit { close() }

    /// How many connections the pool opened in all (a statistic the tests read).
    var connectionsOpened: Int { state.withLock { $0.opened } }

    /// How many statements the pool's callers ran, in all (a statistic the tests read).
    var statementCounts: PostgresStatementCounts { counts.withLock { $0 } }

    var closedError: StrataError {
        StrataError(
            .storeClosed, "the PostgreSQL store at \(settings.endpoint) is closed",
            location: ["server": settings.endpoint])
    }

    /// Runs `body` with a connection of its own.
    ///
    /// - Throws: `storeClosed`, `storeBusy` (no connection free in time), the connection's
    ///   errors, or what `body` throws.
    func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        guard slots.wait(timeout: .now() + checkoutTimeoutSeconds) == .success else {
            throw StrataError(
                .storeBusy,
                "all \(maximumConnections) connections to \(settings.endpoint) stayed in use for \(Int(checkoutTimeoutSeconds)) s",
                location: ["server": settings.endpoint, "pool": String(maximumConnections)])
        }
        defer { slots.signal() }
        let (connection, reused) = try checkOut()
        do {
            let result = try body(connection)
            checkIn(connection)
            return result
        } catch let error as StrataError
            where reused && error.code == .serverUnavailable && connection.roundTripsSinceCheckout <= 1
        {
            connection.close()
            dropIdle()
            let (fresh, _) = try checkOut(forceNew: true)
            do {
                let result = try body(fresh)
                checkIn(fresh)
                return result
            } catch {
                checkIn(fresh)
                throw error
            }
        } catch {
            checkIn(connection)
            throw error
        }
    }

    /// Runs `body` in one transaction (BEGIN ... COMMIT; the `BEGIN` goes with the first
    /// statement of `body`, in one round trip) and runs it again, up to
    /// ``transactionAttempts`` times in all, when PostgreSQL aborts it for a serialization failure
    /// or a deadlock; then its error is `storeBusy`. `body` must be safe to run again: it sees a
    /// rolled-back database each time. `body` may end the transaction with a `COMMIT` of its own
    /// (sent in one round trip with its last statements): nothing is committed after it then.
    ///
    /// - Throws: what `body` or the commit throws, after a ROLLBACK.
    func inTransaction<T>(_ begin: String = "BEGIN", _ body: (PostgresConnection) throws -> T) throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try withConnection { connection in
                    connection.begin(begin)
                    do {
                        let result = try body(connection)
                        if !connection.endPendingBegin(), connection.isInTransaction {
                            try connection.execute("COMMIT")
                        }
                        return result
                    } catch {
                        connection.rollbackQuietly()
                        throw error
                    }
                }
            } catch let error as StrataError
                where attempt < Self.transactionAttempts
                && PostgresErrorMapping.retryableStates.contains(error.location["sqlstate"] ?? "")
            {
                retries.withLock { $0 += 1 }
                // A short, growing, jittered pause, so the colliding transactions spread out.
                usleep(UInt32.random(in: 0...(500 << attempt)))
            }
        }
    }

    /// Closes every idle connection; connections in use close when they come back.
    func close() {
        let idle = state.withLock { state -> [PostgresConnection] in
            state.isClosed = true
            defer { state.idle.removeAll() }
            return state.idle
        }
        for connection in idle { connection.close() }
    }

    private func checkOut(forceNew: Bool = false) throws -> (PostgresConnection, reused: Bool) {
        let idle = try state.withLock { state throws(StrataError) -> PostgresConnection? in
            if state.isClosed { throw closedError }
            return forceNew ? nil : state.idle.popLast()
        }
        if let idle, !idle.isBroken {
            idle.statementsSinceCheckout = 0
            idle.copiesSinceCheckout = 0
            idle.roundTripsSinceCheckout = 0
            return (idle, true)
        }
        idle?.close()
        let connection = try PostgresConnection(settings: settings)
        connection.statementsSinceCheckout = 0
        connection.roundTripsSinceCheckout = 0
        state.withLock { $0.opened += 1 }
        return (connection, false)
    }

    private func checkIn(_ connection: PostgresConnection) {
        counts.withLock {
            $0.statements += connection.statementsSinceCheckout
            $0.copies += connection.copiesSinceCheckout
            $0.roundTrips += connection.roundTripsSinceCheckout
        }
        if connection.isBroken {
            connection.close()
            return
        }
        connection.rollbackQuietly()
        let keep = state.withLock { state -> Bool in
            guard !state.isClosed else { return false }
            state.idle.append(connection)
            return true
        }
        if !keep { connection.close() }
    }

    private func dropIdle() {
        let idle = state.withLock { state -> [PostgresConnection] in
            defer { state.idle.removeAll() }
            return state.idle
        }
        for connection in idle { connection.close() }
    }
}

/// How many statements a store ran (``PostgresConnectionPool/statementCounts``): each is one
/// round trip to the server or more (a `COPY` takes two).
package struct PostgresStatementCounts: Sendable, Equatable {
    /// Every statement, `BEGIN` and `COMMIT` included.
    package var statements = 0
    /// The `COPY ... FROM STDIN` among them.
    package var copies = 0
    /// How many times the store sent statements and waited for their answer: one per statement
    /// but for those sent together in one pipeline, two per `COPY`.
    package var roundTrips = 0

    package init() {}
}
