import StrataCore

/// A context's live queries, indexed so that a change visits only the queries it can affect:
/// by entity, by the slots (properties) each query reads, and by member. Confined to the
/// context's queue.
///
/// For each changed object of an entity with queries, the registry knows its current state (from
/// the context, else the store) and which of its slots may have changed (the context's change
/// set says so for its own changes; a merged change may have changed anything). It then visits
/// the queries that read one of those slots (the object may join, leave or move) and the queries
/// that hold the object (it is at least updated); no other query hears of it.
final class LiveRegistry {
    private var subscriptions: [Int: LiveSubscription] = [:]
    /// Per entity, its queries decided locally, by slot.
    private var indexes: [String: EntityIndex] = [:]
    /// The queries each object is a member of (locally decided queries only), with the state it
    /// was last matched in. One table for both: a merge that grows a long list grows one table,
    /// and each object is hashed once for both.
    private var memberships: [ObjectID: Membership] = [:]
    /// Queries that run again on any change of one entity, or of any.
    private var refetchingOnEntity: [String: Set<Int>] = [:]
    private var refetchingOnAny: Set<Int> = []
    /// Temporary IDs made permanent since the last change, to rename in the results.
    private var renamed: [ObjectID: ObjectID] = [:]
    private var nextKey = 0
    private(set) var statistics = LiveQueryStatistics()
    /// Where the locally decided queries are published for merges prepared off the queue.
    private let plan: Locked<LiveMergePlan>
    /// The generation of the plan published last.
    private var planGeneration: UInt64 = 0

    init(publishingTo plan: Locked<LiveMergePlan>) {
        self.plan = plan
    }

    /// The queries of one entity: those whose predicate requires an attribute to equal a
    /// constant (`key == 7`, or ANDed with it) by that attribute's value, the others by the slots
    /// they read. A changed object visits the first kind only under the value it holds now: a
    /// query on `key == 7` never hears of an object whose key is 8 (unless it holds it).
    private struct EntityIndex {
        var bySlot: [Int: Set<Int>] = [:]
        /// Attribute position to value to queries.
        var byValue: [Int: [Value: Set<Int>]] = [:]
        /// Attribute position to the slots its value-indexed queries read.
        var valueSlots: [Int: ChangeSet.Slots] = [:]
        var all: Set<Int> = []
        /// The queries in ``bySlot``.
        var unvalued: Set<Int> = []
    }

    /// The locally decided queries an object is a member of, and the state it was last matched
    /// in: a later change of it is compared with this to know which slots (properties) it
    /// changed.
    private struct Membership {
        var keys: [Int] = []
        var lastSeen: Snapshot?
    }

    var isEmpty: Bool { subscriptions.isEmpty }

    /// Adds a subscription made by `make` (given its key), after loading its first result from
    /// `context`, and hands that result to its sink.
    func add(
        in context: ObjectContext, _ make: (Int) -> LiveSubscription
    ) throws -> Int {
        nextKey += 1
        let subscription = make(nextKey)
        let snapshots = try subscription.load(from: context)
        subscriptions[subscription.key] = subscription
        let entity = subscription.request.entityName
        switch subscription.reach {
        case .local:
            var index = indexes[entity, default: EntityIndex()]
            index.all.insert(subscription.key)
            if let lookup = subscription.equalityLookup {
                for value in lookup.values {
                    index.byValue[lookup.attribute, default: [:]][value, default: []].insert(subscription.key)
                }
                index.valueSlots[lookup.attribute, default: 0] |= subscription.slots
            } else {
                index.unvalued.insert(subscription.key)
                var slots = subscription.slots
                while slots != 0 {
                    index.bySlot[slots.trailingZeroBitCount, default: []].insert(subscription.key)
                    slots &= slots - 1
                }
            }
            indexes[entity] = index
            memberships.reserveHeadroom(adding: snapshots.count)
            for snapshot in snapshots {
                memberships[snapshot.objectID, default: Membership()].keys.append(subscription.key)
                memberships[snapshot.objectID]?.lastSeen = snapshot
            }
        case .entityRefetch:
            refetchingOnEntity[entity, default: []].insert(subscription.key)
        case .anyRefetch:
            refetchingOnAny.insert(subscription.key)
        }
        statistics.subscriptions = subscriptions.count
        if subscription.reach == .local { publishPlan() }
        subscription.deliver(updated: [])
        return subscription.key
    }

    /// Removes the subscription `key` (its sequence or controller went away).
    func remove(_ key: Int) {
        guard let subscription = subscriptions.removeValue(forKey: key) else { return }
        let entity = subscription.request.entityName
        switch subscription.reach {
        case .local:
            indexes[entity]?.all.remove(key)
            indexes[entity]?.unvalued.remove(key)
            if let lookup = subscription.equalityLookup {
                for value in lookup.values { indexes[entity]?.byValue[lookup.attribute]?[value]?.remove(key) }
            } else {
                for slot in indexes[entity]?.bySlot.keys.map({ $0 }) ?? [] {
                    indexes[entity]?.bySlot[slot]?.remove(key)
                }
            }
            if indexes[entity]?.all.isEmpty == true { indexes[entity] = nil }
            for id in subscription.members.keys { removeMembership(of: id, in: key) }
        case .entityRefetch:
            refetchingOnEntity[entity]?.remove(key)
            if refetchingOnEntity[entity]?.isEmpty == true { refetchingOnEntity[entity] = nil }
        case .anyRefetch:
            refetchingOnAny.remove(key)
        }
        statistics.subscriptions = subscriptions.count
        if subscription.reach == .local { publishPlan() }
    }

    /// Publishes the locally decided queries, under a new generation: a merge prepared from
    /// the plan before is stale from now on.
    private func publishPlan() {
        planGeneration += 1
        let published = LiveMergePlan(
            generation: planGeneration,
            queries: subscriptions.values.filter { $0.reach == .local }.map { subscription in
                LiveMergePlan.Query(
                    key: subscription.key, entityName: subscription.request.entityName,
                    predicate: subscription.request.predicate, sorts: subscription.request.sorts,
                    sectionKeyPath: subscription.sectionKeyPath)
            })
        plan.withLock { $0 = published }
    }

    /// Ends every subscription (the context went away).
    func finishAll() {
        for subscription in subscriptions.values { subscription.sink.finish(throwing: nil) }
        subscriptions = [:]
        publishPlan()
    }

    /// How many live queries list `id` as a member, by the membership index (each once).
    func membershipCount(of id: ObjectID) -> Int { memberships[id]?.keys.count ?? 0 }

    private func removeMembership(of id: ObjectID, in key: Int) {
        guard var membership = memberships[id] else { return }
        if let position = membership.keys.firstIndex(of: key) {
            membership.keys.swapAt(position, membership.keys.count - 1)
        }
        if membership.keys.last == key { membership.keys.removeLast() }
        memberships[id] = membership.keys.isEmpty ? nil : membership
    }

    // MARK: Changes

    /// Notes that `old` is now `new` (a temporary ID made permanent); applied at the next
    /// ``flushRenames(in:)``.
    func noteRename(from old: ObjectID, to new: ObjectID) {
        renamed[old] = new
    }

    /// Renames members whose IDs became permanent, and hands their queries' new states out.
    func flushRenames(in context: ObjectContext) {
        guard !renamed.isEmpty else { return }
        let renamed = self.renamed
        self.renamed = [:]
        var touched: Set<Int> = []
        for (old, new) in renamed {
            guard let membership = memberships.removeValue(forKey: old) else { continue }
            memberships[new] = membership
            touched.formUnion(membership.keys)
        }
        // Queries that refetch hold temporary IDs too: run them again.
        var refetching = Set(refetchingOnAny).union(refetchingOnEntity.values.joined())
        // Every sink that may hold an old ID hears of the renames before its next state.
        for key in touched.union(refetching).sorted() { subscriptions[key]?.sink.rename(renamed) }
        for key in touched.sorted() {
            guard let subscription = subscriptions[key] else { continue }
            if subscription.renamingNeedsRefetch {
                refetching.insert(key)
                continue
            }
            let reordered = subscription.reorderedByRenames
            let count = subscription.rename(renamed)
            statistics.entriesReorderedByRenames += subscription.reorderedByRenames - reordered
            if count > 0 { subscription.deliver(updated: []) }
        }
        refetch(refetching, in: context)
    }

    /// Runs every query again (after a reset, a rollback, or a change nobody described).
    func refetchAll(in context: ObjectContext) {
        renamed = [:]
        refetch(Set(subscriptions.keys), in: context)
    }

    /// Brings every query up to date with `changes`. The slots an updated member changed are
    /// those in which it differs from its state when last matched; any other changed object may
    /// have changed any slot. `knownStates` are current states of changed objects the context
    /// has not loaded, when the caller has them (else they are read where the context reads
    /// from).
    ///
    /// With `prepared` (made from `knownStates` off the queue), the inserted objects it decided
    /// for join their queries as it says, in one merge of its ordered runs: each that the
    /// context holds loaded or lists already, and every object when the queries changed since
    /// the preparation, is decided here instead.
    func apply(
        _ changes: ContextChanges, in context: ObjectContext, knownStates: [ObjectID: Snapshot] = [:],
        prepared: PreparedLiveMerge? = nil
    ) {
        guard !subscriptions.isEmpty, !changes.isEmpty else { return }
        flushRenames(in: context)
        var prepared = prepared
        if let stale = prepared, stale.generation != planGeneration {
            // The queries changed since: their runs may miss one, or hold one that went away.
            statistics.preparedMergeFallbacks += 1
            prepared = nil
        }
        var refetching = refetchingOnAny
        var perSubscription: [Int: [LiveSubscription.Change]] = [:]
        var preparedRuns: [Int: [LiveEntry]] = [:]
        var byEntity: [String: [(id: ObjectID, isDeleted: Bool)]] = [:]
        var seen: [(id: ObjectID, snapshot: Snapshot?)] = []
        // An ID may be listed twice (an object written while it was being inserted): once each.
        for id in changes.inserted where !changes.deleted.contains(id) {
            byEntity[id.entityName, default: []].append((id, false))
        }
        for id in changes.updated where !changes.inserted.contains(id) && !changes.deleted.contains(id) {
            byEntity[id.entityName, default: []].append((id, false))
        }
        for id in changes.deleted { byEntity[id.entityName, default: []].append((id, true)) }
        for (entity, listed) in byEntity {
            if let keys = refetchingOnEntity[entity] { refetching.formUnion(keys) }
            guard let index = indexes[entity] else { continue }
            var ids = listed
            if let prepared, prepared.entities.contains(entity) {
                ids = takePrepared(
                    from: listed, of: index, prepared, changes: changes, in: context, runs: &preparedRuns, seen: &seen)
            }
            let current: [ObjectID: Snapshot?]
            do {
                current = try currentSnapshots(of: ids, in: context, known: knownStates)
            } catch {
                refetching.formUnion(index.all)
                continue
            }
            for (listed, isDeleted) in ids {
                let snapshot = isDeleted ? nil : current[listed] ?? nil
                // Under its permanent ID when it got one while this context was reading it.
                let id = snapshot?.objectID ?? listed
                let membership = memberships[id]
                let memberOf = membership?.keys ?? []
                var reading: Set<Int> = []
                var slots = ChangeSet.allSlots
                if let snapshot, let old = membership?.lastSeen, !changes.inserted.contains(listed) {
                    slots = ChangeSet.slots(
                        changingAttributes: old.attributes, old.relationships, to: snapshot.attributes,
                        snapshot.relationships)
                }
                seen.append((id, snapshot))
                if let snapshot {
                    if slots == ChangeSet.allSlots {
                        reading = index.unvalued
                    } else {
                        var bits = slots
                        while bits != 0 {
                            if let keys = index.bySlot[bits.trailingZeroBitCount] { reading.formUnion(keys) }
                            bits &= bits - 1
                        }
                    }
                    for (attribute, table) in index.byValue where index.valueSlots[attribute, default: 0] & slots != 0 {
                        if attribute < snapshot.attributes.count, let keys = table[snapshot.attributes[attribute]] {
                            reading.formUnion(keys)
                        }
                    }
                }
                for key in reading {
                    perSubscription[key, default: []].append(
                        .init(objectID: id, snapshot: snapshot, touchesReads: true))
                }
                for key in memberOf where !reading.contains(key) {
                    // A member the value index passed over may have left (its value changed).
                    let touches = snapshot == nil || (subscriptions[key].map { $0.slots & slots != 0 } ?? true)
                    perSubscription[key, default: []].append(
                        .init(objectID: id, snapshot: snapshot, touchesReads: touches))
                }
            }
        }
        if prepared != nil { statistics.preparedMerges += 1 }
        let evaluator = context.contextEvaluator()
        let keys = Set(perSubscription.keys).union(preparedRuns.keys).subtracting(refetching)
        for key in keys.sorted() {
            guard let subscription = subscriptions[key] else { continue }
            do {
                let outcome = try subscription.apply(
                    perSubscription[key] ?? [], prepared: preparedRuns[key] ?? [], evaluator: evaluator)
                statistics.localDecisions += outcome.evaluated
                statistics.membershipUpdates += outcome.membershipUpdates
                statistics.mergeComparisons += outcome.comparisons
                statistics.tablesGrownInMerges += outcome.tablesGrown
                if outcome.needsRefetch {
                    refetching.insert(key)
                    continue
                }
                for id in outcome.left { removeMembership(of: id, in: key) }
                if memberships.reserveHeadroom(adding: outcome.joined.count) { statistics.tablesGrownInMerges += 1 }
                for id in outcome.joined { memberships[id, default: Membership()].keys.append(key) }
                subscription.deliver(updated: outcome.updated)
            } catch {
                refetching.insert(key)
            }
        }
        for (id, snapshot) in seen { memberships[id]?.lastSeen = snapshot }
        refetch(refetching, in: context, updating: changes.updated)
    }

    /// Notes a prepared merge not used because the merge renamed the objects it read.
    func notePreparationRenamed() {
        statistics.preparedMergeFallbacks += 1
    }

    /// Takes from `listed` (changed objects of the entity of `index`) the inserted objects
    /// `prepared` decided for, and adds its runs for them to `runs`, by query; returns the
    /// objects left to decide here. An inserted object is decided here when the merge does not
    /// take its state from the push (the context holds it loaded, deleted or invalid) or a
    /// query lists it already (a refetch since the push saw it).
    private func takePrepared(
        from listed: [(id: ObjectID, isDeleted: Bool)], of index: EntityIndex, _ prepared: PreparedLiveMerge,
        changes: ContextChanges, in context: ObjectContext, runs: inout [Int: [LiveEntry]],
        seen: inout [(id: ObjectID, snapshot: Snapshot?)]
    ) -> [(id: ObjectID, isDeleted: Bool)] {
        var left: [(id: ObjectID, isDeleted: Bool)] = []
        var decidedHere: Set<ObjectID> = []
        var taken = 0
        seen.reserveCapacity(seen.count + listed.count)
        for (id, isDeleted) in listed {
            guard !isDeleted, changes.inserted.contains(id), let state = prepared.states[id], state.objectID == id
            else {
                left.append((id, isDeleted))
                continue
            }
            let object = context.registeredObject(for: id)
            let takesPushedState =
                object.map { $0.state.isFault && !$0.state.isDeleted && !$0.state.isInvalid } ?? true
            guard takesPushedState, memberships[id] == nil else {
                decidedHere.insert(id)
                left.append((id, isDeleted))
                continue
            }
            seen.append((id, state))
            taken += 1
        }
        statistics.preparedDecisions += taken
        statistics.preparedObjectFallbacks += decidedHere.count
        statistics.localDecisions += taken * index.all.count
        for key in index.all {
            guard let run = prepared.runs[key], !run.isEmpty else { continue }
            runs[key] = decidedHere.isEmpty ? run : run.filter { !decidedHere.contains($0.objectID) }
        }
        return left
    }

    /// The current state of each of `ids` in `context`: its own object when loaded, else the
    /// state in `known`, else where the context reads from (one request per entity); `nil` for
    /// one deleted or gone.
    private func currentSnapshots(
        of ids: [(id: ObjectID, isDeleted: Bool)], in context: ObjectContext, known: [ObjectID: Snapshot]
    ) throws -> [ObjectID: Snapshot?] {
        var found: [ObjectID: Snapshot?] = [:]
        found.reserveCapacity(ids.count)
        var missing: [ObjectID] = []
        for (id, isDeleted) in ids where !isDeleted {
            if let object = context.registeredObject(for: id) {
                if object.state.isDeleted || object.state.isInvalid {
                    found[id] = .some(nil)
                    continue
                }
                if !object.state.isFault {
                    found[id] = object.currentSnapshot()
                    continue
                }
            }
            if let state = known[id] {
                found[id] = state
                continue
            }
            missing.append(id)
        }
        if !missing.isEmpty {
            let loaded = try context.sourceSnapshots(for: missing)
            for id in missing { found[id] = loaded[id] }
            // A temporary ID the parent no longer knows: its save made it permanent while this
            // context was reading. The snapshot then carries the permanent ID.
            var renamed: [ObjectID: ObjectID] = [:]
            for id in missing where loaded[id] == nil {
                if let new = context.permanentID(for: id) { renamed[id] = new }
            }
            if !renamed.isEmpty {
                let reloaded = try context.sourceSnapshots(for: Array(renamed.values))
                for (old, new) in renamed { found[old] = reloaded[new] }
            }
        }
        return found
    }

    /// Runs the queries `keys` again and hands out their new states; a query that fails ends
    /// with the error.
    private func refetch(_ keys: Set<Int>, in context: ObjectContext, updating changed: Set<ObjectID> = []) {
        for key in keys.sorted() {
            guard let subscription = subscriptions[key] else { continue }
            let before = subscription.members.keys
            let snapshots: [Snapshot]
            do {
                snapshots = try subscription.load(from: context)
            } catch {
                remove(key)
                subscription.sink.finish(throwing: error)
                continue
            }
            statistics.refetches += 1
            if subscription.reach == .local {
                for id in before where subscription.members[id] == nil { removeMembership(of: id, in: key) }
                memberships.reserveHeadroom(adding: snapshots.count)
                for snapshot in snapshots {
                    if !before.contains(snapshot.objectID) {
                        memberships[snapshot.objectID, default: Membership()].keys.append(key)
                    }
                    memberships[snapshot.objectID]?.lastSeen = snapshot
                }
            }
            subscription.deliver(updated: changed.filter { subscription.members[$0] != nil })
        }
    }
}
