import Foundation

/// A value guarded by a lock: the one way Strata shares mutable state between threads.
///
/// Built on `NSLock` (a pthread mutex), which ThreadSanitizer understands, unlike the futex
/// inside `Synchronization.Mutex` on Linux that it reports as races. Reentrant use deadlocks;
/// keep the body short and never call out to user code from it. For a lock with no value, use
/// `NSLock` itself: a zero-size `Value` shares its address with the lock, which ThreadSanitizer
/// then reports as a race.
package final class Locked<Value>: @unchecked Sendable {
    /// Only ever touched under the lock, which already makes every access exclusive: the
    /// run-time exclusivity check would only repeat it.
    @exclusivity(unchecked) private var value: Value
    private let lock = NSLock()

    /// Guards `value`.
    package init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value. O(1) plus the body.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
