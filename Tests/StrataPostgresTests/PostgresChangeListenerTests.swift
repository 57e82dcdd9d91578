import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataPostgres

/// The listener behind a PostgreSQL store's change signal: a sign for each notification naming
/// its store, none for other stores or rolled-back saves, a sign after it lost its connection
/// and listens again, and a wait that `close()` ends from another thread.
@Suite(.enabled(if: PostgresTestServer.shouldRun, Comment(rawValue: PostgresTestServer.skipReason)))
struct PostgresChangeListenerTests {
    let settings: PostgresConnectionSettings

    init() throws {
        settings = try PostgresConnectionSettings(PostgresTestServer.requireURL())
    }

    /// A store identifier no other test notifies.
    private func freshIdentifier() -> String { UUID().uuidString }

    @Test func aNotificationNamingTheStoreIsASign() throws {
        let store = freshIdentifier()
        let listener = try PostgresChangeListener(settings: settings, storeIdentifier: store)
        defer { listener.close() }
        let writer = try PostgresConnection(settings: settings)
        defer { writer.close() }
        try writer.execute("SELECT pg_notify('strata_history', '\(store) 1')")
        #expect(listener.wait(timeout: .seconds(30)))
        // Taken: the next wait has nothing.
        #expect(!listener.wait(timeout: .zero))
    }

    @Test func otherStoresAndRolledBackSavesGiveNoSign() throws {
        let store = freshIdentifier()
        let listener = try PostgresChangeListener(settings: settings, storeIdentifier: store)
        defer { listener.close() }
        let writer = try PostgresConnection(settings: settings)
        defer { writer.close() }
        try writer.execute("SELECT pg_notify('strata_history', '\(freshIdentifier()) 7')")
        try writer.execute("BEGIN; SELECT pg_notify('strata_history', '\(store) 8'); ROLLBACK")
        try writer.execute("SELECT pg_notify('strata_other', '\(store) 9')")
        // A marker sent last: once it arrived, every notification before it has been read.
        let marker = try PostgresChangeListener(settings: settings, storeIdentifier: "marker-\(store)")
        defer { marker.close() }
        try writer.execute("SELECT pg_notify('strata_history', 'marker-\(store) 1')")
        #expect(marker.wait(timeout: .seconds(30)))
        #expect(!listener.wait(timeout: .milliseconds(50)))
        try writer.execute("SELECT pg_notify('strata_history', '\(store) 10')")
        #expect(listener.wait(timeout: .seconds(30)))
    }

    @Test func signsBetweenWaitsAreKeptAsOne() throws {
        let store = freshIdentifier()
        let listener = try PostgresChangeListener(settings: settings, storeIdentifier: store)
        defer { listener.close() }
        let writer = try PostgresConnection(settings: settings)
        defer { writer.close() }
        for sequence in 1...5 { try writer.execute("SELECT pg_notify('strata_history', '\(store) \(sequence)')") }
        #expect(listener.wait(timeout: .seconds(30)))
    }

    @Test func aTerminatedConnectionIsReplacedAndSignalled() throws {
        let store = freshIdentifier()
        let listener = try PostgresChangeListener(settings: settings, storeIdentifier: store)
        defer { listener.close() }
        let first = try #require(listener.backendPID)
        let admin = try PostgresConnection(settings: settings)
        defer { admin.close() }
        try admin.execute("SELECT pg_terminate_backend(\(first))")
        // The sign of a reconnection: whatever committed meanwhile was not heard.
        #expect(listener.wait(timeout: .seconds(30)))
        #expect(listener.reconnections == 1)
        let second = try #require(listener.backendPID)
        #expect(second != first)
        // And it listens again.
        try admin.execute("SELECT pg_notify('strata_history', '\(store) 2')")
        #expect(listener.wait(timeout: .seconds(30)))
    }

    @Test func closeEndsAWaitOnAnotherThread() throws {
        let listener = try PostgresChangeListener(settings: settings, storeIdentifier: freshIdentifier())
        let ended = DispatchSemaphore(value: 0)
        let result = Locked<Bool?>(nil)
        let thread = Thread {
            result.withLock { $0 = listener.wait(timeout: .seconds(3_600)) }
            ended.signal()
        }
        thread.start()
        // Closing before the wait began ends it too: a closed listener's waits return at once.
        listener.close()
        #expect(ended.wait(timeout: .now() + 30) == .success)
        #expect(result.withLock { $0 } == false)
        #expect(listener.backendPID == nil)
        #expect(!listener.wait(timeout: .seconds(3_600)))
    }
}
