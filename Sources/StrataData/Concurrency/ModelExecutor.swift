/// What runs the work of a ``ModelActor`` and owns the ``ModelContext`` it works in:
/// SwiftData's `ModelExecutor`.
///
/// A model actor's jobs use ``modelContext`` only while the executor runs them, so the context
/// is never used from two threads at once. ``DefaultSerialModelExecutor`` is the executor
/// `@ModelActor` makes.
public protocol ModelExecutor: AnyObject, Sendable {
    /// The context the actor's work uses: fetch, insert, delete and save through it.
    var modelContext: ModelContext { get }
}

/// A ``ModelExecutor`` that runs one job at a time, in order: the kind a ``ModelActor`` needs.
/// SwiftData's `SerialModelExecutor`.
public protocol SerialModelExecutor: ModelExecutor, SerialExecutor {}
