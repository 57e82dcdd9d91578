/// An aggregate fetch: the objects of one entity matching a predicate, reduced to one dictionary
/// per group (or per object, or one for all), in Core Data's terms an `NSDictionaryResultType`
/// fetch with expression descriptions, `propertiesToGroupBy`, `havingPredicate` and
/// `returnsDistinctResults`.
///
/// ```swift
/// var request = AggregateRequest(entityName: "Employee")
/// request.propertiesToFetch = [.value("department.name", as: "department"), .count(as: "people"),
///                              .sum("salary", as: "payroll")]
/// request.propertiesToGroupBy = ["department.name"]
/// request.havingPredicate = try ObjectPredicate("people > 2")
/// request.sorts = [.descending("payroll")]
/// let rows = try context.fetchAggregates(request)   // [["department": ..., "people": ..., ...]]
/// ```
///
/// - Without grouping and with an aggregate column, the answer is one dictionary, also when no
///   object matches (counts and sums zero, the other functions null).
/// - With grouping, one dictionary per distinct combination of the group keys; null is a key of
///   its own. Every ``AggregateFunction/value`` column must then be one of the group keys.
/// - Without aggregate columns or grouping, one dictionary per object, as a dictionary fetch.
/// - ``havingPredicate`` filters the dictionaries; its key paths are column names.
/// - ``returnsDistinctResults`` keeps the first of equal dictionaries.
/// - Order: by ``sorts`` (column names), then by the group keys ascending (or, per object, by
///   primary key); ``offset`` and ``limit`` page the dictionaries.
///
/// A `Sendable` value with public fields, so new fields can be added without breaking stores.
public struct AggregateRequest: Sendable, Hashable {
    /// The entity whose objects are aggregated.
    public var entityName: String
    /// Which objects; `nil` means all.
    public var predicate: ObjectPredicate?
    /// When set, only these objects are considered (the predicate still applies).
    public var objectIDs: [ObjectID]?
    /// The columns of each result dictionary.
    public var propertiesToFetch: [AggregateProperty]
    /// The key paths whose values form the groups (through to-one relationships to attributes).
    public var propertiesToGroupBy: [PropertyPath]
    /// Which result dictionaries to keep, over column names; `nil` keeps all.
    public var havingPredicate: ObjectPredicate?
    /// Whether equal dictionaries are returned once.
    public var returnsDistinctResults: Bool
    /// The order of the dictionaries, by column names.
    public var sorts: [Sort]
    /// The most dictionaries to return; `nil` means no limit.
    public var limit: Int?
    /// How many dictionaries of the order to skip first.
    public var offset: Int

    /// Creates a request.
    public init(
        entityName: String,
        predicate: ObjectPredicate? = nil,
        propertiesToFetch: [AggregateProperty] = [],
        propertiesToGroupBy: [PropertyPath] = [],
        havingPredicate: ObjectPredicate? = nil,
        returnsDistinctResults: Bool = false,
        sorts: [Sort] = [],
        limit: Int? = nil,
        offset: Int = 0,
        objectIDs: [ObjectID]? = nil
    ) {
        self.entityName = entityName
        self.predicate = predicate
        self.objectIDs = objectIDs
        self.propertiesToFetch = propertiesToFetch
        self.propertiesToGroupBy = propertiesToGroupBy
        self.havingPredicate = havingPredicate
        self.returnsDistinctResults = returnsDistinctResults
        self.sorts = sorts
        self.limit = limit
        self.offset = offset
    }

    /// Whether the request reduces groups (an aggregate column or a group key) rather than
    /// returning one dictionary per object.
    public var isGrouped: Bool {
        !propertiesToGroupBy.isEmpty || propertiesToFetch.contains { $0.function.isAggregate }
    }

    /// The plain fetch that reads the objects this request aggregates: its entity, predicate and
    /// IDs, as snapshots. What an in-memory evaluation reads from a store.
    public var sourceRequest: FetchRequest {
        FetchRequest(entityName: entityName, predicate: predicate, objectIDs: objectIDs)
    }
}
