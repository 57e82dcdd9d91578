import StrataCore

/// Passes a task's cancellation to an action set later: `withTaskCancellationHandler` may call
/// its handler before the work it cancels has started.
final class CancellationRelay: Sendable {
    private let state = Locked<(cancelled: Bool, action: (@Sendable () -> Void)?)>((false, nil))

    /// Sets the action; runs it at once if cancellation already came.
    func setAction(_ action: @escaping @Sendable () -> Void) {
        let run = state.withLock { s -> Bool in
            s.action = action
            return s.cancelled
        }
        if run { action() }
    }

    /// Records cancellation and runs the action if there is one.
    func cancel() {
        let action = state.withLock { s -> (@Sendable () -> Void)? in
            s.cancelled = true
            return s.action
        }
        action?()
    }
}
