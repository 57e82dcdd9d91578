import StrataCore

/// The whole graph of an XML store, as it lives in memory between a load and a save.
///
/// One ``EntityTable`` per entity of the model, indexed like ``Model/entities``. A loaded table is
/// kept column by column (one array per attribute, strings in one byte arena), so loading 100,000
/// objects allocates a few dozen arrays rather than 100,000 value arrays and a heap string per
/// string value; a saved table keeps the saved rows as they came. Relationship targets are bare
/// 64-bit keys (the destination entity and the store identifier are implied).
/// A value type: a save builds the next image from a copy and swaps it in whole.
struct XMLStoreImage: Sendable {
    /// The metadata recorded in the root element and the `_meta` elements.
    var metadata: StoreMetadata
    /// For each entity (indexed like the model), the next primary key to hand out.
    var nextKeys: [Int64]
    /// For each entity (indexed like the model), its objects in primary-key order.
    var tables: [EntityTable]
    /// The JSON of the model the store is written with, recorded in the root element.
    var modelJSON: String
    /// The persistent history, written after the objects (empty: no `<_history>` element).
    var history = XMLHistory()

    /// An empty graph for a new store.
    init(metadata: StoreMetadata, model: Model) {
        self.metadata = metadata
        self.modelJSON = String(decoding: model.jsonData(), as: UTF8.self)
        self.nextKeys = Array(repeating: 1, count: model.entities.count)
        self.tables = Array(repeating: EntityTable(), count: model.entities.count)
    }

    /// The number of objects of every entity.
    var objectCount: Int { tables.reduce(0) { $0 + $1.count } }
}

/// The stored state of one object, without its identity (the table knows the entity and key): what
/// a save builds from a snapshot, kept as it is by a table in rows (``EntityTable/Storage/rows(_:)``).
struct StoredRow: Sendable {
    /// The optimistic-locking version.
    var version: Int64
    /// Attribute values, indexed like ``Entity/attributes``.
    var attributes: [Value]
    /// Relationship targets as primary keys of the destination entity, indexed like
    /// ``Entity/relationships``; empty when the entity has no relationship.
    var relationships: [StoredRelationship]
}

/// The targets of one relationship, as primary keys of its destination entity.
enum StoredRelationship: Sendable, Hashable {
    /// A to-one target, or none.
    case toOne(Int64?)
    /// To-many targets: sorted for an unordered relationship, the user's order for an ordered one.
    case toMany([Int64])

    /// Every target key.
    var keys: [Int64] {
        switch self {
        case .toOne(let key): return key.map { [$0] } ?? []
        case .toMany(let keys): return keys
        }
    }
}
