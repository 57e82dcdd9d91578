import Foundation

/// What to fetch: SwiftData's `FetchDescriptor`.
///
/// ```swift
/// var descriptor = FetchDescriptor<Trip>(
///     predicate: #Predicate { $0.destination == "Oslo" }, sortBy: [SortDescriptor(\.startDate)])
/// descriptor.fetchLimit = 10
/// let trips = try context.fetch(descriptor)
/// ```
public struct FetchDescriptor<T: PersistentModel> {
    /// Which models; `nil` for all of them.
    public var predicate: Predicate<T>? {
        didSet { predicateParts = PredicateParts(predicate) }
    }
    /// The order of the results.
    public var sortBy: [SortDescriptor<T>]
    /// At most this many results.
    public var fetchLimit: Int?
    /// Skips this many results first.
    public var fetchOffset: Int?
    /// Whether the results include the context's unsaved changes (true by default).
    public var includePendingChanges: Bool
    /// Accepted for source compatibility: Strata fetches whole objects, which fill on first use.
    public var propertiesToFetch: [PartialKeyPath<T>]
    /// Relationships whose models are fetched with the results.
    public var relationshipKeyPathsForPrefetching: [PartialKeyPath<T>]

    /// The predicate's expression and input, as a fetch reads them: read once here, because
    /// each read of `predicate` copies it through the runtime's value witnesses (its input is a
    /// parameter pack).
    @usableFromInline private(set) var predicateParts: PredicateParts?

    /// A descriptor of the models matching `predicate`, ordered by `sortBy`.
    @inlinable
    public init(predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = []) {
        predicateParts = PredicateParts(predicate)
        self.predicate = predicate
        self.sortBy = sortBy
        self.fetchLimit = nil
        self.fetchOffset = nil
        self.includePendingChanges = true
        self.propertiesToFetch = []
        self.relationshipKeyPathsForPrefetching = []
    }
}

/// What a fetch reads of a descriptor's `#Predicate`: its expression and its input variable.
@usableFromInline
struct PredicateParts {
    @usableFromInline let expression: any StandardPredicateExpression<Bool>
    @usableFromInline let root: PredicateExpressions.VariableID

    @inlinable
    init?<T>(_ predicate: Predicate<T>?) {
        guard let predicate else { return nil }
        expression = predicate.expression
        root = predicate.variable.key
    }
}
