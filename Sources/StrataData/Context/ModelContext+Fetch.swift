import Foundation
import StrataCore
import StrataEngine

extension ModelContext {
    /// The models `descriptor` describes, with the context's unsaved changes (unless the
    /// descriptor says otherwise).
    ///
    /// - Throws: ``StrataError`` when the store fails, or when the predicate or a sort cannot
    ///   be evaluated (naming the expression).
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        let plan = FetchPlan(descriptor)
        let objects = try objectContext.fetch(plan.request, options: plan.options)
        var models = objects.map { StrataData.model(for: $0, as: T.self) }
        if plan.isInMemory { models = try plan.finish(models) }
        return models
    }

    /// How many models `descriptor` matches (its limit and offset applied).
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        let plan = FetchPlan(descriptor)
        if plan.isInMemory { return try fetch(descriptor).count }
        return try objectContext.count(plan.request, options: plan.options)
    }

    /// The identifiers of the models `descriptor` matches, in its order.
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier]
    {
        let plan = FetchPlan(descriptor)
        if plan.isInMemory { return try fetch(descriptor).map(\.persistentModelID) }
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

/// How a fetch descriptor runs: what the engine's request does, and what is left to do in
/// memory on the models it returns (a predicate or sort the request does not carry; then the
/// offset and limit apply in memory too).
struct FetchPlan<T: PersistentModel> {
    let descriptor: FetchDescriptor<T>
    var request: FetchRequest
    var options: FetchOptions
    /// Whether the predicate, sorts, offset and limit apply in memory.
    let isInMemory: Bool

    init(_ descriptor: FetchDescriptor<T>) {
        self.descriptor = descriptor
        request = FetchRequest(entityName: entityName(of: T.self))
        options = FetchOptions(includesPendingChanges: descriptor.includePendingChanges)
        isInMemory = descriptor.predicate != nil || !descriptor.sortBy.isEmpty
        if !isInMemory {
            request.limit = descriptor.fetchLimit
            request.offset = descriptor.fetchOffset ?? 0
        }
    }

    /// Applies the predicate, sorts, offset and limit to `models`.
    func finish(_ models: [T]) throws -> [T] {
        var result = models
        if let predicate = descriptor.predicate { result = try result.filter { try predicate.evaluate($0) } }
        if !descriptor.sortBy.isEmpty { result.sort(using: descriptor.sortBy) }
        let offset = min(max(0, descriptor.fetchOffset ?? 0), result.count)
        let end = descriptor.fetchLimit.map { min(result.count, offset + max(0, $0)) } ?? result.count
        return Array(result[offset..<end])
    }
}
