import BenchmarkSupport
import Dispatch
import Foundation

/// A repeating main-queue tick: the longest gap between two ticks, minus the period, is the
/// longest time the main queue could not run (the stall an app's UI would show), whether it was
/// busy or waiting for a core. It also reports the longest main-queue *work* between two ticks:
/// the CPU time the thread draining the main queue used between them (when the same thread ran
/// both ticks), which leaves out the time the machine gave to other processes. Blocks that run
/// on another thread while holding the main queue (`DispatchQueue.main.sync` from a background
/// thread) count in the stall only.
final class StallMonitor: @unchecked Sendable {
    private let period: UInt64
    private let lock = NSLock()
    private var last: UInt64 = 0
    private var longestGap: UInt64 = 0
    private var lastCPU: UInt64 = 0
    private var lastThread: pthread_t?
    private var longestWork: UInt64 = 0
    private var ticks = 0
    private var timer: DispatchSourceTimer?

    /// A monitor ticking every `periodMicroseconds` on the main queue once started.
    init(periodMicroseconds: Int = 1_000) { period = UInt64(periodMicroseconds) * 1_000 }

    /// Starts ticking; returns once the first tick ran.
    func start() {
        let first = DispatchSemaphore(value: 0)
        let timer = DispatchSource.makeTimerSource(queue: .main)
        timer.schedule(deadline: .now(), repeating: .nanoseconds(Int(period)), leeway: .nanoseconds(0))
        timer.setEventHandler { [self] in
            let now = monotonicNanoseconds()
            let cpu = threadCPUNanoseconds()
            let thread = pthread_self()
            let isFirst = lock.withLock { () -> Bool in
                defer {
                    last = now
                    lastCPU = cpu
                    lastThread = thread
                    ticks += 1
                }
                if last == 0 { return true }
                longestGap = max(longestGap, now - last)
                if let lastThread, pthread_equal(lastThread, thread) != 0, cpu > lastCPU {
                    longestWork = max(longestWork, cpu - lastCPU)
                }
                return false
            }
            if isFirst { first.signal() }
        }
        self.timer = timer
        timer.resume()
        first.wait()
    }

    /// Stops ticking; the longest stall in ms (the longest gap minus the period), the longest
    /// main-queue work between two ticks in ms, and the tick count.
    func stop() -> (stall: Double, work: Double, ticks: Int) {
        // One last tick after everything before it on the main queue ran.
        DispatchQueue.main.sync {}
        timer?.cancel()
        timer = nil
        return lock.withLock {
            (Double(longestGap > period ? longestGap - period : 0) / 1e6, Double(longestWork) / 1e6, ticks)
        }
    }
}

/// Runs `body` while a monitor ticks; returns the longest stall, the longest main-queue work
/// and the time `body` took, in ms.
func measureStall(_ body: () throws -> Void) rethrows -> (stall: Double, work: Double, elapsed: Double) {
    let monitor = StallMonitor()
    monitor.start()
    let elapsed = try milliseconds(body)
    let result = monitor.stop()
    return (result.stall, result.work, elapsed)
}

/// CPU time of the calling thread, in nanoseconds.
func threadCPUNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}
