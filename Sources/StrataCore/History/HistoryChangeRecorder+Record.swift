import Foundation

extension HistoryChangeRecorder {
    /// The history record of `request`, committed at `timestamp`: the bytes
    /// ``HistoryRecordCodec/encode(_:)`` gives for a transaction holding
    /// ``changes(for:storedState:)``, written straight from the request's snapshots.
    ///
    /// A store that keeps records (not ``HistoryTransaction`` values) calls this in its save: an
    /// update's changed values are compared and encoded where they are, in the old and new
    /// snapshots, instead of being copied into ``PropertyChange``s first.
    ///
    /// - Parameters:
    ///   - storedState: as for ``changes(for:storedState:)``.
    /// - Returns: the record, and how many changes it holds (one per inserted, updated and
    ///   deleted object).
    public func record(
        for request: SaveRequest, timestamp: Date, storedState: (ObjectID) throws -> Snapshot?
    ) throws -> (record: [UInt8], changeCount: Int) {
        let changeCount = request.inserts.count + request.updates.count + request.deletes.count
        var encoder = HistoryRecordEncoder(changeCount: changeCount)
        for index in request.inserts.indices { encoder.insert(request.inserts[index].objectID) }
        var runEntity: Entity?
        // The indices of one update's changed attributes and relationships, reused.
        var attributes: [Int] = []
        var relationships: [Int] = []
        for index in request.updates.indices {
            let update = request.updates[index]
            let id = update.snapshot.objectID
            let given = update.previous.flatMap { $0.version == update.expectedVersion ? $0 : nil }
            if runEntity?.name != id.entityName { runEntity = model.entity(named: id.entityName) }
            guard let entity = runEntity, let old = try given ?? storedState(id) else {
                encoder.update(id, propertyCount: 0)
                continue
            }
            let new = update.snapshot
            attributes.removeAll(keepingCapacity: true)
            relationships.removeAll(keepingCapacity: true)
            for index in 0..<min(entity.attributes.count, old.attributes.count, new.attributes.count)
            where old.attributes[index] != new.attributes[index] {
                attributes.append(index)
            }
            for index in 0..<min(entity.relationships.count, old.relationships.count, new.relationships.count)
            where Self.changed(
                entity.relationships[index], from: old.relationships[index], to: new.relationships[index])
            {
                relationships.append(index)
            }
            encoder.update(id, propertyCount: attributes.count + relationships.count)
            for index in attributes {
                encoder.attribute(entity.attributes[index].name, old: old.attributes[index], new: new.attributes[index])
            }
            for index in relationships {
                encoder.relationship(
                    entity.relationships[index].name, old: old.relationships[index], new: new.relationships[index])
            }
        }
        for delete in request.deletes {
            encoder.delete(delete.objectID, tombstone: try tombstone(of: delete, storedState))
        }
        let record = encoder.record(
            timestamp: timestamp, author: request.transactionAuthor, contextName: request.contextName)
        return (record, changeCount)
    }
}
