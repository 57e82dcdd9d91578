import StrataCore

extension ObjectContext {
    /// Loads what the save's deletes need and ``delete(_:)`` left unloaded, with one request per
    /// entity where the context reads from (per level of a cascade), instead of one per object:
    ///
    /// - the deleted faults: in a root context every one (its version is checked against the
    ///   store, and history may keep some of its values); in a child those with relationships
    ///   (the parent reads the others by ID when the child saves);
    /// - the targets their delete rules change (`nullify`) or delete (`cascade`), then the
    ///   targets of the objects a cascade deletes, and so on down the cascade.
    ///
    /// Returns the objects it loaded, which the caller keeps until the delete rules have run (a
    /// registry sweep would otherwise release those only the registry holds). A deleted fault
    /// whose object no longer exists stays a fault: the save reports it as a conflict (deleted
    /// where the context saves), which a merge policy resolves by leaving it out of the save.
    func loadForDeletes() throws -> [ManagedObject] {
        var loaded: [ManagedObject] = []
        var faults: [ObjectID] = []
        var level: [ManagedObject] = []
        for object in changed.values
        where object.state.isDeleted && !object.state.isInserted && !vanished.contains(object.objectID) {
            let hasRules = !object.entity.relationships.isEmpty
            if object.state.isFault && (parent == nil || hasRules) { faults.append(object.objectID) }
            if hasRules { level.append(object) }
        }
        try load(faults, into: &loaded)
        var requested = Set(faults)
        var expanded = Set(level.map(\.objectID))
        while !level.isEmpty {
            var targets: [ObjectID] = []
            var next: [ObjectID] = []
            for object in level where !object.state.isFault {
                for (index, relationship) in object.entity.relationships.enumerated() {
                    let rule = relationship.deleteRule
                    guard rule == .cascade || rule == .nullify else { continue }
                    for target in object.relationshipValues[index].targets {
                        if requested.insert(target).inserted, registeredObject(for: target)?.state.isFault ?? true {
                            targets.append(target)
                        }
                        if rule == .cascade, expanded.insert(target).inserted { next.append(target) }
                    }
                }
            }
            try load(targets, into: &loaded)
            level = next.compactMap { registeredObject(for: $0) }.filter {
                !$0.entity.relationships.isEmpty && !$0.state.isInserted
            }
        }
        return loaded
    }

    /// Loads the objects of `ids` (faults, or not registered yet) that exist where the context
    /// reads from, in one request per entity (``sourceSnapshots(for:)``), appending them to
    /// `loaded`.
    private func load(_ ids: [ObjectID], into loaded: inout [ManagedObject]) throws {
        guard !ids.isEmpty else { return }
        let snapshots = try sourceSnapshots(for: ids)
        loaded.reserveCapacity(loaded.count + snapshots.count)
        for id in ids {
            guard let snapshot = snapshots[id] else { continue }
            let object = self.object(with: id)
            if object.state.isFault { object.apply(snapshot) }
            loaded.append(object)
        }
    }
}
