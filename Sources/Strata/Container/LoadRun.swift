import Foundation
import StrataCore

/// One run of a container's load: its cancellation flag, its Foundation `Progress`, and the
/// callers waiting for it.
final class LoadRun: Sendable {
    private let cancelled = Locked<Bool>(false)
    private let waiting = Locked<[@Sendable (StrataError?) -> Void]>([])
    private let progressBox: Locked<Progress>

    init(storeCount: Int) {
        let progress = Progress(totalUnitCount: 0)
        progressBox = Locked(progress)
        progress.isCancellable = true
        progress.cancellationHandler = { [weak self] in self?.cancel() }
    }

    /// The run's Foundation progress (units of the current phase; cancelling it cancels the run).
    var progress: Progress { progressBox.withLock { $0 } }

    /// Whether the run was cancelled; the loader polls this between phases.
    var isCancelled: Bool { cancelled.withLock { $0 } }

    /// Cancels the run (once) and marks its `Progress` cancelled.
    func cancel() {
        let first = cancelled.withLock { flag -> Bool in
            defer { flag = true }
            return !flag
        }
        if first { progress.cancel() }
    }

    /// Adds a caller to tell when the run ends.
    func addWaiter(_ completion: @escaping @Sendable (StrataError?) -> Void) {
        waiting.withLock { $0.append(completion) }
    }

    /// Takes the callers to tell, once.
    func takeWaiters() -> [@Sendable (StrataError?) -> Void] {
        waiting.withLock { list in
            defer { list.removeAll() }
            return list
        }
    }

    /// Shows `step` in the Foundation progress.
    func show(_ step: LoadProgress) {
        let progress = self.progress
        progress.totalUnitCount = Int64(step.total)
        progress.completedUnitCount = Int64(step.completed)
        progress.setUserInfoObject(step.description, forKey: LoadProgress.progressUserInfoKey)
    }
}
