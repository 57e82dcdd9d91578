import CStrataLMDB
import StrataCore

/// The named databases of a Strata LMDB environment (see docs/LMDBStore.md).
///
/// Model names never contain `:` or `,`, so these names never collide:
/// - `_meta`: store metadata (`storeIdentifier`, `storeType`, `modelVersionHash`,
///   `modelVersionIdentifier`, `layoutVersion`, `user.KEY` for user info, and `model.HASH` for the
///   JSON of each model version the store has been written with), UTF-8 values.
/// - `_seq`: per entity name, the last primary key handed out (8 bytes, big-endian).
/// - `e:ENTITY`: the records, keyed by ``PrimaryKey``.
/// - `i:ENTITY:INDEX`: a model index, `MDB_DUPSORT`: ``IndexKey`` of the values -> primary keys.
/// - `u:ENTITY:A,B`: a unique constraint, `MDB_DUPSORT`, as an index.
/// - `r:ENTITY:RELATIONSHIP`: a to-one relationship, `MDB_DUPSORT`: target key -> source keys.
/// - `_hist`: the persistent history, one entry per recorded save: the sequence (8 bytes,
///   big-endian) -> ``HistoryRecordCodec`` record. `_meta` keeps `historyPrunedThrough`, the last
///   pruned sequence. Not part of ``databases(for:uniqueOrder:)``: stores made before history
///   lack it until they are opened for writing, and migrations leave it alone.
enum LMDBLayout {
    /// The version of this layout, recorded in `_meta` as `layoutVersion`.
    static let version = 1
    static let metadataDatabase = "_meta"
    static let sequenceDatabase = "_seq"
    static let userInfoPrefix = "user."
    static let modelPrefix = "model."
    static let historyDatabase = "_hist"
    static let historyPrunedThroughKey = "historyPrunedThrough"

    static func records(_ entity: String) -> String { "e:\(entity)" }
    static func index(_ entity: String, _ name: String) -> String { "i:\(entity):\(name)" }
    static func unique(_ entity: String, _ attributes: [String]) -> String {
        "u:\(entity):\(attributes.joined(separator: ","))"
    }
    static func toOne(_ entity: String, _ relationship: String) -> String { "r:\(entity):\(relationship)" }

    /// Every named database a store of `model` uses, with its flags; unique constraints under the
    /// names `uniqueOrder` gives them.
    static func databases(for model: Model, uniqueOrder: UniqueConstraintOrder = .declared) -> [(
        name: String, flags: UInt32
    )] {
        let dupsort = UInt32(MDB_DUPSORT)
        var result: [(name: String, flags: UInt32)] = [(metadataDatabase, 0), (sequenceDatabase, 0)]
        for entity in model.entities {
            result.append((records(entity.name), 0))
            for index in entity.indexes { result.append((self.index(entity.name, index.name), dupsort)) }
            for constraint in entity.uniqueConstraints {
                let attributes = uniqueOrder.attributes(of: constraint, in: entity.name)
                result.append((unique(entity.name, attributes), dupsort))
            }
            for relationship in entity.relationships where !relationship.isToMany {
                result.append((toOne(entity.name, relationship.name), dupsort))
            }
        }
        return result
    }
}

/// What the store knows about one entity: its databases and how to read its records.
final class EntityLayout: Sendable {
    /// A secondary database and what it holds.
    struct Secondary: Sendable {
        enum Kind: Sendable, Equatable {
            /// A model index (`i:`), named.
            case index(String)
            /// A unique constraint (`u:`).
            case unique
            /// A to-one relationship (`r:`): the relationship's position.
            case toOne(Int)
        }

        var kind: Kind
        var dbi: MDB_dbi
        /// The attribute positions (empty for `toOne`).
        var attributes: [Int]
    }

    let entity: Entity
    let records: MDB_dbi
    let secondaries: [Secondary]
    /// For each relationship, its destination entity's name.
    let destinations: [String]
    /// The attribute types, by position.
    let types: [AttributeType]
    /// The store's identifier (for the IDs of decoded records and their targets).
    let storeIdentifier: String
    /// The scope of this entity's IDs in the store, and of each relationship's targets: IDs are
    /// made from them without a lookup per ID.
    let scope: ObjectID.Scope
    let destinationScopes: [ObjectID.Scope]
    /// For each attribute position, whether a secondary database (index or unique constraint)
    /// is keyed by it.
    let isIndexed: [Bool]
    /// Where the properties sit in the records, when not in declaration order (see ``RecordOrder``).
    let recordOrder: RecordOrder?
    /// ``types``, ``isIndexed``, the entity's relationships and ``destinationScopes``, in record
    /// order: what ``RecordCodec`` walks a record with.
    let recordTypes: [AttributeType]
    let recordIsIndexed: [Bool]
    let recordRelationships: [Relationship]
    let recordDestinationScopes: [ObjectID.Scope]
    /// Whether some attribute keeps its value in the history when an object is deleted
    /// (``Attribute/preservesValueOnDeletion``): a delete then reads the object's state.
    let keepsTombstones: Bool

    init(
        entity: Entity, databases: [String: MDB_dbi], storeIdentifier: String, recordOrder: RecordOrder? = nil,
        uniqueOrder: UniqueConstraintOrder = .declared
    ) {
        self.entity = entity
        self.recordOrder = recordOrder
        self.storeIdentifier = storeIdentifier
        records = databases[LMDBLayout.records(entity.name)]!
        var secondaries: [Secondary] = []
        for index in entity.indexes {
            secondaries.append(
                Secondary(
                    kind: .index(index.name), dbi: databases[LMDBLayout.index(entity.name, index.name)]!,
                    attributes: index.properties.map { entity.attributeIndex(named: $0)! }))
        }
        for declared in entity.uniqueConstraints {
            let constraint = uniqueOrder.attributes(of: declared, in: entity.name)
            secondaries.append(
                Secondary(
                    kind: .unique, dbi: databases[LMDBLayout.unique(entity.name, constraint)]!,
                    attributes: constraint.map { entity.attributeIndex(named: $0)! }))
        }
        for (position, relationship) in entity.relationships.enumerated() where !relationship.isToMany {
            secondaries.append(
                Secondary(
                    kind: .toOne(position), dbi: databases[LMDBLayout.toOne(entity.name, relationship.name)]!,
                    attributes: []))
        }
        self.secondaries = secondaries
        var isIndexed = [Bool](repeating: false, count: entity.attributes.count)
        for secondary in secondaries { for position in secondary.attributes { isIndexed[position] = true } }
        self.isIndexed = isIndexed
        keepsTombstones = entity.attributes.contains { $0.preservesValueOnDeletion }
        destinations = entity.relationships.map(\.destination)
        types = entity.attributes.map(\.type)
        scope = ObjectID.Scope(entityName: entity.name, storeIdentifier: storeIdentifier)
        destinationScopes = entity.relationships.map {
            ObjectID.Scope(entityName: $0.destination, storeIdentifier: storeIdentifier)
        }
        if let recordOrder {
            recordTypes = recordOrder.toRecord(types, recordOrder.attributes)
            recordIsIndexed = recordOrder.toRecord(isIndexed, recordOrder.attributes)
            recordRelationships = recordOrder.toRecord(entity.relationships, recordOrder.relationships)
            recordDestinationScopes = recordOrder.toRecord(destinationScopes, recordOrder.relationships)
        } else {
            recordTypes = types
            recordIsIndexed = isIndexed
            recordRelationships = entity.relationships
            recordDestinationScopes = destinationScopes
        }
    }

    /// The permanent ID of this entity's object `pk`.
    @inline(__always)
    func objectID(_ pk: Int64) -> ObjectID {
        scope.id(primaryKey: pk)
    }

    /// The index (`i:`) whose first attribute is at `position`, if any.
    func index(leadingWith position: Int) -> Secondary? {
        secondaries.first { secondary in
            if case .index = secondary.kind { return secondary.attributes.first == position }
            if secondary.kind == .unique { return secondary.attributes.first == position }
            return false
        }
    }

    /// The to-one database of the relationship at `position`.
    func toOneIndex(_ position: Int) -> Secondary? {
        secondaries.first { $0.kind == .toOne(position) }
    }
}
