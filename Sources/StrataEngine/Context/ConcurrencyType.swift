import Dispatch

/// Where an ``ObjectContext`` runs its work. Contexts are queue-confined: there is no
/// thread-confinement type (Apple deprecated it for Core Data because nothing checked it).
public enum ConcurrencyType: Sendable, Equatable {
    /// The context owns a serial `DispatchQueue`; run work on it with
    /// ``ObjectContext/perform(_:)``, ``ObjectContext/performAndWait(_:)`` or
    /// `await context.perform { ... }`.
    case privateQueue
    /// The context runs on `DispatchQueue.main`: it may be used directly on the main queue (the main thread), and
    /// from other threads through the `perform` methods.
    case mainQueue
}
