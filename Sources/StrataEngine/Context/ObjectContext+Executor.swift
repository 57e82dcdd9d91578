extension ObjectContext {
    /// Whether the calling thread is running one of this context's perform blocks now: what a
    /// serial executor built on the context's queue (StrataData's `DefaultSerialModelExecutor`)
    /// answers when the runtime asks whether the caller is isolated to it.
    package var isPerformingOnCurrentThread: Bool {
        let me = ThreadIdentity.current
        return confinement.withLock { $0.performingThread == me }
    }
}
