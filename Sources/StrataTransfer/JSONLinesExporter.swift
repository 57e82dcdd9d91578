import Foundation
import StrataCore

/// Writes a store's objects as JSON Lines, one object per line, in a canonical form (see
/// docs/CLI.md, "JSON Lines"):
///
/// ```
/// {"entity":"Employee","ref":"Employee/1","attributes":{"name":"lxz","height":1.7},"relationships":{"department":"Department/1"}}
/// ```
///
/// - Entities in model order, objects in primary-key order.
/// - Every attribute, in model order, `null` included; values encoded by ``JSONValueCoding``.
/// - Every relationship, in model order: a reference or `null` for a to-one, an array for a
///   to-many (ordered ones in their order, others in the order of the lines they name).
/// - References are `ENTITY/N` (``JSONLinesReference``), local to the file.
///
/// An export limited to some entities or to a predicate keeps only the relationships between
/// exported objects, so the file always imports on its own.
///
/// Memory: the exported objects' keys (8 bytes each) plus one batch of snapshots.
public struct JSONLinesExporter: Sendable {
    /// Objects fetched at a time.
    public var batchSize: Int

    /// Creates an exporter fetching `batchSize` objects at a time.
    public init(batchSize: Int = 1_000) {
        self.batchSize = max(1, batchSize)
    }

    /// Writes the objects of `store` to `write`, one line (ending in `"\n"`) per call.
    ///
    /// - Parameters:
    ///   - entityNames: the entities to export (all, in model order, when `nil`).
    ///   - predicate: keeps only the objects of `entityNames` matching it.
    /// - Returns: how many objects were written, by entity.
    /// - Throws: ``StrataError/Code/unknownEntity``, the predicate's errors
    ///   (``StrataError/Code/unknownKey``, ...) and the store's.
    @discardableResult
    public func export(
        from store: any PersistentStore,
        entityNames: [String]? = nil,
        predicate: ObjectPredicate? = nil,
        write: (String) throws -> Void
    ) throws -> [String: Int] {
        let model = store.model
        let entities: [Entity]
        if let entityNames {
            for name in entityNames { _ = try model.requireEntity(name) }
            entities = model.entities.filter { entityNames.contains($0.name) }
        } else {
            entities = model.entities
        }
        var exported = ExportedKeys()
        for entity in entities {
            let keys = try store.fetch(
                FetchRequest(entityName: entity.name, predicate: predicate, resultType: .objectIDs)
            ).objectIDs()
                .compactMap(\.primaryKey).sorted()
            exported.set(keys, for: entity.name)
        }
        var counts: [String: Int] = [:]
        for entity in entities {
            let keys = exported.keys(of: entity.name)
            counts[entity.name] = keys.count
            var start = 0
            while start < keys.count {
                let batch = keys[start..<min(start + batchSize, keys.count)].map {
                    ObjectID(entityName: entity.name, storeIdentifier: store.identifier, primaryKey: $0)
                }
                let snapshots = try store.fetch(FetchRequest(entityName: entity.name, objectIDs: batch)).snapshots()
                for snapshot in snapshots {
                    guard let reference = exported.reference(of: snapshot.objectID) else { continue }
                    try write(Self.line(snapshot, entity: entity, reference: reference, exported: exported) + "\n")
                }
                start += batch.count
            }
        }
        return counts
    }

    static func line(_ snapshot: Snapshot, entity: Entity, reference: String, exported: ExportedKeys) -> String {
        var writer = JSONLineWriter()
        writer.raw("{\"entity\":")
        writer.string(entity.name)
        writer.raw(",\"ref\":")
        writer.string(reference)
        writer.raw(",\"attributes\":{")
        for (i, (attribute, value)) in zip(entity.attributes, snapshot.attributes).enumerated() {
            if i > 0 { writer.raw(",") }
            writer.key(attribute.name)
            writer.value(value)
        }
        writer.raw("},\"relationships\":{")
        for (i, (relationship, value)) in zip(entity.relationships, snapshot.relationships).enumerated() {
            if i > 0 { writer.raw(",") }
            writer.key(relationship.name)
            switch value {
            case .toOne(let target):
                if let reference = target.flatMap(exported.reference(of:)) {
                    writer.string(reference)
                } else {
                    writer.raw("null")
                }
            case .toMany(let targets):
                var kept = targets.compactMap { target in
                    exported.reference(of: target).map { (position: exported.position(of: target), reference: $0) }
                }
                if !relationship.isOrdered { kept.sort { $0.position < $1.position } }
                writer.raw("[")
                for (j, target) in kept.enumerated() {
                    if j > 0 { writer.raw(",") }
                    writer.string(target.reference)
                }
                writer.raw("]")
            }
        }
        writer.raw("}}")
        return writer.text
    }
}
