import Foundation
import Strata

/// Runs the demo's `async` work while the main thread serves the main queue.
///
/// The container's view context is a main-queue context: its perform blocks (and anything on the
/// main actor) run on `DispatchQueue.main`. A GUI app's run loop drains that queue; a command-line
/// tool has none, so on Linux nothing would ever run there and the demo would hang at its first
/// `viewContext.perform`. `ParsableCommand.run()` is called on the main thread, so the demo starts
/// its work on a detached task and turns the main thread into a run loop until the work ends:
/// `RunLoop.main.run(mode:before:)` drains the main dispatch queue (swift-corelibs-foundation's
/// run loop services it, as CFRunLoop does on Darwin). `dispatchMain()` would serve it too, but
/// never returns, so the command could not return its exit code.
enum DemoMainQueue {
    /// Runs `work` to the end, serving the main queue meanwhile, and returns or rethrows its
    /// outcome.
    static func run(_ work: @escaping @Sendable () async throws -> Void) throws {
        let outcome = Locked<Result<Void, any Error>?>(nil)
        Task.detached {
            do {
                try await work()
                outcome.withLock { $0 = .success(()) }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
        }
        while true {
            if let result = outcome.withLock({ $0 }) { return try result.get() }
            _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.05))
        }
    }
}
