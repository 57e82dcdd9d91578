import StrataCore

extension ObjectContext {
    /// Fetches objects. See ``FetchOptions`` for pending changes, faults and prefetching; set
    /// ``FetchRequest/batchSize`` to keep memory bounded over large results.
    ///
    /// - Throws: ``StrataError`` for a request that does not fit the model (unknown entity or key,
    ///   with both named) or a store failure.
    public func fetch(_ request: FetchRequest, options: FetchOptions = FetchOptions()) throws -> FetchedResults {
        try fetch(request, options: options, ofClass: nil).results
    }

    /// ``fetch(_:options:)``, also telling whether every object is exactly of class `type`
    /// (`false` when `type` is `nil` or for batched results), found as the objects are made.
    private func fetch(_ request: FetchRequest, options: FetchOptions, ofClass type: ManagedObject.Type?) throws -> (
        results: FetchedResults, allOfClass: Bool
    ) {
        checkConfinement()
        catchUpWithPermanentIDs()
        var request = request
        request.resultType = .snapshots
        // Faults keep the snapshots read here, so filling them needs no second trip to the store
        // (or, in a child context, to the parent) however many rows the fetch returned (see
        // `keep(_:epoch:)`). The epoch is read before the store is, so a save that races with
        // the fetch counts as newer. A child keeps them only when its parent answered from the
        // stores, with none of its own (or its ancestors') pending changes in the answer.
        let epoch = options.returnsObjectsAsFaults ? coordinator.rowCacheEpoch : 0
        var fromStores = true
        var snapshots = try resolve(request, options: options, fromStores: &fromStores)
        let keptEpoch = fromStores ? epoch : 0
        if let batchSize = request.batchSize, batchSize > 0 {
            let results = FetchedResults(
                objectIDs: snapshots.map(\.objectID), objects: nil, context: self, batchSize: batchSize)
            return (results, false)
        }
        // Compared while each object is at hand (just made or looked up), not in a pass of its own.
        let wanted = type.map(ObjectIdentifier.init)
        var allOfClass = wanted != nil
        let objects = registeringFetchedObjects {
            // The objects are made first and registered once the snapshots are gone (the
            // objects share their values), so the array and the grown registry never coexist: a
            // large fetch peaks lower. Each snapshot is moved out of the array into its object
            // (see ``movingOut(_:make:)``): its values, cold since the store decoded them, are
            // not touched to be retained here and released when the array goes.
            if hasNoRegisteredObjects {
                // A context with no object yet (a new background context): every object is new,
                // with no registry lookup per row (a store returns each object once).
                // A fetch's rows are of one entity and store: its maker is found once, not for
                // every row (checked by the scope, one comparison a row).
                let first: ObjectID? = snapshots.isEmpty ? nil : snapshots[0].objectID
                let scope = first?.scope
                let maker = first.map { self.maker(for: entityFor($0)) }
                let objects = Self.movingOut(&snapshots) { _, snapshot in
                    let object = newObject(
                        for: snapshot, by: snapshot.objectID.scope == scope ? maker : nil,
                        asFault: options.returnsObjectsAsFaults, keptEpoch: keptEpoch)
                    if allOfClass && ObjectIdentifier(Swift.type(of: object)) != wanted { allOfClass = false }
                    return object
                }
                reserveRegistryCapacity(objects.count)
                for object in objects { register(object) }
                return objects
            }
            var isNew = [Bool](repeating: false, count: snapshots.count)
            let objects = Self.movingOut(&snapshots) { index, snapshot in
                let made = unregisteredObjectFor(
                    snapshot, asFault: options.returnsObjectsAsFaults, keptEpoch: keptEpoch)
                if allOfClass && ObjectIdentifier(Swift.type(of: made.object)) != wanted { allOfClass = false }
                isNew[index] = made.isNew
                return made.object
            }
            reserveRegistryCapacity(objects.count)
            for index in objects.indices where isNew[index] { register(objects[index]) }
            return objects
        }
        if !options.relationshipKeyPathsForPrefetching.isEmpty {
            try prefetch(
                options.relationshipKeyPathsForPrefetching, of: objects,
                entity: try model.requireEntity(request.entityName))
        }
        return (FetchedResults(objectIDs: nil, objects: objects, context: self, batchSize: 0), allOfClass)
    }

    /// Fetches objects of a registered subclass.
    ///
    /// Inlinable, so that the cast of each object to `T` is specialized for the caller's class
    /// (a class check) instead of running as unspecialized generic code per object; when the
    /// fetch made or found every object of exactly `T`, the array is `T`'s with no pass over it
    /// (see ``ObjectsOfClass``).
    @inlinable
    public func fetch<T: ManagedObject>(
        _ type: T.Type, where predicate: ObjectPredicate? = nil, sortedBy sorts: [Sort] = [], limit: Int? = nil,
        options: FetchOptions = FetchOptions()
    ) throws -> [T] {
        try fetchObjects(of: type, where: predicate, sortedBy: sorts, limit: limit, options: options).cast(to: T.self)
    }

    /// The objects ``fetch(_:where:sortedBy:limit:options:)`` returns, before their cast.
    @usableFromInline
    func fetchObjects(
        of type: ManagedObject.Type, where predicate: ObjectPredicate?, sortedBy sorts: [Sort], limit: Int?,
        options: FetchOptions
    ) throws -> ObjectsOfClass {
        checkConfinement()
        let entityName: String
        if let last = lastMaker, last.type == type, last.generation == coordinator.classGeneration {
            // The class this context last made objects of, still registered: no lookup.
            entityName = last.entity.name
        } else {
            entityName = try coordinator.registeredEntityName(of: type)
        }
        let fetched = try fetch(
            FetchRequest(entityName: entityName, predicate: predicate, sorts: sorts, limit: limit), options: options,
            ofClass: type)
        return ObjectsOfClass(fetched.results.objects, ofExactly: type, checked: fetched.allOfClass)
    }

    /// The IDs of the matching objects, in order.
    ///
    /// A child context with nothing pending for the answer asks its parent for the IDs (down to
    /// the store when no level has pending changes), instead of loading every snapshot.
    public func fetchObjectIDs(_ request: FetchRequest, options: FetchOptions = FetchOptions()) throws -> [ObjectID] {
        checkConfinement()
        catchUpWithPermanentIDs()
        if !options.includesPendingChanges || !hasPendingChanges(for: request) {
            if let parent { return try parent.performAndWait { try parent.fetchObjectIDs(request) } }
            var plain = request
            plain.resultType = .objectIDs
            return try coordinator.fetch(plain).objectIDs()
        }
        return try resolve(request, options: options).map(\.objectID)
    }

    /// The number of matching objects, pending changes included by default.
    ///
    /// A child context with nothing pending for the answer asks its parent to count (down to
    /// the store's count when no level has pending changes), instead of loading every snapshot:
    /// a main-queue view context counting during a background import stays cheap.
    public func count(_ request: FetchRequest, options: FetchOptions = FetchOptions()) throws -> Int {
        checkConfinement()
        catchUpWithPermanentIDs()
        if !options.includesPendingChanges || !hasPendingChanges(for: request) {
            if let parent { return try parent.performAndWait { try parent.count(request) } }
            var plain = request
            plain.resultType = .count
            return try coordinator.fetch(plain).count()
        }
        return try resolve(request, options: options).count
    }

    /// For each matching object, the values of ``FetchRequest/propertiesToFetch``.
    public func fetchDictionaries(_ request: FetchRequest, options: FetchOptions = FetchOptions()) throws -> [[String:
        Value]]
    {
        checkConfinement()
        catchUpWithPermanentIDs()
        var shaped = request
        shaped.resultType = .dictionaries
        let snapshots = try resolve(coordinator.validations.validated(shaped), options: options)
        let evaluator = contextEvaluator()
        return try snapshots.map { snapshot in
            var row: [String: Value] = [:]
            for path in request.propertiesToFetch {
                row[path.description] = try evaluator.value(at: path, of: snapshot)
            }
            return row
        }
    }

    // MARK: Resolution

    /// How many changed objects this context's fetches have examined to correct the stores'
    /// answer for pending changes: each one a store returned, and every member of the change
    /// set that a scan of it passed over. Tests and the operation-count check read it: in a
    /// fetch-by-key and change loop it grows by a constant per fetch, not by the number of
    /// pending changes.
    package var pendingObjectsEvaluated: Int { changed.evaluations }

    /// Stops the program when the change set's bookkeeping disagrees with its members, or an
    /// object with unsaved changes is missing from it. O(n) in the registered objects; for tests.
    package func checkPendingChangeBookkeeping() {
        changed.checkInvariants()
        for object in registeredObjects where object.state.isDirty && !object.state.isInvalid {
            precondition(changed[object.objectID] === object, "\(object.objectID) is changed but not in the change set")
        }
    }

    /// Whether pending changes can change the answer to `request`: objects of its entity
    /// changed, or objects of another entity while the request reads through relationships.
    /// O(1) plus a walk of the request's key paths.
    func hasPendingChanges(for request: FetchRequest) -> Bool {
        if changed.isEmpty { return false }
        if changed.count(of: request.entityName) > 0 { return true }
        return RequestReads(request, entity: model.entity(named: request.entityName)).followsRelationships
    }

    /// The matching snapshots in order: the store's answer, corrected for this context's pending
    /// changes when asked.
    ///
    /// The request is checked against the model once on its way down (here, in a parent, or in
    /// the coordinator); the requests derived from it keep that check.
    ///
    /// The store filters by the predicate, and answers for every changed object whose changes
    /// the request does not read (see ``ChangeSet``); of the changed objects, only those the
    /// store returned and those whose changes the request reads (inserted objects among them)
    /// are evaluated here. A change of another entity can make an object match through a key
    /// path that the store cannot see: then, for a request through relationships, every object
    /// of the entity is a candidate and every changed one is evaluated.
    func resolve(_ request: FetchRequest, options: FetchOptions) throws -> [Snapshot] {
        var fromStores = true
        return try resolve(request, options: options, fromStores: &fromStores)
    }

    /// This context's answer to `request` with its pending changes, for a child; `fromStores`
    /// turns `false` when pending changes here or in an ancestor can be in it.
    func resolveForChild(_ request: FetchRequest, fromStores: inout Bool) throws -> [Snapshot] {
        checkConfinement()
        if hasPendingChanges(for: request) { fromStores = false }
        return try resolve(request, options: FetchOptions(), fromStores: &fromStores)
    }

    /// ``resolve(_:options:)``, setting `fromStores` to `false` when an ancestor's pending
    /// changes can be in the answer (this context's own are not counted: its changed objects
    /// are its own).
    func resolve(_ request: FetchRequest, options: FetchOptions, fromStores: inout Bool) throws -> [Snapshot] {
        guard options.includesPendingChanges, hasPendingChanges(for: request) else {
            return try sourceFetch(request.keepingValidation { $0.resultType = .snapshots }, fromStores: &fromStores)
        }
        let request = try coordinator.validations.validated(request)
        let entityName = request.entityName
        let reads = RequestReads(request, entity: model.entity(named: entityName))
        let everyObject = reads.followsRelationships && changed.count > changed.count(of: entityName)
        // The store's candidates before paging, since pending changes can move objects in or out.
        let storeRequest = request.keepingValidation { storeRequest in
            storeRequest.resultType = .snapshots
            storeRequest.limit = nil
            storeRequest.offset = 0
            storeRequest.sorts = []
            if everyObject { storeRequest.predicate = nil }
        }
        var examined = 0
        var candidates: [ObjectID: Snapshot] = [:]
        for snapshot in try sourceFetch(storeRequest, fromStores: &fromStores) {
            guard let object = changed[snapshot.objectID] else {
                candidates[snapshot.objectID] = snapshot
                continue
            }
            examined += 1
            if !object.state.isDeleted { candidates[snapshot.objectID] = object.currentSnapshot() }
        }
        // Changed objects the store did not return but that may match now.
        let slots = everyObject ? ChangeSet.allSlots : reads.slots
        if changed.slots(of: entityName) & slots != 0 {
            // A lookup by an indexed attribute's value reads the changed objects holding it
            // (an "insert if missing" loop stays linear); anything else scans the change set.
            var lookedUp: [ManagedObject]?
            if !everyObject, let entity = model.entity(named: entityName),
                let lookup = EqualityLookup(
                    request.predicate, in: entity, indexed: EqualityLookup.indexedAttributes(of: entity))
            {
                lookedUp = changed.members(of: entityName, matching: lookup)
            }
            // Read after the lookup: building a member index takes its attribute's slot out of
            // every member's own slots and marks it indexed for the entity instead.
            let indexed = changed.indexedSlots(of: entityName)
            let wanted = request.objectIDs.map(Set.init)
            func consider(_ object: ManagedObject) {
                guard !object.state.isDeleted,
                    object.state.isInserted || (object.changedSlots | indexed) & slots != 0,
                    candidates[object.objectID] == nil
                else { return }
                if let wanted, !wanted.contains(object.objectID) { return }
                candidates[object.objectID] = object.currentSnapshot()
            }
            if let lookedUp {
                examined += lookedUp.count
                for object in lookedUp { consider(object) }
            } else {
                examined += changed.count
                for object in changed.values where object.entity.name == entityName { consider(object) }
            }
        }
        changed.evaluations += examined
        var unpaged = request
        unpaged.objectIDs = nil
        unpaged.resultType = .snapshots
        return try QueryEvaluation.run(unpaged, over: Array(candidates.values), evaluator: contextEvaluator())
            .snapshots()
    }

    /// An evaluator that sees this context's current state, then the stores'.
    func contextEvaluator() -> PredicateEvaluator {
        PredicateEvaluator(model: model) { [unowned self] id in
            if let object = self.registeredObject(for: id) {
                if object.state.isDeleted || object.state.isInvalid { return nil }
                if !object.state.isFault { return object.currentSnapshot() }
            }
            return try self.sourceSnapshot(for: id)
        }
    }

    /// The registered object for `snapshot` (refreshed when it has no changes), or a new one.
    ///
    /// A fault made or found here keeps `snapshot` when `keptEpoch` is not 0 (the coordinator's
    /// row cache epoch when the fetch that read the snapshot began).
    func objectFor(_ snapshot: Snapshot, asFault: Bool, keptEpoch: UInt64 = 0) -> ManagedObject {
        let made = unregisteredObjectFor(snapshot, asFault: asFault, keptEpoch: keptEpoch)
        if made.isNew { register(made.object) }
        return made.object
    }

    /// The objects `make` returns for each of `snapshots` (and its index), in order, each snapshot moved out of
    /// the array (which is left empty) instead of copied: the last one first, so no element is
    /// retained to be made and released again when the array goes.
    private static func movingOut(
        _ snapshots: inout [Snapshot], make: (Int, consuming Snapshot) -> ManagedObject
    ) -> [ManagedObject] {
        let count = snapshots.count
        // An empty result is the shared empty array: the initializer below would write its count
        // (0 over 0) into that one global storage, a data race with every other empty fetch.
        guard count > 0 else { return [] }
        let objects = [ManagedObject](unsafeUninitializedCapacity: count) { buffer, initialized in
            // Every element is initialized before `initialized` is set: `make` does not throw.
            for index in stride(from: count - 1, through: 0, by: -1) {
                (buffer.baseAddress! + index).initialize(to: make(index, snapshots.removeLast()))
            }
            initialized = count
        }
        snapshots = []
        return objects
    }

    /// ``objectFor(_:asFault:keptEpoch:)`` without registering a new object: `isNew` says the
    /// caller must.
    private func unregisteredObjectFor(_ snapshot: consuming Snapshot, asFault: Bool, keptEpoch: UInt64) -> (
        object: ManagedObject, isNew: Bool
    ) {
        if let object = registeredObject(for: snapshot.objectID) {
            if !object.state.isDirty && !object.state.isDeleted && !object.state.isInserted {
                if !object.state.isFault || !asFault {
                    if object.original?.version ?? -1 <= snapshot.version { object.apply(snapshot) }
                } else if keptEpoch != 0 && !object.state.isInvalid {
                    object.keep(snapshot, epoch: keptEpoch)
                }
            }
            return (object, false)
        }
        return (newObject(for: snapshot, asFault: asFault, keptEpoch: keptEpoch), true)
    }

    /// A new, unregistered object for `snapshot`: filled, or a fault (that keeps `snapshot`
    /// when `keptEpoch` is not 0).
    private func newObject(
        for snapshot: consuming Snapshot, by maker: ObjectMaker? = nil, asFault: Bool, keptEpoch: UInt64
    ) -> ManagedObject {
        let object =
            maker.map { makeObject(by: $0, id: snapshot.objectID) }
            ?? makeObject(entity: entityFor(snapshot.objectID), id: snapshot.objectID)
        if !asFault {
            object.apply(snapshot)
        } else if keptEpoch != 0 {
            object.keep(snapshot, epoch: keptEpoch)
        } else {
            object.state.isFault = true
        }
        return object
    }

    /// The snapshot to fill the fault `object` with: the one a fetch left it, unless something
    /// newer is known (see ``StoreCoordinator/snapshot(for:kept:epoch:lastRoute:)``), else the
    /// source's. In a child context, the kept one while no context with children changed
    /// anything since the fetch (see ``RowCache``), else the parent's current state.
    func faultSnapshot(for object: ManagedObject) throws -> Snapshot? {
        let epoch = object.state.keptSnapshotEpoch
        guard epoch != 0, let kept = object.original else { return try sourceSnapshot(for: object.objectID) }
        guard parent != nil else {
            return try coordinator.snapshot(for: object.objectID, kept: kept, epoch: epoch, lastRoute: &lastRoute)
        }
        if let snapshot = try coordinator.keptSnapshotForChild(
            of: object.objectID, kept: kept, epoch: epoch, lastRoute: &lastRoute)
        {
            return snapshot
        }
        return try sourceSnapshot(for: object.objectID)
    }

    /// Loads the objects for `ids` in one store request (a batch of a batched fetch).
    func materialize(_ ids: [ObjectID]) -> [ManagedObject] {
        let missing = ids.filter { id in registeredObject(for: id).map { $0.state.isFault } ?? true }.filter {
            parent != nil || !$0.isTemporary
        }
        var loaded: [ObjectID: Snapshot] = [:]
        if !missing.isEmpty, let entity = missing.first?.entityName {
            do {
                for snapshot in try sourceFetch(FetchRequest(entityName: entity, objectIDs: missing)) {
                    loaded[snapshot.objectID] = snapshot
                }
            } catch {
                preconditionFailure("could not load a batch of \(entity) objects: \(error)")
            }
        }
        return ids.map { id in
            if let snapshot = loaded[id] { return objectFor(snapshot, asFault: false) }
            return object(with: id)
        }
    }

    private func prefetch(_ paths: [String], of objects: [ManagedObject], entity: Entity) throws {
        for path in paths {
            guard let index = entity.relationshipIndex(named: path) else {
                throw StrataError(
                    .unknownKey, "'\(entity.name)' has no relationship '\(path)' to prefetch",
                    location: ["entity": entity.name, "key": path])
            }
            let destination = entity.relationships[index].destination
            var targets: Set<ObjectID> = []
            for object in objects {
                object.fulfill()
                targets.formUnion(object.relationshipValues[index].targets)
            }
            let wanted = targets.filter {
                (parent != nil || !$0.isTemporary) && (registeredObject(for: $0)?.state.isFault ?? true)
            }
            guard !wanted.isEmpty else { continue }
            for snapshot in try sourceFetch(FetchRequest(entityName: destination, objectIDs: Array(wanted))) {
                _ = objectFor(snapshot, asFault: false)
            }
        }
    }
}
