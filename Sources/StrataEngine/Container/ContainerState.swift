import StrataCore

/// Where a ``PersistentContainer`` is in loading its stores.
public enum ContainerState: Sendable, Hashable, CustomStringConvertible {
    /// ``PersistentContainer/loadPersistentStores()`` has not been called yet.
    case notLoaded
    /// The stores are being checked, migrated and opened, off the caller's thread.
    case loading
    /// Every store is open; contexts read and write them.
    case ready
    /// The load failed (or was cancelled: code ``StrataError/Code/cancelled``); no store is open.
    /// Loading again retries.
    case failed(StrataError)

    /// `not loaded`, `loading`, `ready` or `failed: <error>`.
    public var description: String {
        switch self {
        case .notLoaded: "not loaded"
        case .loading: "loading"
        case .ready: "ready"
        case .failed(let error): "failed: \(error)"
        }
    }

    /// The error of a failed load.
    public var error: StrataError? {
        if case .failed(let error) = self { return error }
        return nil
    }
}
