import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SIGINT and SIGTERM turned into a request to stop, which a long-running command checks between
/// its steps, so that it finishes the step under way (a save) and exits cleanly.
///
/// A signal handler is a C function: it cannot capture anything, so the request is a static
/// atomic flag, the one thing the handler touches (a lock-free store, safe in a handler). It is
/// not a DispatchSource: on Linux those register their handler asynchronously, and a signal
/// arriving before that is lost.
enum StopSignals {
    private static let requested = Atomic<Bool>(false)

    /// From now on SIGINT and SIGTERM no longer end the process; they set ``isRequested``.
    static func install() {
        // Initialized here, never for the first time inside the handler.
        requested.store(false, ordering: .relaxed)
        var signals = sigset_t()
        sigemptyset(&signals)
        for number in [SIGINT, SIGTERM] {
            signal(number) { _ in StopSignals.requested.store(true, ordering: .relaxed) }
            sigaddset(&signals, number)
        }
        // A process may start with them blocked (a parent's mask is inherited): take them here.
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }

    /// Whether SIGINT or SIGTERM arrived since ``install()``.
    static var isRequested: Bool { requested.load(ordering: .relaxed) }
}
