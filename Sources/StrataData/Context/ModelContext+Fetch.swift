import Foundation
import StrataCore
import StrataEngine

extension ModelContext {
    /// The models `descriptor` describes, with the context's unsaved changes (unless the
    /// descriptor says otherwise).
    ///
    /// Inlinable, so that the models are made in the caller's module, for its model type: a
    /// generic map over the results cost more than the fetch of one model by key did besides.
    ///
    /// - Throws: ``StrataError`` when the store fails, or when the predicate or a sort cannot
    ///   be evaluated (naming the expression).
    @inlinable
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        let results = try fetchedObjects(descriptor)
        var models: [T] = []
        models.reserveCapacity(results.count)
        for object in results { models.append(StrataData.model(for: object, as: T.self)) }
        return models
    }

    /// The engine's objects `descriptor` matches, in its order.
    @usableFromInline
    func fetchedObjects<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> FetchedResults {
        let plan = try FetchPlan(descriptor, keyPaths: container.keyPaths)
        return try objectContext.fetch(plan.request, options: plan.options)
    }

    /// How many models `descriptor` matches (its limit and offset applied).
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        let plan = try FetchPlan(descriptor, keyPaths: container.keyPaths)
        return try objectContext.count(plan.request, options: plan.options)
    }

    /// The identifiers of the models `descriptor` matches, in its order.
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier]
    {
        let plan = try FetchPlan(descriptor, keyPaths: container.keyPaths)
        return try objectContext.fetchObjectIDs(plan.request, options: plan.options).map(PersistentIdentifier.init)
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

/// The engine's request for a fetch descriptor: the predicate and sorts translated (each
/// backend runs what it can and the engine evaluates the rest), the offset and limit as given.
struct FetchPlan<T: PersistentModel> {
    var request: FetchRequest
    var options: FetchOptions

    /// - Throws: ``StrataError/Code/invalidPredicate`` naming the part of the predicate, or the
    ///   sort, that has no Strata counterpart.
    init(_ descriptor: FetchDescriptor<T>, keyPaths: ModelKeyPaths) throws {
        // The layout's entity: the type's name, without describing the type on every fetch.
        request = FetchRequest(entityName: T._$layout.entity.name)
        if let predicate = descriptor.predicate {
            request.predicate = try keyPaths.predicates.objectPredicate(for: predicate)
        }
        if !descriptor.sortBy.isEmpty { request.sorts = try sorts(descriptor.sortBy, naming: keyPaths.name(of:)) }
        request.limit = descriptor.fetchLimit
        request.offset = descriptor.fetchOffset ?? 0
        options = FetchOptions(includesPendingChanges: descriptor.includePendingChanges)
    }
}
