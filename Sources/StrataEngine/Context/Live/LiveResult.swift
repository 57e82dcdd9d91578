import StrataCore

/// One state of a live query: the matching objects' IDs in the request's order, their sections
/// when asked, and the ``LiveDiff`` from the state the consumer saw before (everything inserted,
/// for the first).
///
/// A `Sendable` value: turn IDs into objects on the observed context's queue
/// (``ObjectContext/object(with:)`` inside a perform block of that context).
public struct LiveResult: Sendable, Hashable {
    /// The matching objects, in the request's order (ties by primary key).
    public var objectIDs: [ObjectID]
    /// The objects in runs of equal values of the section key path, in result order; `nil`
    /// when no section key path was given.
    public var sections: [LiveSection]?
    /// What changed since the previous element.
    public var diff: LiveDiff

    /// A result.
    public init(objectIDs: [ObjectID], sections: [LiveSection]?, diff: LiveDiff) {
        self.objectIDs = objectIDs
        self.sections = sections
        self.diff = diff
    }
}

/// A run of consecutive results sharing one value of the section key path.
///
/// Sections follow the result order, as a fetched-results controller's do: sort by the section
/// key path first to get one section per value.
public struct LiveSection: Sendable, Hashable {
    /// The section key path's value for every object of the section.
    public var value: Value
    /// The section's positions in ``LiveResult/objectIDs``.
    public var range: Range<Int>

    /// A section of `range` with `value`.
    public init(value: Value, range: Range<Int>) {
        self.value = value
        self.range = range
    }
}

/// How a context's live queries kept up: read it with ``ObjectContext/liveQueryStatistics``.
public struct LiveQueryStatistics: Sendable, Hashable {
    /// Live queries observing the context now.
    public var subscriptions = 0
    /// Queries run again against the context because a change could not be decided from the
    /// changed objects (relationships, a full limit window, an offset, a reset).
    public var refetches = 0
    /// Changed objects matched against a query's predicate and sort without a refetch.
    public var localDecisions = 0
    /// Changed objects reported as updated to a query that contains them without being matched
    /// again (the change touched nothing the query reads).
    public var membershipUpdates = 0
    /// Entries put back in order among the entries they tie with after their temporary IDs
    /// became permanent (the rest of each result kept its order without being touched).
    package var entriesReorderedByRenames = 0
    /// Merged saves whose inserted objects were matched, and their entries built and ordered,
    /// before the merge, off the context's queue.
    package var preparedMerges = 0
    /// Merged saves prepared for queries that changed before the merge: decided on the queue.
    package var preparedMergeFallbacks = 0
    /// Inserted objects whose membership the preparation decided.
    package var preparedDecisions = 0
    /// Prepared inserted objects decided on the queue after all: the context held them
    /// loaded, or a query listed them already.
    package var preparedObjectFallbacks = 0
    /// Comparisons of entries made on the context's queue to place new entries in results
    /// (sorting `k` unordered entries counted as `k log2 k`).
    package var mergeComparisons = 0
    /// Tables of members that grew, rehashing every entry, while the context merged changes
    /// (rather than where a result was loaded).
    package var tablesGrownInMerges = 0

    /// Statistics with every count at zero.
    public init() {}
}
