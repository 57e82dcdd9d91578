import Dispatch
import Strata

/// A ticker on the main queue: every millisecond it notes the time, so the demo can show how long
/// the main queue was ever kept from running while the store loaded in the background.
final class DemoTicker: Sendable {
    private let state = Locked<(running: Bool, last: UInt64, longest: UInt64, ticks: Int)>((false, 0, 0, 0))

    /// Starts ticking on the main queue.
    func start() {
        state.withLock { $0 = (true, DispatchTime.now().uptimeNanoseconds, 0, 0) }
        schedule()
    }

    private func schedule() {
        DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(1)) { [self] in
            let now = DispatchTime.now().uptimeNanoseconds
            let running = state.withLock { s -> Bool in
                guard s.running else { return false }
                s.longest = max(s.longest, now - s.last)
                s.last = now
                s.ticks += 1
                return true
            }
            if running { schedule() }
        }
    }

    /// Stops ticking; returns the number of ticks and the longest gap between two, in
    /// milliseconds (the 1 ms period included).
    func stop() -> (ticks: Int, longestGapMilliseconds: Double) {
        state.withLock { s in
            s.running = false
            return (s.ticks, Double(s.longest) / 1e6)
        }
    }
}
