import StrataEngine

/// The serial executor of a model actor: it runs the actor's jobs on the private queue of its
/// ``modelContext``'s engine context, one at a time, each as one of the context's perform
/// blocks. SwiftData's `DefaultSerialModelExecutor`.
///
/// ```swift
/// actor Importer: ModelActor {
///     nonisolated let modelContainer: ModelContainer
///     nonisolated let modelExecutor: any ModelExecutor
///     init(modelContainer: ModelContainer) {
///         self.modelContainer = modelContainer
///         modelExecutor = DefaultSerialModelExecutor(modelContext: ModelContext(modelContainer))
///     }
/// }
/// ```
///
/// `@ModelActor` writes exactly that. Because the jobs run where the context's own perform
/// blocks would, the context's confinement rule holds inside the actor with no `perform` call,
/// and work of the actor never runs on the main thread.
public final class DefaultSerialModelExecutor: SerialModelExecutor, @unchecked Sendable {
    // @unchecked: the context is not Sendable. It is used only by the jobs this executor runs,
    // one at a time on the context's queue (and by the actor's initializer, before any job).

    /// The context the actor's work uses.
    public let modelContext: ModelContext

    /// An executor whose jobs use `modelContext`. Make a context for it (`ModelContext(container)`)
    /// and use that context only from the actor.
    public init(modelContext: ModelContext) {
        self.modelContext = modelContext
    }

    /// Runs `job` after every job enqueued before it, on the context's queue.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        modelContext.objectContext.perform { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }

    /// This executor, as the actor hands it to the runtime.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Stops the program unless the caller runs one of this executor's jobs (or another perform
    /// block of its context): what `assumeIsolated` and `preconditionIsolated` ask.
    public func checkIsolated() {
        precondition(
            modelContext.objectContext.isPerformingOnCurrentThread,
            "not isolated to the model actor's executor: the caller does not run on its context's queue")
    }
}
