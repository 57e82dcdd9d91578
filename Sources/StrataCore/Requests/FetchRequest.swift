/// A question for a store: which objects of one entity, in what order, and in what form.
///
/// A `Sendable` value with public fields, so new fields can be added without breaking stores.
///
/// Order: by ``sorts``, ties broken by primary key; with no sorts, by primary key. ``offset``
/// skips that many results of this order, then ``limit`` keeps at most that many.
public struct FetchRequest: Sendable, Hashable {
    /// What a fetch returns.
    public enum ResultType: Sendable, Hashable {
        /// Full snapshots.
        case snapshots
        /// Object IDs only.
        case objectIDs
        /// The number of matching objects (``limit`` and ``offset`` apply).
        case count
        /// For each object, the values of ``FetchRequest/propertiesToFetch`` keyed by path.
        case dictionaries
    }

    /// The entity to fetch.
    public var entityName: String { didSet { validation = .unchecked } }
    /// Which objects; `nil` means all.
    public var predicate: ObjectPredicate? { didSet { validation = .unchecked } }
    /// The order; empty means primary-key order.
    public var sorts: [Sort] { didSet { validation = .unchecked } }
    /// The most results to return; `nil` means no limit.
    public var limit: Int? { didSet { validation = .unchecked } }
    /// How many results of the order to skip first.
    public var offset: Int { didSet { validation = .unchecked } }
    /// For the engine: how many objects to materialize at a time. Stores may ignore it.
    public var batchSize: Int? { didSet { validation = .unchecked } }
    /// The form of the result.
    public var resultType: ResultType { didSet { validation = .unchecked } }
    /// For ``ResultType/dictionaries``: attribute key paths (through to-one relationships allowed).
    public var propertiesToFetch: [PropertyPath] { didSet { validation = .unchecked } }
    /// When set, only these objects are considered (the predicate still applies). Every store
    /// honours this field natively: it is a lookup by primary key. IDs of another entity, of another
    /// store, or of deleted objects are skipped.
    public var objectIDs: [ObjectID]? { didSet { validation = .unchecked } }
    /// Whether, and against which model, ``validated(for:)`` checked this request; changing any
    /// field above forgets it. Never part of the request's equality.
    package var validation: FetchRequestValidation = .unchecked

    /// Creates a request for every object of `entityName` as snapshots.
    public init(
        entityName: String,
        predicate: ObjectPredicate? = nil,
        sorts: [Sort] = [],
        limit: Int? = nil,
        offset: Int = 0,
        resultType: ResultType = .snapshots,
        propertiesToFetch: [PropertyPath] = [],
        objectIDs: [ObjectID]? = nil
    ) {
        self.entityName = entityName
        self.predicate = predicate
        self.sorts = sorts
        self.limit = limit
        self.offset = offset
        self.batchSize = nil
        self.resultType = resultType
        self.propertiesToFetch = propertiesToFetch
        self.objectIDs = objectIDs
    }

    /// Checks the request's own fields (not the model): non-negative limit and offset, properties
    /// for a dictionary fetch.
    public func validateShape() throws {
        if let limit, limit < 0 {
            throw StrataError(.invalidRequest, "fetch limit \(limit) is negative", location: ["entity": entityName])
        }
        if offset < 0 {
            throw StrataError(.invalidRequest, "fetch offset \(offset) is negative", location: ["entity": entityName])
        }
        if let batchSize, batchSize < 0 {
            throw StrataError(.invalidRequest, "batch size \(batchSize) is negative", location: ["entity": entityName])
        }
        if resultType == .dictionaries && propertiesToFetch.isEmpty {
            throw StrataError(
                .invalidRequest, "a dictionary fetch needs properties to fetch", location: ["entity": entityName])
        }
    }
}

/// The answer to a ``FetchRequest``, in the form it asked for.
public enum FetchResult: Sendable, Hashable {
    /// Full snapshots, in the request's order.
    case snapshots([Snapshot])
    /// IDs, in the request's order.
    case objectIDs([ObjectID])
    /// A count.
    case count(Int)
    /// One dictionary per object, keyed by the dotted property path; missing targets give ``Value/null``.
    case dictionaries([[String: Value]])

    /// The snapshots, or an error when the result has another form.
    public func snapshots() throws -> [Snapshot] {
        guard case .snapshots(let s) = self else { throw mismatch("snapshots") }
        return s
    }

    /// The IDs (snapshots are reduced to their IDs).
    public func objectIDs() throws -> [ObjectID] {
        switch self {
        case .objectIDs(let ids): return ids
        case .snapshots(let s): return s.map(\.objectID)
        default: throw mismatch("object IDs")
        }
    }

    /// The count (a list is counted).
    public func count() throws -> Int {
        switch self {
        case .count(let n): return n
        case .snapshots(let s): return s.count
        case .objectIDs(let ids): return ids.count
        case .dictionaries(let d): return d.count
        }
    }

    /// The dictionaries, or an error when the result has another form.
    public func dictionaries() throws -> [[String: Value]] {
        guard case .dictionaries(let d) = self else { throw mismatch("dictionaries") }
        return d
    }

    private func mismatch(_ wanted: String) -> StrataError {
        StrataError(.internalInconsistency, "the store returned another result form than \(wanted)")
    }
}
