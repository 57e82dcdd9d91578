import CStrataLMDB
import StrataCore

/// Where an entity's attributes and relationships sit in its records, when that differs from the
/// order the model that opened the store declares them in.
///
/// A record lists its values by position (``RecordCodec``). The version hash leaves the order of
/// declarations out, so a store written with one model opens with any model of the same
/// structure: one declared in Swift (`@Model`, `@Managed`) and one read from a JSON file whose
/// properties come in another order, say. The store records the order its records use, in
/// `_meta` under `order.ENTITY` (`name,height;department`), and reads and writes records in
/// that order whatever the model's. A store that records no order (made before this key
/// existed) uses the order of the model that opens it, as it always did.
struct RecordOrder: Sendable, Equatable {
    /// By record position: the index of the attribute in the entity's declarations.
    let attributes: [Int]
    /// By record position: the index of the relationship in the entity's declarations.
    let relationships: [Int]

    /// The `_meta` key that holds the record order of `entity`.
    static func metadataKey(_ entity: String) -> String { "order.\(entity)" }

    /// The `_meta` value of `entity`'s declaration order: attribute names, `;`, relationship names.
    static func text(of entity: Entity) -> String {
        entity.attributes.map(\.name).joined(separator: ",") + ";"
            + entity.relationships.map(\.name).joined(separator: ",")
    }

    /// The order `text` records for `entity`, or `nil` when it is the entity's declaration order.
    ///
    /// - Throws: ``StrataError/Code/storeCorrupt`` when `text` does not name each of the entity's
    ///   attributes and relationships once.
    static func recorded(_ text: String, for entity: Entity, path: String) throws -> RecordOrder? {
        let parts = text.split(separator: ";", omittingEmptySubsequences: false)
        func positions(_ part: Substring, _ count: Int, _ index: (String) -> Int?) -> [Int]? {
            let names = part.isEmpty ? [] : part.split(separator: ",", omittingEmptySubsequences: false)
            let found = names.compactMap { index(String($0)) }
            guard found.count == count, names.count == count, Set(found).count == count else { return nil }
            return found
        }
        guard parts.count == 2,
            let attributes = positions(parts[0], entity.attributes.count, entity.attributeIndex(named:)),
            let relationships = positions(parts[1], entity.relationships.count, entity.relationshipIndex(named:))
        else {
            throw StrataError(
                .storeCorrupt,
                "the LMDB store at \(path) records the order '\(text)' for entity \(entity.name), which does not list its properties (\(Self.text(of: entity)))",
                location: ["path": path, "entity": entity.name])
        }
        let order = RecordOrder(attributes: attributes, relationships: relationships)
        return order.isDeclarationOrder ? nil : order
    }

    /// Whether every property sits at its declaration's index.
    var isDeclarationOrder: Bool {
        attributes.elementsEqual(attributes.indices) && relationships.elementsEqual(relationships.indices)
    }

    /// `values` in record order, given in declaration order.
    func toRecord<T>(_ values: [T], _ positions: [Int]) -> [T] { positions.map { values[$0] } }

    /// `values` in declaration order, given in record order.
    func toDeclaration<T>(_ values: [T], _ positions: [Int]) -> [T] {
        var result = values
        for (recordPosition, index) in positions.enumerated() { result[index] = values[recordPosition] }
        return result
    }

    /// The record orders `_meta` holds for the entities of `model`, by entity name (entities whose
    /// records use the model's declaration order are left out).
    static func read(_ txn: LMDBTransaction, _ meta: MDB_dbi, model: Model, path: String) throws -> [String:
        RecordOrder]
    {
        var orders: [String: RecordOrder] = [:]
        for entity in model.entities {
            let text = try Array(metadataKey(entity.name).utf8).withUnsafeBytes { key in
                try txn.get(meta, key: key).map { String(decoding: $0, as: UTF8.self) }
            }
            guard let text, let order = try recorded(text, for: entity, path: path) else { continue }
            orders[entity.name] = order
        }
        return orders
    }

    /// Records in `_meta` that the records of `entity` use its declaration order.
    static func write(_ txn: LMDBTransaction, _ meta: MDB_dbi, entity: Entity) throws {
        try LMDBStore.putText(txn, meta, metadataKey(entity.name), text(of: entity))
    }
}
