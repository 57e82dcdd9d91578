import StrataCore

/// One live query on one context: its request, what the request reads, and the current result
/// as ordered entries, kept up to date from changed objects (see ``LiveRegistry``). Confined to
/// the context's queue.
final class LiveSubscription {
    /// How a change reaches this query.
    enum Reach {
        /// Changed objects of the entity are matched one by one.
        case local
        /// Any change of the entity makes the query run again (an offset: an object before the
        /// window moves it).
        case entityRefetch
        /// Any change at all makes the query run again (key paths through relationships).
        case anyRefetch
    }

    let key: Int
    let request: FetchRequest
    let order: LiveOrder
    let sectionKeyPath: PropertyPath?
    /// The slots the predicate, sorts and section key path read (``ChangeSet`` slots).
    let slots: ChangeSet.Slots
    let reach: Reach
    /// The values one attribute must hold for an object to match, when the predicate says so.
    let equalityLookup: EqualityLookup?
    let sink: any LiveSink
    /// The current result, in order.
    private(set) var entries: [LiveEntry] = []
    /// The current members, with the entry each is filed under.
    private(set) var members: [ObjectID: LiveEntry] = [:]
    /// Whether objects that match may lie past a full limit window (then a member leaving needs
    /// the next row: a refetch).
    private var windowMayHaveMore = false
    /// The state handed out last.
    private var lastState: LiveState?

    init(key: Int, request: FetchRequest, sectionKeyPath: PropertyPath?, entity: Entity, sink: any LiveSink) {
        self.key = key
        self.request = request
        self.order = LiveOrder(sorts: request.sorts)
        self.sectionKeyPath = sectionKeyPath
        self.sink = sink
        var reads = RequestReads(request, entity: entity)
        if let sectionKeyPath { reads.read(sectionKeyPath, of: entity) }
        self.slots = reads.slots
        let comparable = Set(
            entity.attributes.indices.filter { index in
                switch entity.attributeType(at: index) {
                case .integer16, .integer32, .integer64, .string, .boolean, .date, .uuid: return true
                default: return false
                }
            })
        equalityLookup = EqualityLookup(request.predicate, in: entity, indexed: comparable)
        if reads.followsRelationships {
            reach = .anyRefetch
        } else if request.offset > 0 {
            reach = .entityRefetch
        } else {
            reach = .local
        }
    }

    /// The entry of `snapshot` (which matches the predicate).
    func entry(for snapshot: Snapshot, evaluator: PredicateEvaluator) throws -> LiveEntry {
        try LiveEntry(of: snapshot, sorts: request.sorts, sectionKeyPath: sectionKeyPath, evaluator: evaluator)
    }

    /// Runs the query against `context` (pending changes included) and takes its answer;
    /// returns the members' snapshots.
    @discardableResult
    func load(from context: ObjectContext) throws -> [Snapshot] {
        let snapshots = try context.resolve(request, options: FetchOptions())
        let evaluator = context.contextEvaluator()
        var loaded = try snapshots.map { try entry(for: $0, evaluator: evaluator) }
        // Stores order as the engine does; should one differ (a collation), the kept order wins
        // for a query kept locally, so binary searches stay right. A query that always refetches
        // keeps the answer's order as it is.
        if reach == .local, !order.isOrdered(loaded) { loaded.sort(by: order.precedes) }
        entries = loaded
        members = [:]
        members.reserveHeadroom(adding: loaded.count)
        for entry in loaded { members[entry.objectID] = entry }
        windowMayHaveMore = request.limit.map { loaded.count >= $0 } ?? false
        return snapshots
    }

    /// One changed object as the registry hands it over.
    struct Change {
        let objectID: ObjectID
        /// Its current state; `nil` when it is deleted or gone.
        let snapshot: Snapshot?
        /// Whether the change may touch what the query reads (else it can only be reported as
        /// updated, when the object is a member).
        let touchesReads: Bool
    }

    /// What applying changes did.
    struct Outcome {
        var needsRefetch = false
        var updated: Set<ObjectID> = []
        var evaluated = 0
        var membershipUpdates = 0
        /// Comparisons of entries made to place the new ones (see ``LiveOrder/merge``).
        var comparisons = 0
        /// Tables that grew (rehashing every entry) to take the new members.
        var tablesGrown = 0
        /// Entries that left and joined (for the registry's membership index).
        var left: [ObjectID] = []
        var joined: [ObjectID] = []
    }

    /// Applies `changes` and the `prepared` entries (of objects that match and are not members,
    /// in this query's order) to the result without a refetch, unless one is needed (then
    /// ``Outcome/needsRefetch`` is set and the result is left as it was).
    func apply(_ changes: [Change], prepared: [LiveEntry] = [], evaluator: PredicateEvaluator) throws -> Outcome {
        var outcome = Outcome()
        var removed: [LiveEntry] = []
        var added: [LiveEntry] = []
        for change in changes {
            let old = members[change.objectID]
            guard change.touchesReads || change.snapshot == nil else {
                if old != nil {
                    outcome.updated.insert(change.objectID)
                    outcome.membershipUpdates += 1
                }
                continue
            }
            var new: LiveEntry?
            if let snapshot = change.snapshot {
                outcome.evaluated += 1
                if try request.predicate.map({ try evaluator.evaluate($0, on: snapshot) }) ?? true {
                    new = try entry(for: snapshot, evaluator: evaluator)
                }
            }
            switch (old, new) {
            case (let old?, let new?):
                outcome.updated.insert(change.objectID)
                if old.sortKeys != new.sortKeys || old.section != new.section {
                    removed.append(old)
                    added.append(new)
                }
            case (let old?, nil):
                removed.append(old)
            case (nil, let new?):
                added.append(new)
            case (nil, nil):
                continue
            }
        }
        guard !removed.isEmpty || !added.isEmpty || !prepared.isEmpty else { return outcome }
        // A member that moved is in both lists: it neither joined nor left.
        let moved = removed.isEmpty || added.isEmpty ? [] : Set(removed.map(\.objectID))
        if request.limit == nil {
            // No window to check first: the entries change in place.
            order.merge(
                &entries, removing: removed, adding: added, addingOrdered: prepared, comparisons: &outcome.comparisons)
            for entry in removed { members[entry.objectID] = nil }
            if members.reserveHeadroom(adding: added.count + prepared.count) { outcome.tablesGrown += 1 }
            for entry in added { members[entry.objectID] = entry }
            for entry in prepared { members[entry.objectID] = entry }
            for entry in removed where members[entry.objectID] == nil { outcome.left.append(entry.objectID) }
            outcome.joined.reserveCapacity(added.count + prepared.count)
            for entry in added where !moved.contains(entry.objectID) { outcome.joined.append(entry.objectID) }
            for entry in prepared { outcome.joined.append(entry.objectID) }
            outcome.updated = outcome.updated.filter { members[$0] != nil }
            return outcome
        }
        // A window to check: the prepared entries take the general path.
        added += prepared
        var merged = order.merging(entries, removing: removed, adding: added)
        var dropped: [LiveEntry] = []
        if let limit = request.limit {
            if windowMayHaveMore, let oldLast = entries.last {
                // Unread matches lie after the old last entry: the new window is known only
                // when it is full and ends no later than that.
                if merged.count < limit || order.precedes(oldLast, merged[limit - 1]) {
                    outcome.needsRefetch = true
                    return outcome
                }
            }
            if merged.count > limit {
                dropped = Array(merged[limit...])
                merged.removeSubrange(limit...)
                windowMayHaveMore = true
            }
        }
        for entry in removed { members[entry.objectID] = nil }
        for entry in added { members[entry.objectID] = entry }
        for entry in dropped { members[entry.objectID] = nil }
        entries = merged
        for entry in removed + dropped where members[entry.objectID] == nil { outcome.left.append(entry.objectID) }
        for entry in added where members[entry.objectID] != nil && !moved.contains(entry.objectID) {
            outcome.joined.append(entry.objectID)
        }
        outcome.updated = outcome.updated.filter { members[$0] != nil }
        return outcome
    }

    /// Whether a member's new ID may move it to the end of a full limit window, which then
    /// needs the next row (a temporary ID sorts apart from permanent ones).
    var renamingNeedsRefetch: Bool { windowMayHaveMore }

    /// Replaces member IDs by their new ones (temporary IDs that became permanent); returns
    /// how many members were renamed.
    ///
    /// Complexity: O(n) to find them. A renamed entry keeps its sort values, so it can only
    /// leave its place among the entries it ties with (ties are ordered by ID, and a permanent
    /// ID sorts apart from a temporary one): each such run of ties is put back in order, in
    /// O(t log t) for t ties, and the rest of the result is not touched.
    func rename(_ renamed: [ObjectID: ObjectID]) -> Int {
        var renamedIndexes: [Int] = []
        // Only temporary IDs are renamed: the others are not looked up.
        for index in entries.indices where entries[index].objectID.isTemporary {
            guard let new = renamed[entries[index].objectID] else { continue }
            members[entries[index].objectID] = nil
            entries[index].objectID = new
            members[new] = entries[index]
            renamedIndexes.append(index)
        }
        // Only renamed entries changed: the result is in order when each is with its neighbours.
        var orderedThrough = 0
        for index in renamedIndexes where index >= orderedThrough {
            guard
                (index > 0 && !order.precedes(entries[index - 1], entries[index]))
                    || (index + 1 < entries.count && !order.precedes(entries[index], entries[index + 1]))
            else { continue }
            let ties = order.ties(of: index, in: entries)
            entries[ties].sort(by: order.precedes)
            reorderedByRenames += ties.count
            orderedThrough = ties.upperBound
        }
        assert(order.isOrdered(entries), "a live query's entries are out of order after renaming")
        return renamedIndexes.count
    }

    /// Entries put back in order among their ties after renames, since the subscription began.
    private(set) var reorderedByRenames = 0

    /// Hands the current state to the sink when it differs from the last one handed out, or
    /// when members were updated.
    func deliver(updated: Set<ObjectID>) {
        let state = LiveState(objectIDs: entries.map(\.objectID), sections: sections())
        if let lastState, updated.isEmpty, lastState.objectIDs == state.objectIDs,
            lastState.sections == state.sections
        {
            return
        }
        lastState = state
        sink.receive(state, updated: updated)
    }

    /// The runs of equal section values, when the query has a section key path.
    private func sections() -> [LiveSection]? {
        guard sectionKeyPath != nil else { return nil }
        var sections: [LiveSection] = []
        var start = 0
        for index in entries.indices.dropFirst() where entries[index].section != entries[start].section {
            sections.append(LiveSection(value: entries[start].section, range: start..<index))
            start = index
        }
        if !entries.isEmpty {
            sections.append(LiveSection(value: entries[start].section, range: start..<entries.count))
        }
        return sections
    }
}
