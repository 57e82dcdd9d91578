import CStrataPostgres
import Foundation
import StrataCore

/// A PostgreSQL store's ``HistoryChangeSignal``: `LISTEN strata_history` on a connection of its
/// own (never one of the pool's, which would hold it for good), and a sign for each notification
/// whose payload names the store (`'<storeIdentifier> <sequence>'`, sent by each save as it
/// commits); notifications of other stores in the same database are skipped. The connection's
/// `application_name` is `strata-listener:<storeIdentifier>`, so `pg_stat_activity` tells it apart.
///
/// When its connection is lost (a server restart, `pg_terminate_backend`, a network failure
/// noticed by the socket), the listener connects again, waiting longer after each failed attempt
/// (50 ms doubling up to ``maximumBackoffSeconds``), and gives a sign once it listens again: the
/// reader then reads the history after its last token and finds what committed while nobody
/// listened.
///
/// One reader waits at a time; ``close()`` may come from any thread and wakes a wait in
/// progress through a pipe.
final class PostgresChangeListener: HistoryChangeSignal, @unchecked Sendable {
    /// The channel every save of every store notifies.
    static let channel = "strata_history"
    /// The longest pause between two attempts to connect again.
    static let maximumBackoffSeconds = 2.0
    /// The first pause after a lost connection.
    static let initialBackoffSeconds = 0.05

    let settings: PostgresConnectionSettings
    let storeIdentifier: String
    /// A pipe: ``close()`` writes to the second, a wait polls the first.
    private let wakePipe: (read: Int32, write: Int32)
    /// Guards the fields below.
    private let lock = NSLock()
    private var connection: PostgresConnection?
    private var closed = false
    private var waiting = false
    /// A sign not yet taken by a wait (a reconnection, or a notification read with others).
    private var pending = false
    /// When to try connecting again, after a failed attempt.
    private var nextAttempt: ContinuousClock.Instant?
    private var backoffSeconds = PostgresChangeListener.initialBackoffSeconds
    private var reconnectionCount = 0

    /// Connects and listens.
    ///
    /// - Throws: what connecting throws (`serverUnavailable`, `authenticationFailed`, ...).
    init(settings: PostgresConnectionSettings, storeIdentifier: String) throws {
        self.settings = settings
        self.storeIdentifier = storeIdentifier
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else {
            throw StrataError(
                .io, "could not create a pipe for the PostgreSQL change listener (errno \(errno))",
                location: ["server": settings.endpoint])
        }
        for descriptor in descriptors {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }
        wakePipe = (descriptors[0], descriptors[1])
        do {
            connection = try Self.listeningConnection(settings, storeIdentifier: storeIdentifier)
        } catch {
            Glibc.close(descriptors[0])
            Glibc.close(descriptors[1])
            throw error
        }
    }

    deinit {
        connection?.close()
        Glibc.close(wakePipe.read)
        Glibc.close(wakePipe.write)
    }

    /// The `application_name` of the listening connection, `strata-listener:<storeIdentifier>`
    /// (cut to the 63 bytes PostgreSQL keeps): what `pg_stat_activity` shows for it.
    var applicationName: String { Self.applicationName(storeIdentifier) }

    static func applicationName(_ storeIdentifier: String) -> String {
        var name = "strata-listener:" + storeIdentifier
        while name.utf8.count > 63 { name.removeLast() }
        return name
    }

    /// A new connection that listens on ``channel``, named after the store.
    private static func listeningConnection(
        _ settings: PostgresConnectionSettings, storeIdentifier: String
    ) throws -> PostgresConnection {
        let connection = try PostgresConnection(settings: settings)
        do {
            let name = applicationName(storeIdentifier).replacingOccurrences(of: "'", with: "''")
            try connection.execute("SET application_name = '\(name)'; LISTEN \(channel)")
        } catch {
            connection.close()
            throw error
        }
        return connection
    }

    /// The server process of the listening connection, `nil` while it is lost; for tests.
    var backendPID: Int32? {
        lock.withLock { connection.map(\.backendPID) }
    }

    /// How many times the listener connected again after losing its connection.
    var reconnections: Int { lock.withLock { reconnectionCount } }

    func wait(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        let current: PostgresConnection? = lock.withLock {
            guard !closed else { return nil }
            waiting = true
            return self.connection
        }
        defer { endWait() }
        guard !lock.withLock({ closed }) else { return false }
        var listening = current
        while true {
            if lock.withLock({ closed }) { return false }
            if takePending() { return true }
            if let connection = listening {
                if notified(connection) { return true }
                if connection.isBroken {
                    listening = lose(connection)
                    continue
                }
                switch waitForData(on: connection, until: deadline) {
                case .data: continue
                case .timeout, .woken: return takePending()
                case .lost:
                    listening = lose(connection)
                }
            } else {
                guard let attempt = nextAttemptTime() else { return false }
                if attempt > ContinuousClock.now {
                    if pause(until: min(attempt, deadline)) == .woken { return false }
                    if ContinuousClock.now >= deadline, attempt > deadline { return false }
                    continue
                }
                listening = reconnect()
            }
            if ContinuousClock.now >= deadline, listening != nil { return takePending() }
        }
    }

    func close() {
        let idle: PostgresConnection? = lock.withLock {
            guard !closed else { return nil }
            closed = true
            guard !waiting else { return nil }
            defer { connection = nil }
            return connection
        }
        var one: UInt8 = 1
        _ = write(wakePipe.write, &one, 1)
        idle?.close()
    }

    // MARK: Waiting

    /// Ends a wait: the connection closes here when ``close()`` came during it.
    private func endWait() {
        let finished: PostgresConnection? = lock.withLock {
            waiting = false
            guard closed else { return nil }
            defer { connection = nil }
            return connection
        }
        finished?.close()
    }

    private func takePending() -> Bool {
        lock.withLock {
            defer { pending = false }
            return pending
        }
    }

    /// Whether notifications of this store arrived (read from what libpq holds, without
    /// waiting).
    private func notified(_ connection: PostgresConnection) -> Bool {
        var found = false
        for notification in connection.drainNotifications() where notification.channel == Self.channel {
            if Self.storeIdentifier(of: notification.payload) == storeIdentifier { found = true }
        }
        return found
    }

    /// The store identifier of a payload `'<storeIdentifier> <sequence>'`.
    static func storeIdentifier(of payload: String) -> Substring {
        payload.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    }

    private enum Outcome { case data, timeout, woken, lost }

    /// Waits for the server's socket or the wake descriptor, until `deadline`.
    private func waitForData(on connection: PostgresConnection, until deadline: ContinuousClock.Instant) -> Outcome {
        let socket = PQsocket(connection.handle)
        guard socket >= 0 else { return .lost }
        var descriptors = [
            pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakePipe.read, events: Int16(POLLIN), revents: 0),
        ]
        let ready = poll(&descriptors, 2, Self.milliseconds(until: deadline))
        if ready < 0 { return errno == EINTR ? .data : .lost }
        if ready == 0 { return .timeout }
        if descriptors[1].revents != 0 { return .woken }
        guard PQconsumeInput(connection.handle) == 1, !connection.isBroken else { return .lost }
        return .data
    }

    /// Waits for the wake descriptor alone, until `deadline`.
    private func pause(until deadline: ContinuousClock.Instant) -> Outcome {
        var descriptor = pollfd(fd: wakePipe.read, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, Self.milliseconds(until: deadline)) > 0 ? .woken : .timeout
    }

    private static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let left = (deadline - ContinuousClock.now).timeInterval
        return Int32(max(0, min(Double(Int32.max), (left * 1000).rounded(.up))))
    }

    // MARK: Reconnecting

    /// Drops a lost connection; the next attempt to connect again is due at once.
    private func lose(_ lost: PostgresConnection) -> PostgresConnection? {
        StrataLog.logger("postgres").debug(
            "the change listener of store \(storeIdentifier) lost its connection to \(settings.endpoint)")
        lock.withLock {
            if connection === lost { connection = nil }
            nextAttempt = ContinuousClock.now
        }
        lost.close()
        return nil
    }

    /// When to try connecting again; `nil` once closed.
    private func nextAttemptTime() -> ContinuousClock.Instant? {
        lock.withLock { closed ? nil : (nextAttempt ?? ContinuousClock.now) }
    }

    /// One attempt to connect and listen again: on success, a sign is left (whatever committed
    /// meanwhile was not heard); on failure, the next attempt waits longer.
    private func reconnect() -> PostgresConnection? {
        do {
            let fresh = try Self.listeningConnection(settings, storeIdentifier: storeIdentifier)
            let kept = lock.withLock { () -> Bool in
                guard !closed else { return false }
                connection = fresh
                pending = true
                nextAttempt = nil
                backoffSeconds = Self.initialBackoffSeconds
                reconnectionCount += 1
                return true
            }
            guard kept else {
                fresh.close()
                return nil
            }
            return fresh
        } catch {
            StrataLog.logger("postgres").debug(
                "the change listener of store \(storeIdentifier) could not connect again: \(error)")
            lock.withLock {
                nextAttempt = ContinuousClock.now + .milliseconds(Int(backoffSeconds * 1000))
                backoffSeconds = min(Self.maximumBackoffSeconds, backoffSeconds * 2)
            }
            return nil
        }
    }
}
