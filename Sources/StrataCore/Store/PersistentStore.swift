/// A store: the one protocol every backend implements, ours and third parties'.
///
/// The required surface is small: metadata, fetch, atomic save, permanent IDs, close. Everything
/// else is optional: a store gains native querying by adopting ``NativeQueryEvaluating``, bulk
/// operations by adopting ``BatchOperating``, and so on. The engine asks for these through
/// ``capability(_:)`` and falls back to its own code when a store has none. New requirements will
/// arrive with default implementations, so existing stores keep compiling.
///
/// Stores are called synchronously from any thread (contexts run on their own queues) and must be
/// safe for that: a `final class` guarding its state with a lock, a connection pool, or an
/// environment with thread-safe transactions.
///
/// ## Implementation requirements
///
/// Pass the conformance kit (`StrataConformance`): it checks each point below.
///
/// - **Fetch** (``execute(_:)``): honour ``FetchRequest/entityName`` and
///   ``FetchRequest/objectIDs`` always. The predicate, sorts, limit, offset and result type are
///   only sent to a store whose ``NativeQueryEvaluating/canEvaluateNatively(_:)`` accepted the
///   request; a store that never accepts receives plain "every snapshot of this entity" requests
///   and the engine does the rest in memory. Results follow the request's order, ties broken by
///   primary key; with no sorts, primary-key order.
/// - **Save** (``save(_:)``): atomic. Check every update's and delete's expected version first; if
///   any differs from the stored one (or the object is gone), throw ``StrataError/Code/conflict``
///   listing *every* conflicting object with its stored snapshot, and write nothing. Write inserts
///   at version 1 and updates at the expected version plus one. If anything fails midway, leave
///   no trace. Reject a value that does not fit its attribute (``StrataError/Code/typeMismatch``),
///   a `nil` for a required attribute (``StrataError/Code/missingValue``) and an unknown entity
///   (``StrataError/Code/unknownEntity``) before writing anything.
/// - **IDs** (``obtainPermanentIDs(for:count:)``): never hand out the same key twice, even across
///   processes sharing the store and across reopen, and never reuse a deleted object's key.
/// - **Readers during a save**: a fetch running while a save commits sees the state before or
///   after the save, never a part of it.
/// - **Errors**: only ``StrataError``, naming the path and the cause.
/// - **Close** (``close()``): release files and locks; later calls throw
///   ``StrataError/Code/storeClosed``. Closing twice is harmless.
/// - **Capabilities** (``capability(_:)``): the default answers with the protocols the store
///   adopts. A store that wraps another one and forwards its calls forwards this too, so the
///   inner store's capabilities survive the wrapper.
public protocol PersistentStore: AnyObject, Sendable {
    /// Where the store lives.
    var url: StoreURL { get }
    /// The model the store was opened with.
    var model: Model { get }
    /// The store's identifier, as in its metadata and in every permanent ID it hands out.
    var identifier: String { get }

    /// The store's current metadata.
    func metadata() throws -> StoreMetadata

    /// Runs a fetch (see the implementation requirements).
    func execute(_ request: FetchRequest) throws -> FetchResult

    /// Applies a save atomically (see the implementation requirements).
    @discardableResult
    func save(_ request: SaveRequest) throws -> SaveResult

    /// Hands out `count` new permanent IDs for objects of `entityName`.
    func obtainPermanentIDs(for entityName: String, count: Int) throws -> [ObjectID]

    /// Releases the store's resources.
    func close() throws

    /// The store as `type`, an optional capability such as ``BatchOperating`` or
    /// ``SnapshotServing``; `nil` when the store lacks it.
    ///
    /// ```swift
    /// if let batch = store.capability((any BatchOperating).self) {
    ///     try batch.batchDelete(entityName: "Note", predicate: nil)
    /// }
    /// ```
    ///
    /// Ask this, never cast (`store as? any BatchOperating`): a cast sees only the outer object,
    /// and a wrapper (a container's store, a decorator) hides the capabilities of the store inside.
    /// The default returns `self as? C`. A wrapper that forwards calls to an inner store returns
    /// the inner store's answer (`inner.capability(type)`), so the caller talks to the inner store
    /// directly for that capability; a wrapper that changes what the inner store does (fails or
    /// filters saves, answers with another model) keeps the default, or the caller would bypass it.
    func capability<C>(_ type: C.Type) -> C?
}

/// A store that evaluates some predicates, sorts, limits, offsets and result types itself.
///
/// The engine asks before each fetch. Answering `true` promises that ``PersistentStore/execute(_:)``
/// returns exactly what ``PredicateEvaluator`` would for the whole request; the conformance kit
/// compares the two on every operator. Answer `false` for what you cannot express, and the engine
/// sends a plain request and finishes the work in memory.
public protocol NativeQueryEvaluating: PersistentStore {
    /// Whether the store can run `request` as it stands (predicate, sorts, limit, offset and
    /// result type).
    func canEvaluateNatively(_ request: FetchRequest) -> Bool
}

/// A store that updates or deletes many objects without loading them into a context.
///
/// Batch operations bypass contexts, so they return the IDs they changed: callers merge those
/// into their contexts (``BatchResult``), and no context is left stale without knowing it.
public protocol BatchOperating: PersistentStore {
    /// Deletes every object of `entityName` matching `predicate` (all, when `nil`), ignoring
    /// relationships' delete rules, and returns the deleted IDs.
    func batchDelete(entityName: String, predicate: ObjectPredicate?) throws -> BatchResult
    /// Sets `values` (attribute name to new value) on every matching object, bumping each object's
    /// version, and returns the updated IDs.
    func batchUpdate(entityName: String, predicate: ObjectPredicate?, values: [String: Value]) throws -> BatchResult
}

/// What a batch operation changed.
public struct BatchResult: Sendable, Hashable {
    /// The objects the operation changed or deleted, in primary-key order.
    public var objectIDs: [ObjectID]
    /// Creates a result.
    public init(objectIDs: [ObjectID]) { self.objectIDs = objectIDs }
}
