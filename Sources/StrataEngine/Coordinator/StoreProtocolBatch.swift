import StrataCore

/// Batch deletes and updates for a store without ``BatchOperating``, through the store protocol
/// alone: read what the batch changes, then one save at the versions read. The coordinator runs
/// it holding the store's save lock, so only another process can save in between; its save then
/// makes this one fail with a conflict, and the batch reads again and retries.
struct StoreProtocolBatch {
    let store: any PersistentStore
    let model: Model
    /// How many times a batch is read and saved before a conflict is given to the caller.
    static let attempts = 5

    /// Deletes the objects of `entityName` that `predicate` matches, and empties the
    /// relationships of other objects (of this store) that refer to them.
    func delete(_ entityName: String, where predicate: ObjectPredicate?) throws -> BatchResult {
        try retrying {
            let doomed = try store.fetch(FetchRequest(entityName: entityName, predicate: predicate)).snapshots()
            guard !doomed.isEmpty else { return nil }
            let gone = Set(doomed.map(\.objectID))
            var request = SaveRequest()
            request.deletes = doomed.map { .init($0.objectID, expectedVersion: $0.version, previous: $0) }
            for entity in model.entities where entity.relationships.contains(where: { $0.destination == entityName }) {
                for snapshot in try store.snapshots(of: entity.name, among: nil) where !gone.contains(snapshot.objectID)
                {
                    let changed = snapshot.droppingTargets(gone, of: entityName, in: entity)
                    if changed != snapshot {
                        request.updates.append(.init(changed, expectedVersion: snapshot.version, previous: snapshot))
                    }
                }
            }
            return (request, doomed.map(\.objectID))
        }
    }

    /// Sets `assignments` on the objects of `entityName` that `predicate` matches.
    func update(_ entityName: String, where predicate: ObjectPredicate?, assignments: [(index: Int, value: Value)])
        throws -> BatchResult
    {
        try retrying {
            let matched = try store.fetch(FetchRequest(entityName: entityName, predicate: predicate)).snapshots()
            guard !matched.isEmpty else { return nil }
            var request = SaveRequest()
            request.updates = matched.map { snapshot in
                var changed = snapshot
                for (index, value) in assignments { changed.attributes[index] = value }
                return .init(changed, expectedVersion: snapshot.version, previous: snapshot)
            }
            return (request, matched.map(\.objectID))
        }
    }

    /// Plans and saves until the save finds no conflict; `plan` returns the save and the IDs it
    /// changes, or `nil` when nothing matches.
    private func retrying(_ plan: () throws -> (SaveRequest, [ObjectID])?) throws -> BatchResult {
        var attempt = 1
        while true {
            guard let (request, ids) = try plan() else { return BatchResult(objectIDs: []) }
            do {
                _ = try store.save(request)
                return BatchResult(objectIDs: ids.sorted())
            } catch let error as StrataError where error.code == .conflict && attempt < Self.attempts {
                attempt += 1
            }
        }
    }
}
