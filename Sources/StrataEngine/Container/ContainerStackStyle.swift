/// Which context stack a ``PersistentContainer`` builds (see ``ContextStack``).
public enum ContainerStackStyle: String, Sendable, Hashable, CaseIterable {
    /// A main-queue view context on the coordinator; background contexts are private-queue
    /// contexts on the coordinator too, and the container merges each of their saves into the
    /// view context.
    case twoTier
    /// A private-queue writer on the coordinator, the main-queue view context as its child, and
    /// background contexts as further children of the writer: their saves reach the writer with
    /// no store I/O, the view context merges them by itself, and the writer saves to the stores
    /// off the main queue.
    case threeTier
}
