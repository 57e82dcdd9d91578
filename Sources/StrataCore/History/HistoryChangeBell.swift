import Foundation

/// A ``HistoryChangeSignal`` rung by hand: ``ring()`` leaves a sign that the next
/// ``wait(timeout:)`` takes. For stores that learn of commits in process, and for tests.
package final class HistoryChangeBell: HistoryChangeSignal, @unchecked Sendable {
    /// Guards `rung` and `closed`.
    private let condition = NSCondition()
    private var rung = false
    private var closed = false

    package init() {}

    /// Whether ``close()`` was called.
    package var isClosed: Bool {
        condition.lock()
        defer { condition.unlock() }
        return closed
    }

    /// Leaves a sign for the next wait (one, however often it rings before).
    package func ring() {
        condition.lock()
        defer { condition.unlock() }
        rung = true
        condition.broadcast()
    }

    package func wait(timeout: Duration) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout.timeInterval)
        condition.lock()
        defer { condition.unlock() }
        while !rung, !closed {
            if !condition.wait(until: deadline) { break }
        }
        guard !closed, rung else { return false }
        rung = false
        return true
    }

    package func close() {
        condition.lock()
        defer { condition.unlock() }
        closed = true
        condition.broadcast()
    }
}

extension Duration {
    /// The duration in seconds (attoseconds included), for APIs that take a `TimeInterval`.
    package var timeInterval: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
