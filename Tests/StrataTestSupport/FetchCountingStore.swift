import StrataCore

/// A store that counts the fetches it answers. With `keepingCapabilities`, it keeps the
/// capabilities of the store inside (a SQLite store inside stays ``UniqueConstraintEnforcing``);
/// without, it hides them, as a store that adopts none would.
package final class FetchCountingStore: WrappingStore {
    package let inner: any PersistentStore
    private let keepsCapabilities: Bool
    private let fetches = Locked(0)

    package init(_ inner: any PersistentStore, keepingCapabilities: Bool = false) {
        self.inner = inner
        keepsCapabilities = keepingCapabilities
    }

    /// The fetches answered so far.
    package var fetchCount: Int { fetches.withLock { $0 } }

    /// The fetches answered while `body` ran.
    package func fetches(_ body: () throws -> Void) rethrows -> Int {
        let before = fetchCount
        try body()
        return fetchCount - before
    }

    package func fetch(_ request: FetchRequest) throws -> FetchResult {
        fetches.withLock { $0 += 1 }
        return try inner.fetch(request)
    }

    package func capability<C>(_ type: C.Type) -> C? { keepsCapabilities ? inner.capability(type) : self as? C }
}
