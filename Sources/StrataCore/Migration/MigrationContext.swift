/// The handle a ``MigrationStage`` closure works through: a store open at one model version,
/// read and changed object by object, in batches, so memory stays bounded.
///
/// Not a full `ObjectContext` (the engine depends on this module, not the other way round):
/// values are read and written by property name on ``MigrationObject``s.
public final class MigrationContext {
    /// The model version the store is open with.
    public let model: Model
    /// The open store.
    public let store: any PersistentStore
    /// How many objects a batch holds.
    public let batchSize: Int

    /// Creates a context over an open store.
    public init(store: any PersistentStore, batchSize: Int = 1_000) {
        self.store = store
        self.model = store.model
        self.batchSize = max(1, batchSize)
    }

    /// The IDs of the objects of `entityName` matching `predicate` (all when `nil`), in
    /// primary-key order: the store's own querying answers when it can.
    ///
    /// - Throws: ``StrataError/Code/unknownEntity``, ``StrataError/Code/unknownKey`` or
    ///   ``StrataError/Code/invalidPredicate`` for a predicate that does not fit the model.
    public func objectIDs(_ entityName: String, where predicate: ObjectPredicate? = nil) throws -> [ObjectID] {
        try store.fetch(FetchRequest(entityName: entityName, predicate: predicate, resultType: .objectIDs)).objectIDs()
    }

    /// The number of objects of `entityName` matching `predicate`.
    public func count(_ entityName: String, where predicate: ObjectPredicate? = nil) throws -> Int {
        try objectIDs(entityName, where: predicate).count
    }

    /// The objects with `ids` (all of one entity), in primary-key order.
    public func objects(_ ids: [ObjectID]) throws -> [MigrationObject] {
        guard let first = ids.first else { return [] }
        let entity = try model.requireEntity(first.entityName)
        return try store.snapshots(of: entity.name, among: ids).map { MigrationObject(snapshot: $0, entity: entity) }
    }

    /// Calls `body` on every object of `entityName` matching `predicate`, a batch at a time, and
    /// saves each batch's changed objects before reading the next.
    public func updateEach(
        _ entityName: String, where predicate: ObjectPredicate? = nil, _ body: (inout MigrationObject) throws -> Void
    ) throws {
        let ids = try objectIDs(entityName, where: predicate)
        var start = 0
        while start < ids.count {
            let batch = Array(ids[start..<min(ids.count, start + batchSize)])
            start += batch.count
            var updates: [SaveRequest.Update] = []
            for var object in try objects(batch) {
                let before = object.snapshot
                try body(&object)
                if object.snapshot != before {
                    updates.append(SaveRequest.Update(object.snapshot, expectedVersion: before.version))
                }
            }
            if !updates.isEmpty { try store.save(SaveRequest(updates: updates)) }
        }
    }

    /// Deletes the objects with `ids`. Relationships pointing at them are not touched: a stage
    /// that deletes objects also updates the objects that point at them.
    public func delete(_ ids: [ObjectID]) throws {
        guard !ids.isEmpty else { return }
        let entity = ids[0].entityName
        let stored = try store.snapshots(of: entity, among: ids)
        try store.save(
            SaveRequest(deletes: stored.map { SaveRequest.Delete($0.objectID, expectedVersion: $0.version) }))
    }
}

/// One object as a stage sees it: its values by property name.
public struct MigrationObject: Sendable, Hashable {
    /// The stored state (changes go here).
    public private(set) var snapshot: Snapshot
    /// The object's entity.
    public let entity: Entity

    /// Wraps a snapshot of `entity`.
    public init(snapshot: Snapshot, entity: Entity) {
        self.snapshot = snapshot
        self.entity = entity
    }

    /// The object's ID.
    public var objectID: ObjectID { snapshot.objectID }

    /// The value of an attribute (``Value/null`` for an unknown name); setting an unknown name
    /// does nothing.
    public subscript(attribute: String) -> Value {
        get { snapshot.value(of: attribute, in: entity) ?? .null }
        set { if let i = entity.attributeIndex(named: attribute) { snapshot.attributes[i] = newValue } }
    }

    /// The targets of a relationship (`nil` for an unknown name).
    public func targets(of relationship: String) -> RelationshipValue? {
        snapshot.relationship(relationship, in: entity)
    }

    /// Sets the targets of a relationship; the stage keeps the inverse side consistent itself.
    public mutating func setTargets(_ value: RelationshipValue, of relationship: String) {
        if let i = entity.relationshipIndex(named: relationship) { snapshot.relationships[i] = value }
    }
}
