/// How a context runs a fetch, beyond the request itself.
public struct FetchOptions: Sendable, Hashable {
    /// Whether unsaved inserts, edits and deletes of the context are reflected, with the
    /// predicate and sorts applied to their current values (the default, as in Core Data).
    public var includesPendingChanges: Bool
    /// Whether fetched objects come back as faults that fill on first access (the default). Their
    /// data is in the coordinator's row cache, so filling them rarely needs the store.
    public var returnsObjectsAsFaults: Bool
    /// Relationships to load in the same fetch (one request per relationship), so that
    /// following them does not fire one fault per object.
    public var relationshipKeyPathsForPrefetching: [String]

    /// Creates options; the defaults are Core Data's.
    public init(
        includesPendingChanges: Bool = true, returnsObjectsAsFaults: Bool = true,
        relationshipKeyPathsForPrefetching: [String] = []
    ) {
        self.includesPendingChanges = includesPendingChanges
        self.returnsObjectsAsFaults = returnsObjectsAsFaults
        self.relationshipKeyPathsForPrefetching = relationshipKeyPathsForPrefetching
    }
}
