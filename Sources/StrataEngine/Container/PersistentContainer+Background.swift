import StrataCore

extension PersistentContainer {
    /// A new private-queue context for background work: in a three-tier stack a child of the
    /// writer (its saves reach the writer with no store I/O, and the view context merges them);
    /// in a two-tier stack a context on the coordinator (its saves write the stores, and the
    /// container merges them into the view context). Use it through `perform`.
    public func newBackgroundContext(name: String? = "background") -> ObjectContext {
        switch stackStyle {
        case .twoTier: ObjectContext(coordinator: coordinator, name: name)
        case .threeTier: ObjectContext(parent: stack.root, name: name)
        }
    }

    /// Runs `block` on a new background context's queue; when it returns without error and
    /// the stack has three tiers, saves the writer so that what the block saved reaches the
    /// stores; then calls `completion` (on the writer's or the context's queue) with `nil` or
    /// the first error. Returns at once.
    public func performBackgroundTask(
        _ block: @escaping @Sendable (ObjectContext) throws -> Void,
        completion: @escaping @Sendable ((any Error)?) -> Void = { _ in }
    ) {
        let context = newBackgroundContext()
        let root = stack.root
        let style = stackStyle
        context.perform {
            do { try block(context) } catch { return completion(error) }
            guard style == .threeTier else { return completion(nil) }
            root.perform {
                do {
                    if root.hasChanges { try root.save() }
                    completion(nil)
                } catch {
                    completion(error)
                }
            }
        }
    }

    /// The `async` form of ``performBackgroundTask(_:completion:)``: returns the block's value
    /// once what it saved is in the stores, or throws the first error.
    public func performBackgroundTask<T: Sendable>(_ block: @escaping @Sendable (ObjectContext) throws -> T)
        async throws -> T
    {
        let value = try await runInNewBackgroundContext(block)
        if stackStyle == .threeTier { try await saveRootContext() }
        return value
    }

    /// Runs `block` on a new background context's queue and lets the context go: when the
    /// writer saves next, the context is gone, and the writer's save has no child to tell the
    /// permanent IDs of the objects it pushed (renaming every one of them in a context no one
    /// can reach any more).
    private func runInNewBackgroundContext<T: Sendable>(_ block: @escaping @Sendable (ObjectContext) throws -> T)
        async throws -> T
    {
        let context = newBackgroundContext()
        return try await context.perform { try block(context) }
    }

    /// Saves the root context, the one attached to the coordinator, on its own queue: the writer
    /// of a three-tier stack (what background contexts and the view context saved into it), or
    /// the view context of a two-tier stack. Does nothing when it has no changes.
    public func saveRootContext() async throws {
        let root = stack.root
        try await root.perform { if root.hasChanges { try root.save() } }
    }
}
