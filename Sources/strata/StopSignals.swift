import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SIGINT and SIGTERM turned into a request to stop, which a long-running command checks between
/// its steps, so that it finishes the step under way (a save) and exits cleanly.
final class StopSignals {
    /// Set from the signal handlers' queue, read by the command.
    private final class Flag: Sendable {
        let value = Atomic<Bool>(false)
    }

    private let requested = Flag()
    private let sources: [any DispatchSourceSignal]

    /// From now on SIGINT and SIGTERM no longer end the process; they set ``isRequested``.
    init() {
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            sources.append(DispatchSource.makeSignalSource(signal: number, queue: .global()))
        }
        self.sources = sources
        for source in sources {
            source.setEventHandler { [requested] in requested.value.store(true, ordering: .relaxed) }
            source.resume()
        }
    }

    /// Whether SIGINT or SIGTERM arrived.
    var isRequested: Bool { requested.value.load(ordering: .relaxed) }

    deinit {
        for source in sources { source.cancel() }
    }
}
