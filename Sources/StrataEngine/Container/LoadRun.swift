import Foundation
import StrataCore

/// One run of a container's load: its cancellation flag, its Foundation `Progress`, and the
/// callers waiting for it.
final class LoadRun: Sendable {
    private let cancelled = Locked<Bool>(false)
    private let waiting = Locked<[@Sendable (StrataError?) -> Void]>([])
    private let progressBox: Locked<Progress>

    init(storeCount: Int) {
        let progress = Progress(totalUnitCount: Int64(max(storeCount, 1) * LoadRun.unitsPerStore))
        progressBox = Locked(progress)
        progress.isCancellable = true
        progress.cancellationHandler = { [weak self] in self?.cancel() }
    }

    /// The run's Foundation progress (1,000 units per store; cancelling it cancels the run).
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

    /// The Foundation progress's units for each store, shared by the phases as ``phaseRange(_:)``
    /// says, so that `fractionCompleted` rises from 0 to 1 across the whole load.
    static let unitsPerStore = 1000

    /// Where each phase starts and ends within a store's units.
    static func phaseRange(_ phase: LoadProgress.Phase) -> (start: Int, end: Int) {
        switch phase {
        case .checking: (0, 50)
        case .migrating: (50, 800)
        case .opening: (800, 850)
        case .verifying: (850, 1000)
        case .opened: (1000, 1000)
        }
    }

    /// Shows `step` in the Foundation progress: its units, never going back.
    func show(_ step: LoadProgress) {
        let progress = self.progress
        let (start, end) = LoadRun.phaseRange(step.phase)
        let within = step.total > 0 ? (end - start) * min(step.completed, step.total) / step.total : 0
        let units = Int64(step.storeIndex * LoadRun.unitsPerStore + start + within)
        if units > progress.completedUnitCount { progress.completedUnitCount = units }
        progress.setUserInfoObject(step.description, forKey: LoadProgress.progressUserInfoKey)
    }
}
