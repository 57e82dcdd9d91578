import StrataCore

extension XMLStore {
    /// Every request is evaluated natively: the store runs StrataCore's own ``QueryEvaluation``
    /// over its in-memory graph, so the answer is exactly the reference one.
    public func canEvaluateNatively(_ request: FetchRequest) -> Bool { true }

    /// Answers a fetch from the in-memory graph.
    ///
    /// A plain request (no predicate, sorts, limit or offset, snapshots) is a scan in key order
    /// or, with ``FetchRequest/objectIDs``, O(log n) lookups; anything else goes through
    /// ``QueryEvaluation`` with relationships resolved in the same graph, so the whole fetch sees
    /// one consistent state even while a save commits.
    public func execute(_ request: FetchRequest) throws -> FetchResult {
        let e = try entityIndex(request.entityName)
        try request.validateShape()
        let image = try state.withLock { state in
            try checkOpen(state)
            return state.image
        }
        let candidates = snapshots(of: e, ids: request.objectIDs, in: image)
        let isPlain = request.predicate == nil && request.sorts.isEmpty && request.limit == nil && request.offset == 0
        if isPlain && request.resultType == .snapshots { return .snapshots(candidates) }
        let evaluator = PredicateEvaluator(model: model) { [self] id in snapshot(of: id, in: image) }
        let unfiltered = FetchRequest(
            entityName: request.entityName, predicate: request.predicate, sorts: request.sorts, limit: request.limit,
            offset: request.offset, resultType: request.resultType, propertiesToFetch: request.propertiesToFetch)
        return try QueryEvaluation.run(unfiltered, over: candidates, evaluator: evaluator)
    }

    /// The snapshots of entity `e`, in key order: all of them, or those named by `ids` (skipping
    /// IDs of another entity or store and objects that do not exist).
    func snapshots(of e: Int, ids: [ObjectID]?, in image: XMLStoreImage) -> [Snapshot] {
        let table = image.tables[e]
        guard let ids else {
            var result: [Snapshot] = []
            result.reserveCapacity(table.count)
            for i in 0..<table.count { result.append(snapshot(e, table.keys[i], table.rows[i])) }
            return result
        }
        let name = layout.entities[e].entity.name
        var indexes: [Int] = []
        indexes.reserveCapacity(ids.count)
        for id in ids where id.entityName == name && id.storeIdentifier == identifier {
            if let key = id.primaryKey, let i = table.index(of: key) { indexes.append(i) }
        }
        indexes.sort()
        var result: [Snapshot] = []
        result.reserveCapacity(indexes.count)
        var previous = -1
        for i in indexes where i != previous {
            result.append(snapshot(e, table.keys[i], table.rows[i]))
            previous = i
        }
        return result
    }

    /// The snapshot of `id` in `image`, or `nil` when it does not exist there.
    func snapshot(of id: ObjectID, in image: XMLStoreImage) -> Snapshot? {
        guard id.storeIdentifier == identifier, let key = id.primaryKey, let e = layout.entityIndexByName[id.entityName],
              let row = image.tables[e].row(for: key)
        else { return nil }
        return snapshot(e, key, row)
    }

    /// A stored row as a ``Snapshot``.
    func snapshot(_ e: Int, _ key: Int64, _ row: StoredRow) -> Snapshot {
        let entityLayout = layout.entities[e]
        let entity = entityLayout.entity
        var relationships: [RelationshipValue] = []
        if !row.relationships.isEmpty {
            relationships.reserveCapacity(row.relationships.count)
            for (r, stored) in row.relationships.enumerated() {
                let destination = entity.relationships[r].destination
                switch stored {
                case .toOne(let target):
                    relationships.append(.toOne(target.map { ObjectID(entityName: destination, storeIdentifier: identifier, primaryKey: $0) }))
                case .toMany(let targets):
                    relationships.append(.toMany(targets.map { ObjectID(entityName: destination, storeIdentifier: identifier, primaryKey: $0) }))
                }
            }
        }
        return Snapshot(
            objectID: ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: key),
            version: row.version, attributes: row.attributes, relationships: relationships)
    }
}
