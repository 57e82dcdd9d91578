import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs a container's load on a thread of its own at a lower priority than the caller, so that
/// on a machine with few cores the caller (a UI thread, a server's accept loop) keeps the CPU
/// while a long migration runs: on Linux the thread's nice value is raised by ``niceIncrement``
/// (Linux keeps nice values per thread), on Darwin it gets the utility quality of service.
///
/// A thread of its own, not a GCD worker: a raised nice value cannot be lowered again without
/// privileges, and GCD would go on using the worker for other work.
enum LoaderThread {
    /// How much lower the loader's priority is on Linux (nice +10: about a tenth of the CPU share
    /// of a nice-0 thread competing for the same core).
    static let niceIncrement: Int32 = 10

    /// Starts `body` on a new low-priority thread and returns.
    static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            #if os(Linux)
                lowerPriority()
            #endif
            body()
        }
        thread.name = name
        #if canImport(Darwin)
            thread.qualityOfService = .utility
        #endif
        thread.start()
    }

    #if os(Linux)
        /// Raises the calling thread's nice value (best effort: a failure leaves the priority as it
        /// is, which is still correct, only less kind to the caller).
        private static func lowerPriority() {
            errno = 0
            let current = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
            guard errno == 0 else { return }
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, min(current + niceIncrement, 19))
        }
    #endif
}
