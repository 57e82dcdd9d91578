import BenchmarkSupport
import Foundation
import Strata

/// What the calling thread saw while a load ran.
struct CallerObservation: Sendable {
    /// How long the call that starts the load kept the caller (µs).
    var startCallMicroseconds: Double
    /// CPU time the caller's thread spent in that call (µs): the part that is the call's own
    /// work, as opposed to time the thread waited for a core.
    var startCallCPUMicroseconds: Double
    /// The longest gap between two consecutive ticks of the caller while the load ran (ms). A
    /// tick is a clock read followed by a 100 µs sleep, so the floor is about 0.1 ms plus
    /// scheduling.
    var longestGapMilliseconds: Double
    /// Ticks while the load ran.
    var ticks: Int
    /// From the start of the call to the end of the load, as the loader reports it (ms).
    var loadMilliseconds: Double
}

/// Runs `start` on a new thread, the "caller", which then ticks until `start`'s completion
/// has been called; returns what the caller saw. `start` must return at once and call its
/// argument when the work ends.
func observeCaller(_ start: @escaping @Sendable (_ done: @escaping @Sendable (Error?) -> Void) -> Void) -> (
    CallerObservation, Error?
) {
    let result = Locked<(CallerObservation, Error?)?>(nil)
    let finished = DispatchSemaphore(value: 0)
    let thread = Thread {
        let end = Locked<(done: Bool, at: UInt64, error: Error?)>((false, 0, nil))
        let cpuStart = threadCPUMicroseconds()
        let callStart = monotonicNanoseconds()
        start { error in end.withLock { $0 = (true, monotonicNanoseconds(), error) } }
        let callEnd = monotonicNanoseconds()
        let callCPU = threadCPUMicroseconds() - cpuStart
        var last = callEnd
        var longest: UInt64 = 0
        var ticks = 0
        while !end.withLock({ $0.done }) {
            usleep(100)
            let now = monotonicNanoseconds()
            longest = max(longest, now - last)
            last = now
            ticks += 1
        }
        let (_, at, error) = end.withLock { $0 }
        result.withLock {
            $0 = (
                CallerObservation(
                    startCallMicroseconds: Double(callEnd - callStart) / 1e3, startCallCPUMicroseconds: callCPU,
                    longestGapMilliseconds: Double(longest) / 1e6,
                    ticks: ticks, loadMilliseconds: Double(at - callStart) / 1e6), error
            )
        }
        finished.signal()
    }
    thread.start()
    finished.wait()
    return result.withLock { $0! }
}

/// CPU time of the calling thread so far, in µs.
func threadCPUMicroseconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) * 1e6 + Double(ts.tv_nsec) / 1e3
}
