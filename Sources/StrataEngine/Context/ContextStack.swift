import Dispatch

/// The usual context stacks, each set up in one line, with MagicalRecord-style save helpers.
///
/// ```swift
/// let stack = ContextStack.threeTier(coordinator: coordinator)   // writer <- view <- workers
/// try await stack.save { context in
///     context.insert(Team.self).name = "Lakers"
/// }                                    // worker saves into view, view into writer, writer to the store
/// ```
///
/// - Two tiers: a main-queue ``viewContext`` on the coordinator (it is the ``root``), with
///   private-queue worker children.
/// - Three tiers: a private-queue writer ``root`` on the coordinator, a main-queue
///   ``viewContext`` child of it, and private-queue worker children of the view context; saving
///   the view context costs the main queue no store I/O.
public struct ContextStack: Sendable {
    /// The context attached to the coordinator: the only one that writes to the stores.
    public let root: ObjectContext
    /// The main-queue context the user interface reads.
    public let viewContext: ObjectContext

    /// A main-queue view context on `coordinator`, which is also the root.
    public static func twoTier(coordinator: StoreCoordinator) -> ContextStack {
        let view = ObjectContext(coordinator: coordinator, concurrencyType: .mainQueue, name: "view")
        return ContextStack(root: view, viewContext: view)
    }

    /// A private-queue writer on `coordinator`, and a main-queue view context as its child.
    public static func threeTier(coordinator: StoreCoordinator) -> ContextStack {
        let writer = ObjectContext(coordinator: coordinator, name: "writer")
        return ContextStack(
            root: writer, viewContext: ObjectContext(parent: writer, concurrencyType: .mainQueue, name: "view"))
    }

    /// A new private-queue child of the view context, for background work.
    public func newWorkerContext(name: String? = "worker") -> ObjectContext {
        ObjectContext(parent: viewContext, name: name)
    }

    /// The contexts a worker's save climbs through: the view context, then the root when it is
    /// another context.
    private var chain: [ObjectContext] { root === viewContext ? [viewContext] : [viewContext, root] }

    /// MagicalRecord's `saveWithBlock`: runs `block` on a new worker context's queue, saves the
    /// worker, then each level up to the store, each on its own queue, and calls `completion`
    /// (on the root's queue) with `nil` or the first error. Returns at once.
    public func save(
        _ block: @escaping @Sendable (ObjectContext) throws -> Void,
        completion: @escaping @Sendable ((any Error)?) -> Void
    ) {
        let worker = newWorkerContext()
        let chain = self.chain
        worker.perform {
            do {
                try block(worker)
                try worker.save()
            } catch {
                completion(error)
                return
            }
            ContextStack.saveLevels(chain[...], completion: completion)
        }
    }

    /// Saves `levels` in order, each on its own queue, then calls `completion`.
    private static func saveLevels(
        _ levels: ArraySlice<ObjectContext>, completion: @escaping @Sendable ((any Error)?) -> Void
    ) {
        guard let context = levels.first else { return completion(nil) }
        context.perform {
            do { try context.save() } catch { return completion(error) }
            saveLevels(levels.dropFirst(), completion: completion)
        }
    }

    /// MagicalRecord's `saveWithBlockAndWait`: the same as ``save(_:completion:)`` but waits, and
    /// throws the first error. Each level saves inside its `performAndWait`, so the
    /// blocks run on the *calling* thread; call it off the main thread when the
    /// block is long.
    public func saveAndWait(_ block: (ObjectContext) throws -> Void) throws {
        let worker = newWorkerContext()
        try worker.performAndWait {
            try block(worker)
            try worker.save()
        }
        for context in chain { try context.performAndWait { try context.save() } }
    }

    /// The `async` form of ``save(_:completion:)``: returns when the changes are in the store,
    /// or throws the first error.
    public func save(_ block: @escaping @Sendable (ObjectContext) throws -> Void) async throws {
        let worker = newWorkerContext()
        try await worker.perform {
            try block(worker)
            try worker.save()
        }
        for context in chain { try await context.perform { try context.save() } }
    }
}
