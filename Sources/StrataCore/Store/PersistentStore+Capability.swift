extension PersistentStore {
    /// The protocols this store adopts itself: `self as? C`. Wrappers replace it to forward to
    /// the store they wrap (see ``PersistentStore/capability(_:)``).
    public func capability<C>(_ type: C.Type) -> C? { self as? C }
}
