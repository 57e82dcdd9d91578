/// Turns a ``SaveRequest`` into the ``HistoryChange``s a store records for it.
///
/// A store calls it inside its write transaction, after checking versions, with the stored state
/// of the updated and deleted objects: the request's ``SaveRequest/Update/previous`` when it is
/// at the expected version, the stored row otherwise.
public struct HistoryChangeRecorder: Sendable {
    /// The store's model.
    public let model: Model

    /// Creates a recorder for `model`.
    public init(model: Model) { self.model = model }

    /// Whether recording a delete of `entityName` needs the object's stored state (its entity
    /// keeps some attribute's value after deletion).
    public func needsStateOfDeleted(_ entityName: String) -> Bool {
        model.entity(named: entityName)?.attributes.contains { $0.preservesValueOnDeletion } ?? false
    }

    /// The keys, per entity, of the objects whose stored state ``changes(for:storedState:)`` asks
    /// for: each update whose ``SaveRequest/Update/previous`` is missing or at another version,
    /// and each such delete of an entity that keeps values after deletion. A store reads them
    /// inside its write transaction, before its statements run: one read per entity.
    package func keysNeedingStoredState(of request: SaveRequest) -> [String: [Int64]] {
        var keys: [String: [Int64]] = [:]
        for update in request.updates where update.previous?.version != update.expectedVersion {
            keys[update.snapshot.objectID.entityName, default: []].append(update.snapshot.objectID.permanentKey)
        }
        for delete in request.deletes
        where delete.previous?.version != delete.expectedVersion && needsStateOfDeleted(delete.objectID.entityName) {
            keys[delete.objectID.entityName, default: []].append(delete.objectID.permanentKey)
        }
        return keys
    }

    /// The request's changes: inserts, then updates, then deletes, each in request order.
    ///
    /// - Parameter storedState: the stored snapshot of an updated or deleted object before the save,
    ///   asked for only when the request's ``SaveRequest/Update/previous`` is missing or at another
    ///   version (and, for a delete, only when ``needsStateOfDeleted(_:)``). An update whose state
    ///   is unknown is recorded without its properties.
    public func changes(
        for request: SaveRequest, storedState: (ObjectID) throws -> Snapshot?
    ) throws -> [HistoryChange] {
        var changes: [HistoryChange] = []
        changes.reserveCapacity(request.inserts.count + request.updates.count + request.deletes.count)
        for insert in request.inserts { changes.append(HistoryChange(kind: .insert, objectID: insert.objectID)) }
        // Updates come in runs of one entity: look each run's entity up once.
        var runEntity: Entity?
        for update in request.updates {
            let id = update.snapshot.objectID
            let given = update.previous.flatMap { $0.version == update.expectedVersion ? $0 : nil }
            let before = try given ?? storedState(id)
            if runEntity?.name != id.entityName { runEntity = model.entity(named: id.entityName) }
            let properties =
                before.flatMap { old in runEntity.map { changedProperties(from: old, to: update.snapshot, of: $0) } }
                ?? []
            changes.append(HistoryChange(kind: .update, objectID: id, properties: properties))
        }
        for delete in request.deletes {
            var tombstone: [String: Value] = [:]
            if needsStateOfDeleted(delete.objectID.entityName),
                let entity = model.entity(named: delete.objectID.entityName)
            {
                let given = delete.previous.flatMap { $0.version == delete.expectedVersion ? $0 : nil }
                let before = try given ?? storedState(delete.objectID)
                if let before {
                    for (index, attribute) in entity.attributes.enumerated()
                    where attribute.preservesValueOnDeletion && index < before.attributes.count {
                        tombstone[attribute.name] = before.attributes[index]
                    }
                }
            }
            changes.append(HistoryChange(kind: .delete, objectID: delete.objectID, tombstone: tombstone))
        }
        return changes
    }

    /// The properties whose values differ between `old` and `new`, in the entity's order. Targets
    /// of an unordered to-many relationship compare as sets.
    public func changedProperties(from old: Snapshot, to new: Snapshot) -> [PropertyChange] {
        guard let entity = model.entity(named: new.objectID.entityName) else { return [] }
        return changedProperties(from: old, to: new, of: entity)
    }

    /// ``changedProperties(from:to:)`` for snapshots of `entity`, looked up by the caller.
    func changedProperties(from old: Snapshot, to new: Snapshot, of entity: Entity) -> [PropertyChange] {
        var result: [PropertyChange] = []
        let attributes = entity.attributes
        for index in 0..<min(attributes.count, old.attributes.count, new.attributes.count)
        where old.attributes[index] != new.attributes[index] {
            result.append(
                PropertyChange(
                    name: attributes[index].name, oldValue: .attribute(old.attributes[index]),
                    newValue: .attribute(new.attributes[index])))
        }
        let relationships = entity.relationships
        for index in 0..<min(relationships.count, old.relationships.count, new.relationships.count) {
            let before = old.relationships[index]
            let after = new.relationships[index]
            guard before != after else { continue }
            if relationships[index].isToMany, !relationships[index].isOrdered,
                Set(before.targets) == Set(after.targets)
            {
                continue
            }
            result.append(
                PropertyChange(
                    name: relationships[index].name, oldValue: .relationship(before), newValue: .relationship(after)))
        }
        return result
    }
}
