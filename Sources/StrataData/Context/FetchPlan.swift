import Foundation
import StrataCore

/// The engine's request for the fetch descriptors of one shape: one model type, one list of
/// sorts, and no predicate or a predicate of one shape (its expression's type, key paths and
/// operators; see ``PredicateShape``) whose translation is kept with its constants as
/// placeholders.
///
/// A context keeps the plans of the descriptors it fetches (``FetchPlans``): a fetch repeated
/// with other constants (`$0.key == key` in a loop) reads the constants out of its predicate
/// and fills them into the plan's request, instead of translating the predicate and the sorts
/// again.
@usableFromInline
final class FetchPlan {
    /// The model type fetched.
    let modelType: ObjectIdentifier
    /// The descriptor's sorts, by key path and order.
    let sortKeys: [FetchSortKey]
    /// What the descriptor's predicate is.
    let predicate: PredicateKind
    /// The request for the descriptor that made the plan, without its limit and offset: the
    /// entity, the sorts and the predicate translated.
    let request: FetchRequest

    /// A plan's predicate.
    enum PredicateKind {
        /// The descriptor has none.
        case none
        /// The descriptor's predicate has a kept shape: its expression is of the type `reader`
        /// conforms with (found once), and its shape's key is `key`.
        case kept(reader: any PredicateShapeCondition.Type, key: PredicateShape.Key, constantCount: Int)

        /// The expression type of the predicates of the plan.
        var expressionType: ObjectIdentifier? {
            switch self {
            case .none: nil
            case .kept(_, let key, _): key.expressionType
            }
        }
    }

    init(modelType: ObjectIdentifier, sortKeys: [FetchSortKey], predicate: PredicateKind, request: FetchRequest) {
        self.modelType = modelType
        self.sortKeys = sortKeys
        self.predicate = predicate
        self.request = request
    }

    /// The request for a descriptor of this plan's shape whose predicate has these parts (nil
    /// for none), or nil when the predicate does not have the plan's shape.
    func request(predicate parts: PredicateParts?) -> FetchRequest? {
        switch predicate {
        case .none:
            return parts == nil ? request : nil
        case .kept(let reader, let key, let constantCount):
            guard let parts,
                let constants = reader.constants(of: parts.expression, root: parts.root, ifItsKeyIs: key),
                constants.count == constantCount, let template = request.predicate
            else { return nil }
            var request = request
            request.predicate = template.replacingConstantOperands(with: constants)
            return request
        }
    }
}

/// One sort of a fetch descriptor, as its plan compares it: the key path and the order (the
/// translation ignores the comparator: strings sort by Unicode scalars on every store).
@usableFromInline
struct FetchSortKey: Equatable {
    @usableFromInline let keyPath: AnyKeyPath?
    @usableFromInline let ascending: Bool

    @inlinable
    init<T>(_ descriptor: SortDescriptor<T>) {
        keyPath = descriptor.keyPath
        ascending = descriptor.order == .forward
    }
}

/// The fetch plans of one context, the one it made last first (a loop of fetches of one shape
/// finds it at once). Used on the context's thread only, like the context.
@usableFromInline
final class FetchPlans {
    // Read and replaced by the context's fetches only, one at a time (the context is used
    // from one thread at a time).
    private var plans: [FetchPlan] = []
    /// How many plans the context made: for tests.
    private(set) var madeCount = 0

    /// At most this many plans are kept; the oldest goes when a new one comes.
    static let capacity = 16

    init() {}

    /// The request of a kept plan for a descriptor of `modelType` with these sorts and a
    /// predicate of these parts (nil for none), or nil when no plan fits.
    @usableFromInline
    func request(modelType: ObjectIdentifier, predicate: PredicateParts?, sortKeys: [FetchSortKey]) -> FetchRequest? {
        let expressionType: ObjectIdentifier? =
            if let predicate { ObjectIdentifier(type(of: predicate.expression)) } else { nil }
        for plan in plans
        where plan.modelType == modelType && plan.predicate.expressionType == expressionType
            && plan.sortKeys == sortKeys
        {
            if let request = plan.request(predicate: predicate) { return request }
        }
        return nil
    }

    /// Keeps `plan`, first.
    func add(_ plan: FetchPlan) {
        madeCount += 1
        if plans.count >= Self.capacity { plans.removeLast() }
        plans.insert(plan, at: 0)
    }
}
