import StrataCore

/// What a context's locally decided live queries read, published for work done off the
/// context's queue: the parent that announces a pushed save matches the pushed objects against
/// these queries before the context's queue merges it (see ``PreparedLiveMerge``).
///
/// The registry publishes a new plan, with a new ``generation``, whenever its queries change;
/// a preparation made from an older plan is stale and is not used.
struct LiveMergePlan: Sendable {
    /// One locally decided query: what deciding a new object's membership and place reads.
    struct Query: Sendable {
        let key: Int
        let entityName: String
        let predicate: ObjectPredicate?
        let sorts: [Sort]
        let sectionKeyPath: PropertyPath?
    }

    /// Bumped by every change of the queries.
    var generation: UInt64 = 0
    var queries: [Query] = []
}

/// A pushed save's inserted objects matched against a context's live queries ahead of the
/// merge, off the context's queue: per query, the entries of the inserted objects that match,
/// ordered as the query orders. The context's queue then merges each run into its result in
/// one pass, with no predicate to evaluate, no entry to build and nothing to sort.
///
/// Built from the pushed states alone. It answers for an inserted object only while the merge
/// takes that object's state from the same push (the context neither holds the object loaded
/// nor lists it in a result already), and only for the queries of the plan it was made from;
/// the registry checks both and decides anything else on its queue, as without it.
struct PreparedLiveMerge: Sendable {
    /// The generation of the plan the runs were made from.
    let generation: UInt64
    /// The pushed states the runs were made from (the merge's known states).
    let states: [ObjectID: Snapshot]
    /// Per query key, the matching inserted objects' entries, in the query's order.
    let runs: [Int: [LiveEntry]]
    /// Entities every query of which has a run (a query whose predicate needs more than the
    /// object's own state has none, and its entity's objects are decided on the queue).
    let entities: Set<String>

    /// Matches the `inserted` objects among `states` against the queries of `plan`.
    init(plan: LiveMergePlan, inserted: Set<ObjectID>, states: [ObjectID: Snapshot], model: Model) {
        generation = plan.generation
        self.states = states
        var byEntity: [String: [Snapshot]] = [:]
        for id in inserted {
            guard let state = states[id], state.objectID == id else { continue }
            byEntity[id.entityName, default: []].append(state)
        }
        var runs: [Int: [LiveEntry]] = [:]
        var unprepared: Set<String> = []
        // An object's own state answers a locally decided query; one that reaches further
        // (it should not) leaves its entity to the queue.
        let evaluator = PredicateEvaluator(model: model) { _ in throw PreparationError.readsOtherObjects }
        for query in plan.queries {
            guard let states = byEntity[query.entityName] else { continue }
            do {
                var run: [LiveEntry] = []
                for state in states where try query.predicate.map({ try evaluator.evaluate($0, on: state) }) ?? true {
                    run.append(
                        try LiveEntry(
                            of: state, sorts: query.sorts, sectionKeyPath: query.sectionKeyPath, evaluator: evaluator))
                }
                run.sort(by: LiveOrder(sorts: query.sorts).precedes)
                runs[query.key] = run
            } catch {
                unprepared.insert(query.entityName)
            }
        }
        self.runs = runs
        entities = Set(byEntity.keys).subtracting(unprepared)
    }

    private enum PreparationError: Error {
        case readsOtherObjects
    }
}
