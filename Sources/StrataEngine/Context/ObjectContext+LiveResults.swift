import StrataCore

extension ObjectContext {
    /// The results of `request` as they change: a ``LiveResults`` sequence whose first element is
    /// the fetch as it stands now (pending changes included, as ``fetch(_:options:)``), and each
    /// next one the result after a change, with its ``LiveDiff``.
    ///
    /// Call it on the context's queue (inside a perform block, or on the thread that uses the
    /// context); iterate the sequence from any task. Elements hold object IDs, which are
    /// `Sendable`: objects stay on the context's queue, so turn IDs into objects there
    /// (``object(with:)`` in a perform block of this context, or directly on the main queue for a
    /// main-queue context).
    ///
    /// ```swift
    /// let live = try viewContext.liveResults(for: FetchRequest(entityName: "Employee", sorts: [.ascending("name")]))
    /// for try await result in live {
    ///     tableView.apply(result.diff)   // on the main queue: viewContext.object(with: id)
    /// }
    /// ```
    ///
    /// **What it hears.** Every change that reaches this context: its own inserts, updates and
    /// deletes (at ``processPendingChanges()``, so at the end of each perform block and at a
    /// save), merges of other contexts' saves (``mergeChanges(fromContextDidSave:)``, which is
    /// also how the IDs a batch operation returns reach it), remote changes from other processes
    /// (``mergeRemoteChanges(_:)``), and ``reset()`` and ``rollback()``.
    ///
    /// **Incremental.** A changed object is matched against the request's predicate and sort
    /// from its current values and put in place by binary search, with no fetch. The query runs
    /// again only when the change cannot be decided from the changed objects: key paths through
    /// relationships, an offset, a full ``FetchRequest/limit`` window that loses a member and
    /// needs the next row, a reset or rollback. ``liveQueryStatistics`` counts both.
    ///
    /// **Sections.** With `sectionKeyPath`, each element lists the runs of consecutive objects
    /// sharing that key path's value (sort by it first for one section per value).
    ///
    /// - Throws: ``StrataError`` for a request or section key path that does not fit the model,
    ///   or a store failure during the first fetch.
    public func liveResults(for request: FetchRequest, sectionKeyPath: String? = nil) throws -> LiveResults {
        let mailbox = LiveMailbox()
        let key = try subscribeLive(request, sectionKeyPath: sectionKeyPath, sink: mailbox)
        return LiveResults(observation: LiveObservation(mailbox: mailbox, context: self, key: key))
    }

    /// How this context's live queries kept up so far: subscriptions, refetches and changed
    /// objects decided locally.
    public var liveQueryStatistics: LiveQueryStatistics {
        checkConfinement()
        return liveRegistry?.statistics ?? LiveQueryStatistics()
    }

    /// How many of this context's live queries the membership index lists `id` in (each query
    /// once, however often the object moved within it).
    package func liveMembershipCount(of id: ObjectID) -> Int {
        checkConfinement()
        return liveRegistry?.membershipCount(of: id) ?? 0
    }

    /// Registers a live subscription of `request` handing its states to `sink` (the first at
    /// once); returns its key.
    func subscribeLive(_ request: FetchRequest, sectionKeyPath: String?, sink: any LiveSink) throws -> Int {
        checkConfinement()
        catchUpWithPermanentIDs()
        var request = try coordinator.validations.validated(request)
        let entity = try model.requireEntity(request.entityName)
        let sectionPath = try sectionKeyPath.map { try validatedSectionKeyPath($0, of: entity) }
        request.resultType = .snapshots
        request.batchSize = nil
        let registry = liveRegistry ?? LiveRegistry(publishingTo: liveMergePlan)
        if liveRegistry == nil {
            liveRegistry = registry
            // From now on every write must note an update for the live queries.
            SaveActivity.requireContext(forChangesIn: self)
        }
        return try registry.add(in: self) { key in
            LiveSubscription(key: key, request: request, sectionKeyPath: sectionPath, entity: entity, sink: sink)
        }
    }

    /// `dotted` as a path from `entity` to an attribute, through to-one relationships.
    private func validatedSectionKeyPath(_ dotted: String, of entity: Entity) throws -> PropertyPath {
        let path = PropertyPath(dotted)
        var current = entity
        for (position, component) in path.components.enumerated() {
            let isLast = position == path.components.count - 1
            if isLast, current.attributeIndex(named: component) != nil { return path }
            if !isLast, let index = current.relationshipIndex(named: component),
                !current.relationships[index].isToMany,
                let next = model.entity(named: current.relationships[index].destination)
            {
                current = next
                continue
            }
            throw StrataError(
                .unknownKey,
                "section key path '\(dotted)' does not lead through to-one relationships of '\(entity.name)' to an attribute",
                location: ["entity": entity.name, "key": dotted])
        }
        throw StrataError(
            .unknownKey, "section key path '\(dotted)' is empty", location: ["entity": entity.name, "key": dotted])
    }
}
