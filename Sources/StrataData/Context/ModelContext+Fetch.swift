import Foundation
import StrataCore
import StrataEngine

extension ModelContext {
    /// The models `descriptor` describes, with the context's unsaved changes (unless the
    /// descriptor says otherwise).
    ///
    /// A fetch repeated with a descriptor of the same shape (the same model, sorts and
    /// predicate but for the predicate's constants, as `#Predicate { $0.key == key }` in a
    /// loop) fills the new constants into the request of the first one instead of translating
    /// the descriptor again.
    ///
    /// Inlinable, so that the descriptor is read and the models are made in the caller's
    /// module, for its model type: generic code over the descriptor and the results cost more
    /// than the fetch of one model by key did besides.
    ///
    /// - Throws: ``StrataError`` when the store fails, or when the predicate or a sort cannot
    ///   be evaluated (naming the expression).
    @inlinable
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        let results = try fetchedObjects(
            fetchRequest(for: descriptor), includesPendingChanges: descriptor.includePendingChanges)
        var models: [T] = []
        models.reserveCapacity(results.count)
        for object in results { models.append(StrataData.model(for: object, as: T.self)) }
        return models
    }

    /// The engine's objects `request` matches, in its order.
    @usableFromInline
    func fetchedObjects(_ request: FetchRequest, includesPendingChanges: Bool) throws -> FetchedResults {
        try objectContext.fetch(request, options: FetchOptions(includesPendingChanges: includesPendingChanges))
    }

    /// The engine's request for `descriptor`: from the plan of its shape the context keeps, or
    /// translated (``makeFetchPlan(for:sortKeys:)``).
    @inlinable
    func fetchRequest<T: PersistentModel>(for descriptor: FetchDescriptor<T>) throws -> FetchRequest {
        var sortKeys: [FetchSortKey] = []
        for sort in descriptor.sortBy { sortKeys.append(FetchSortKey(sort)) }
        var request =
            try fetchPlans.request(
                modelType: ObjectIdentifier(T.self), predicate: descriptor.predicateParts, sortKeys: sortKeys)
            ?? makeFetchPlan(for: descriptor, sortKeys: sortKeys)
        request.limit = descriptor.fetchLimit
        request.offset = descriptor.fetchOffset ?? 0
        return request
    }

    /// The engine's request for `descriptor`, translated; its plan is kept when the requests of
    /// other descriptors of its shape can be made from it.
    ///
    /// - Throws: ``StrataError/Code/invalidPredicate`` naming the part of the predicate, or the
    ///   sort, that has no Strata counterpart.
    @usableFromInline
    func makeFetchPlan<T: PersistentModel>(for descriptor: FetchDescriptor<T>, sortKeys: [FetchSortKey]) throws
        -> FetchRequest
    {
        let keyPaths = container.keyPaths
        // The layout's entity: the type's name, without describing the type on every fetch.
        var request = FetchRequest(entityName: T._$layout.entity.name)
        if !descriptor.sortBy.isEmpty { request.sorts = try sorts(descriptor.sortBy, naming: keyPaths.name(of:)) }
        let kind: FetchPlan.PredicateKind
        if let predicate = descriptor.predicate {
            let (translated, kept) = try keyPaths.predicates.translation(of: predicate)
            request.predicate = translated
            guard let kept, let reader = type(of: predicate.expression) as? any PredicateShapeCondition.Type else {
                return request
            }
            kind = .kept(reader: reader, key: kept.key, constantCount: kept.constants.count)
        } else {
            kind = .none
        }
        fetchPlans.add(
            FetchPlan(modelType: ObjectIdentifier(T.self), sortKeys: sortKeys, predicate: kind, request: request))
        return request
    }

    /// How many fetch plans the context made (one per descriptor shape it keeps): for tests.
    package var fetchPlanCount: Int { fetchPlans.madeCount }

    /// How many models `descriptor` matches (its limit and offset applied).
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        try objectContext.count(
            fetchRequest(for: descriptor),
            options: FetchOptions(includesPendingChanges: descriptor.includePendingChanges))
    }

    /// The identifiers of the models `descriptor` matches, in its order.
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier]
    {
        try objectContext.fetchObjectIDs(
            fetchRequest(for: descriptor),
            options: FetchOptions(includesPendingChanges: descriptor.includePendingChanges)
        ).map(PersistentIdentifier.init)
    }

    /// Calls `block` with each model `descriptor` matches, reading them `batchSize` at a time.
    ///
    /// - Parameter allowEscapingMutations: accepted for source compatibility; changes made in
    ///   `block` stay in the context until saved either way.
    public func enumerate<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, batchSize: Int = 5000, allowEscapingMutations: Bool = false,
        block: (T) throws -> Void
    ) throws {
        let identifiers = try fetchIdentifiers(descriptor)
        var start = 0
        while start < identifiers.count {
            let end = min(start + max(1, batchSize), identifiers.count)
            try autoreleasepoolIfAvailable {
                for identifier in identifiers[start..<end] {
                    let object = objectContext.object(with: identifier.objectID)
                    try block(StrataData.model(for: object, as: T.self))
                }
            }
            start = end
        }
    }

    /// Deletes every model of `model` that `predicate` matches (all of them for `nil`), at the
    /// next save.
    ///
    /// - Parameter includeSubclasses: accepted for source compatibility; models have no
    ///   subclasses.
    public func delete<T: PersistentModel>(
        model: T.Type, where predicate: Predicate<T>? = nil, includeSubclasses: Bool = true
    ) throws {
        for match in try fetch(FetchDescriptor(predicate: predicate)) { delete(match) }
    }
}

/// Runs `body`; there is no autorelease pool to drain on Linux.
private func autoreleasepoolIfAvailable(_ body: () throws -> Void) rethrows {
    try body()
}
