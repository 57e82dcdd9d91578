/// A store: the one protocol every backend implements, ours and third parties'.
///
/// The required surface is small: metadata, reading snapshots, atomic save, permanent IDs, close.
/// A store reads with one primitive, ``snapshots(of:among:)``, and answers every fetch through
/// ``fetch(_:)``, whose default implementation evaluates the whole request in memory over that
/// primitive. A store that can do better (an index, a query language) implements ``fetch(_:)``
/// itself and falls back to ``fetchInMemory(_:)`` for what it cannot express. Other abilities
/// are optional protocols (``BatchOperating``, ``SnapshotServing``, ``KeyPreservingStore``); the
/// engine asks for them through ``capability(_:)`` and uses its own code when a store has none.
/// New requirements will arrive with default implementations, so existing stores keep compiling.
///
/// Stores are called synchronously from any thread (contexts run on their own queues) and must be
/// safe for that: a `final class` guarding its state with a lock, a connection pool, or an
/// environment with thread-safe transactions.
///
/// ## Implementation requirements
///
/// Pass the conformance kit (`StrataConformance`): it checks each point below.
///
/// - **Read** (``snapshots(of:among:)``): every stored snapshot of the entity in primary-key
///   order, or, given IDs, the stored ones among them, each once, in primary-key order. IDs of
///   another entity or store, temporary IDs and IDs of objects not stored are skipped.
/// - **Fetch** (``fetch(_:)``, optional): answer the whole request (predicate, sorts, limit,
///   offset, result type) exactly as ``fetchInMemory(_:)`` does; the conformance kit compares
///   the two on every operator. Check the request first with ``FetchRequest/validated(for:)``,
///   which costs nothing when the engine already checked it. Plan the request once; what the plan
///   cannot express, answer with ``fetchInMemory(_:)``. Results follow the request's order, ties
///   broken by primary key; with no sorts, primary-key order.
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

    /// The stored snapshots of `entityName`, in primary-key order: all of them, or with `ids`,
    /// those of `ids` this store holds, each once. IDs of another entity or store, temporary IDs
    /// and IDs of objects not stored are skipped.
    ///
    /// The one read a store must implement; the default ``fetch(_:)`` builds on it.
    ///
    /// - Throws: ``StrataError/Code/unknownEntity`` for an entity the model lacks,
    ///   ``StrataError/Code/storeClosed`` when the store is closed.
    func snapshots(of entityName: String, among ids: [ObjectID]?) throws -> [Snapshot]

    /// Answers `request` whole: its entity, IDs, predicate, sorts, offset, limit and result type.
    ///
    /// The default implementation is ``fetchInMemory(_:)``. Implement it to evaluate natively:
    /// check the request with ``FetchRequest/validated(for:)``, plan it once, and answer what the
    /// plan cannot express with ``fetchInMemory(_:)``.
    ///
    /// - Throws: ``StrataError/Code/unknownEntity``, ``StrataError/Code/unknownKey``,
    ///   ``StrataError/Code/invalidPredicate`` or ``StrataError/Code/invalidRequest`` for a request
    ///   that does not fit the model; the store's errors otherwise.
    func fetch(_ request: FetchRequest) throws -> FetchResult

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
