import StrataCore

extension XMLStore {
    /// The stored snapshots of `entityName` (all, or those among `ids`), in key order, made from
    /// the table's columns.
    public func snapshots(of entityName: String, among ids: [ObjectID]?) throws -> [Snapshot] {
        let e = try entityIndex(entityName)
        let table = try currentImage().tables[e]
        return snapshots(of: e, rows: rowIndexes(of: e, ids: ids, in: table) ?? Array(0..<table.count), in: table)
    }

    /// Answers a fetch natively from the in-memory graph.
    ///
    /// A request without predicate or sorts is a scan in key order or, with
    /// ``FetchRequest/objectIDs``, O(log n) lookups, and a count or a list of IDs of one is
    /// answered without making any snapshot; anything else goes through ``QueryEvaluation``
    /// with relationships resolved in the same graph, so the whole fetch sees one consistent
    /// state even while a save commits. Snapshots are made from the table's columns when asked
    /// for (``snapshot(_:_:_:)``).
    public func fetch(_ request: FetchRequest) throws -> FetchResult {
        let e = try entityIndex(request.entityName)
        try request.checkUnlessValidated(for: model, entityIsKnown: true)
        let image = try currentImage()
        let table = image.tables[e]
        let rows = rowIndexes(of: e, ids: request.objectIDs, in: table)
        if request.predicate == nil && request.sorts.isEmpty && request.resultType != .dictionaries {
            let all = rows ?? Array(0..<table.count)
            let start = min(request.offset, all.count)
            let end = request.limit.map { min(start + $0, all.count) } ?? all.count
            switch request.resultType {
            case .count: return .count(end - start)
            case .objectIDs:
                let scope = entityScopes[e]
                return .objectIDs(all[start..<end].map { scope.id(primaryKey: table.keys[$0]) })
            default: return .snapshots(snapshots(of: e, rows: all[start..<end], in: table))
            }
        }
        let candidates = snapshots(of: e, rows: rows ?? Array(0..<table.count), in: table)
        let evaluator = PredicateEvaluator(model: model) { [self] id in snapshot(of: id, in: image) }
        var unrestricted = request
        unrestricted.objectIDs = nil
        return try QueryEvaluation.run(unrestricted, over: candidates, evaluator: evaluator)
    }

    /// The graph as it stands, for one read.
    ///
    /// - Throws: ``StrataError/Code/storeClosed`` when the store is closed.
    private func currentImage() throws -> XMLStoreImage {
        try state.withLock { state in
            try checkOpen(state)
            return state.image
        }
    }

    /// The rows of `table` (entity `e`) named by `ids`, in key order, each once (skipping IDs of
    /// another entity or store and objects that do not exist); `nil` for no `ids` (every row).
    func rowIndexes(of e: Int, ids: [ObjectID]?, in table: EntityTable) -> [Int]? {
        guard let ids else { return nil }
        let name = layout.entities[e].entity.name
        var indexes: [Int] = []
        indexes.reserveCapacity(ids.count)
        for id in ids where id.entityName == name && id.storeIdentifier == identifier {
            if let key = id.primaryKey, let i = table.index(of: key) { indexes.append(i) }
        }
        indexes.sort()
        var unique: [Int] = []
        unique.reserveCapacity(indexes.count)
        for i in indexes where unique.last != i { unique.append(i) }
        return unique
    }

    /// The snapshots of `rows` of `table` (entity `e`), in that order.
    func snapshots<Rows: Collection<Int>>(of e: Int, rows: Rows, in table: EntityTable) -> [Snapshot] {
        var result: [Snapshot] = []
        result.reserveCapacity(rows.count)
        switch table.storage {
        case .rows(let stored):
            for i in rows { result.append(snapshot(e, table.keys[i], stored[i])) }
        case .columns(let columns):
            columns.columns.withUnsafeBufferPointer { attributeColumns in
                for i in rows { result.append(snapshot(e, table.keys[i], columns, attributeColumns, i)) }
            }
        }
        return result
    }

    /// The snapshot of `id` in `image`, or `nil` when it does not exist there.
    func snapshot(of id: ObjectID, in image: XMLStoreImage) -> Snapshot? {
        guard id.storeIdentifier == identifier, let key = id.primaryKey,
            let e = layout.entityIndexByName[id.entityName],
            let i = image.tables[e].index(of: key)
        else { return nil }
        return snapshot(e, image.tables[e], i)
    }

    /// Row `i` of `table` (entity `e`) as a ``Snapshot``.
    func snapshot(_ e: Int, _ table: EntityTable, _ i: Int) -> Snapshot {
        switch table.storage {
        case .rows(let stored):
            return snapshot(e, table.keys[i], stored[i])
        case .columns(let columns):
            return columns.columns.withUnsafeBufferPointer { snapshot(e, table.keys[i], columns, $0, i) }
        }
    }

    /// A stored row as a ``Snapshot`` (its value arrays are shared, not copied).
    func snapshot(_ e: Int, _ key: Int64, _ row: StoredRow) -> Snapshot {
        let entityLayout = layout.entities[e]
        var relationships: [RelationshipValue] = []
        if !row.relationships.isEmpty {
            relationships.reserveCapacity(row.relationships.count)
            for (r, stored) in row.relationships.enumerated() {
                relationships.append(
                    relationshipValue(
                        stored.keys[...], toMany: entityLayout.isToMany[r], destination: destinationScopes[e][r]))
            }
        }
        return Snapshot(
            objectID: entityScopes[e].id(primaryKey: key),
            version: row.version, attributes: row.attributes, relationships: relationships)
    }

    /// Row `i` of `columns` (entity `e`, key `key`; `attributeColumns` are its attribute
    /// columns) as a ``Snapshot``: its values boxed from the columns, its strings copied out of
    /// the arena.
    func snapshot(
        _ e: Int, _ key: Int64, _ columns: EntityColumns, _ attributeColumns: UnsafeBufferPointer<XMLColumn>, _ i: Int
    ) -> Snapshot {
        var attributes: [Value] = []
        attributes.reserveCapacity(attributeColumns.count)
        for a in attributeColumns.indices { attributes.append(attributeColumns[a].value(at: i)) }
        var relationships: [RelationshipValue] = []
        if !columns.relationships.isEmpty {
            relationships.reserveCapacity(columns.relationships.count)
            for (r, column) in columns.relationships.enumerated() {
                relationships.append(
                    relationshipValue(column.keys(at: i), toMany: column.isToMany, destination: destinationScopes[e][r])
                )
            }
        }
        return Snapshot(
            objectID: entityScopes[e].id(primaryKey: key),
            version: columns.versions[i], attributes: attributes, relationships: relationships)
    }

    /// Target keys of `destination` as a relationship value.
    func relationshipValue(_ keys: ArraySlice<Int64>, toMany: Bool, destination: ObjectID.Scope) -> RelationshipValue {
        if toMany { return .toMany(keys.map { destination.id(primaryKey: $0) }) }
        return .toOne(keys.first.map { destination.id(primaryKey: $0) })
    }
}
