import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which thread may use a context right now (see ``ObjectContext`` and docs/Concurrency.md).
struct ConfinementState {
    /// The thread that first used the context outside any perform block (private-queue
    /// contexts only).
    var adoptedThread: UInt?
    /// The thread running the context's current perform block, if one is running.
    var performingThread: UInt?
    /// How deeply perform blocks are nested on ``performingThread``.
    var depth = 0
}

/// The identity of the calling thread, cheap enough for debug checks.
enum ThreadIdentity {
    /// Set on `DispatchQueue.main` to recognize it (once, on first use).
    private static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// Whether the caller runs on the main queue: the main thread, or, once `dispatch_main()`
    /// gave the main thread up (as an `async` `main` does on Linux), the worker draining it.
    static var isOnMainQueue: Bool {
        Thread.isMainThread || DispatchQueue.getSpecific(key: mainQueueKey) == true
    }

    /// An identifier of the calling thread, unique among the threads alive now.
    static var current: UInt {
        #if canImport(Darwin)
            return UInt(bitPattern: pthread_self())
        #else
            return UInt(pthread_self())
        #endif
    }

    /// The calling thread in words, for messages: `main thread` or `thread 0x… ("name")`.
    static var currentDescription: String {
        if Thread.isMainThread { return "the main thread" }
        if isOnMainQueue { return "the main queue (thread 0x" + String(current, radix: 16) + ")" }
        let name = Thread.current.name.flatMap { $0.isEmpty ? nil : " (\"\($0)\")" } ?? ""
        return "thread 0x" + String(current, radix: 16) + name
    }
}

extension ObjectContext {
    private static let violationHandler = Locked<@Sendable (String) -> Void>({ message in preconditionFailure(message) }
    )

    /// What a debug build does when a context or one of its objects is used off its queue:
    /// by default it stops the program (`preconditionFailure`) with a message naming the
    /// context and the thread. Tests may install a handler that records the message instead.
    /// Release builds never check, so they never call it.
    public static var concurrencyViolationHandler: @Sendable (String) -> Void {
        get { violationHandler.withLock { $0 } }
        set { violationHandler.withLock { $0 = newValue } }
    }

    /// The context as messages name it: `ObjectContext "name" (private queue)`.
    var debugName: String {
        let kind = concurrencyType == .mainQueue ? "main queue" : "private queue"
        return "ObjectContext \(name.map { "\"\($0)\"" } ?? "(unnamed)") (\(kind))"
    }

    /// In debug builds, reports a use of the context from a thread that may not use it now;
    /// compiles to nothing in release builds.
    @inline(__always)
    func checkConfinement(_ function: StaticString = #function) {
        #if DEBUG
            verifyConfinement(String(describing: function))
        #endif
    }

    /// The confinement rule (docs/Concurrency.md): while a perform block runs, only the thread
    /// running it; otherwise the main queue for a main-queue context, and for a private-queue
    /// context the thread that adopted it (the first to use it outside a perform block).
    @usableFromInline
    func verifyConfinement(_ function: String) {
        let me = ThreadIdentity.current
        let isMain = ThreadIdentity.isOnMainQueue
        let owner: String? = confinement.withLock { state in
            if let performing = state.performingThread {
                return performing == me
                    ? nil : "its queue, which is running a perform block on thread 0x" + String(performing, radix: 16)
            }
            if concurrencyType == .mainQueue {
                return isMain ? nil : "the main queue (use perform or performAndWait off the main thread)"
            }
            if let adopted = state.adoptedThread {
                return adopted == me
                    ? nil
                    : "thread 0x" + String(adopted, radix: 16)
                        + ", which adopted it (use perform or performAndWait from other threads)"
            }
            state.adoptedThread = me
            return nil
        }
        if let owner {
            ObjectContext.concurrencyViolationHandler(
                "concurrency violation: \(debugName) used by \(function) on \(ThreadIdentity.currentDescription), but it is confined to \(owner)"
            )
        }
    }

    /// Runs `block` as a perform block of this context on the calling thread, which must be the
    /// context's queue (or, for an inline ``performAndWait(_:)``, already running one of its
    /// blocks). Pending change notifications are posted when the outermost block ends.
    func runConfined<T>(_ block: () throws -> T) rethrows -> T {
        let me = ThreadIdentity.current
        let outermost = confinement.withLock { state -> Bool in
            if state.depth == 0 { state.performingThread = me }
            state.depth += 1
            return state.depth == 1
        }
        defer {
            if outermost { processPendingChanges() }
            confinement.withLock { state in
                state.depth -= 1
                if state.depth == 0 { state.performingThread = nil }
            }
        }
        return try block()
    }
}

extension ManagedObject {
    /// In debug builds, reports a use of the object off its context's queue; nothing in release.
    ///
    /// Inlinable, so that the typed slot reads (``value(atSlot:)``) inlined into a release
    /// client cost nothing here.
    @inlinable
    func checkConfinement(_ function: StaticString = #function) {
        #if DEBUG
            context?.verifyConfinement("\(objectID) " + String(describing: function))
        #endif
    }
}
