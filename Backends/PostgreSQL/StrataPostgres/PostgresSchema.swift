import StrataCore

/// How a model is laid out in one PostgreSQL schema: one ``PostgresEntityTable`` per entity, join
/// tables for many-to-many relationships, and the store's own tables. Derived once per open from
/// the model and the schema's name alone, so every host with the same model agrees.
///
/// The layout mirrors the SQLite store's (``RelationshipLayout`` decides which side keeps a
/// relationship):
/// - a table per entity, named after it, with `_pk bigint PRIMARY KEY`, `_version bigint NOT
///   NULL`, a column per attribute in its natural type (``PostgresColumnKind``) and a `bigint`
///   column per to-one the entity keeps, with a foreign key (`"<Entity>.fk.<column>"`,
///   `DEFERRABLE INITIALLY DEFERRED`) and an index of the same name; `_position_<column>` beside a
///   to-one whose inverse is an ordered to-many;
/// - a many-to-many in the join table `"<Entity>.<relationship>"` of the canonical side: `source`,
///   `target` (each a foreign key that deletes its rows with its object), `source_position` /
///   `target_position` for ordered sides, the primary key `(source, target)` and the index
///   `"<Entity>.<relationship>.target"` on `(target, source)`;
/// - a unique constraint per model unique constraint (`"<Entity>.unique.<a>+<b>"`, `DEFERRABLE
///   INITIALLY DEFERRED`: checked at commit, so a save may swap values), an index per model index
///   (`"<Entity>.index.<name>"`);
/// - `_strata_metadata`, `_strata_sequence` and `_strata_history` (``PostgresHistoryTable``).
///
/// Names longer than PostgreSQL keeps are shortened (``PostgresNaming``).
struct PostgresSchema: Sendable {
    /// The PostgreSQL schema (namespace) holding the store.
    let name: String
    /// `"name"`, quoted.
    let quotedName: String
    /// The tables by entity name.
    let tables: [String: PostgresEntityTable]
    /// The tables in model order.
    let orderedTables: [PostgresEntityTable]
    /// The join tables, each once (from its canonical side).
    let joinTables: [PostgresJoinTable]

    /// The store's own tables.
    static let metadataTable = "_strata_metadata"
    static let sequenceTable = "_strata_sequence"

    init(model: Model, schema: String) {
        name = schema
        quotedName = pq(schema)
        var tables: [String: PostgresEntityTable] = [:]
        var ordered: [PostgresEntityTable] = []
        for entity in model.entities {
            let table = PostgresEntityTable(entity: entity, model: model, schema: schema)
            tables[entity.name] = table
            ordered.append(table)
        }
        self.tables = tables
        orderedTables = ordered
        var joins: [PostgresJoinTable] = []
        var seen: Set<String> = []
        for table in ordered {
            for storage in table.relationshipStorage {
                if case .joinTable(let join) = storage, join.isCanonical, seen.insert(join.name).inserted {
                    joins.append(join)
                }
            }
        }
        joinTables = joins
    }

    /// `"schema"."table"`.
    func qualified(_ table: String) -> String { quotedName + "." + pq(table) }

    /// The names of every table the store has (entity tables, join tables, its own).
    var tableNames: [String] {
        [Self.metadataTable, Self.sequenceTable, PostgresHistoryTable.name] + orderedTables.map(\.name)
            + joinTables.map(\.name)
    }

    /// Every statement that creates the store's tables (not the schema itself), in order: tables
    /// first, then the foreign keys between them, then indexes.
    func creationStatements() -> [String] {
        var statements = [
            "CREATE TABLE \(qualified(Self.metadataTable)) (\(pq("key")) text PRIMARY KEY, \(pq("value")) text NOT NULL)",
            "CREATE TABLE \(qualified(Self.sequenceTable)) (\(pq("entity")) text PRIMARY KEY, \(pq("last_key")) bigint NOT NULL)",
            PostgresHistoryTable.creationSQL(schema: self),
            PostgresHistoryTable.recordStorageSQL(schema: self),
        ]
        for table in orderedTables { statements.append(table.createTableSQL) }
        for join in joinTables { statements += join.creationStatements }
        for table in orderedTables { statements += table.constraintAndIndexStatements }
        return statements
    }
}

/// Where one relationship's targets are stored (see ``RelationshipLayout``); the tables of
/// `derivedToOne` and `foreignKeyToMany` are qualified and quoted (`"schema"."Entity"`).
typealias PostgresRelationshipStorage = RelationshipStorage<PostgresJoinTable>

/// One side of a many-to-many relationship's join table, with the statements that write it.
struct PostgresJoinTable: Sendable {
    /// The table's name, `"<Entity>.<relationship>"` of the canonical side.
    let name: String
    /// `"schema"."name"`.
    let qualified: String
    /// Whether this side is the canonical one (its objects are `source`).
    let isCanonical: Bool
    /// The column holding this side's objects, and the one holding its targets.
    let ownColumn: String
    let targetColumn: String
    /// The column holding this side's order, when this side is ordered.
    let positionColumn: String?
    let hasSourcePosition: Bool
    let hasTargetPosition: Bool
    /// The statements creating the table (canonical side only).
    let creationStatements: [String]

    /// Removes an owner's rows whose target is not among an array (`$1` owner, `$2` targets).
    let deleteOtherRowsSQL: String
    /// Adds an owner's rows for an array of targets, keeping those there (`$1`, `$2`).
    let insertRowsSQL: String
    /// Sets this side's positions of an owner's rows from the order of an array (`$1`, `$2`).
    let positionsSQL: String?
    /// Sets this side's positions of many owners' rows at once: `$1` owners, `$2` targets,
    /// `$3` positions, side by side.
    let positionsManySQL: String?
    /// The `(owner, target)` pairs of an array of owners (`$1`), by owner, then in order.
    let selectTargetsSQL: String
    /// Loads rows with binary `COPY`: `source`, `target`, then `source_position` when the
    /// canonical side is ordered (canonical side only: its objects are `source`).
    let copySQL: String

    init(layout: RelationshipLayout.JoinTableSide, ownEntity: String, destinationEntity: String, schema: String) {
        let name = layout.tableEntity + "." + layout.tableRelationship
        let qualified = pq(schema) + "." + pq(name)
        let isCanonical = layout.isCanonical
        let ownColumn = isCanonical ? "source" : "target"
        let targetColumn = isCanonical ? "target" : "source"
        let positionColumn = layout.isOrdered ? (isCanonical ? "source_position" : "target_position") : nil
        self.name = name
        self.qualified = qualified
        self.isCanonical = isCanonical
        self.ownColumn = ownColumn
        self.targetColumn = targetColumn
        self.positionColumn = positionColumn
        hasSourcePosition = layout.hasSourcePosition
        hasTargetPosition = layout.hasTargetPosition
        let own = pq(ownColumn)
        let target = pq(targetColumn)
        deleteOtherRowsSQL = "DELETE FROM \(qualified) WHERE \(own) = $1 AND \(target) <> ALL($2)"
        insertRowsSQL =
            "INSERT INTO \(qualified) (\(own), \(target)) SELECT $1, u.k FROM unnest($2::bigint[]) AS u(k) ON CONFLICT DO NOTHING"
        positionsSQL = positionColumn.map { column in
            "UPDATE \(qualified) AS j SET \(pq(column)) = u.p - 1 FROM unnest($2::bigint[]) WITH ORDINALITY AS u(k, p) WHERE j.\(own) = $1 AND j.\(target) = u.k"
        }
        positionsManySQL = positionColumn.map { column in
            "UPDATE \(qualified) AS j SET \(pq(column)) = u.p FROM unnest($1::bigint[], $2::bigint[], $3::bigint[]) AS u(o, k, p) WHERE j.\(own) = u.o AND j.\(target) = u.k"
        }
        let order = (positionColumn.map { "\(pq($0)), " } ?? "") + target
        selectTargetsSQL =
            "SELECT \(own), \(target) FROM \(qualified) WHERE \(own) = ANY($1) ORDER BY \(own), \(order)"
        let copyColumns = [pq("source"), pq("target")] + (layout.hasSourcePosition ? [pq("source_position")] : [])
        copySQL = "COPY \(qualified) (\(copyColumns.joined(separator: ", "))) FROM STDIN (FORMAT binary)"
        guard isCanonical else {
            creationStatements = []
            return
        }
        let sourceTable = pq(schema) + "." + pq(layout.tableEntity)
        let targetTable = pq(schema) + "." + pq(ownEntity == layout.tableEntity ? destinationEntity : ownEntity)
        var columns = [
            "\(pq("source")) bigint NOT NULL REFERENCES \(sourceTable) (\(pq("_pk"))) ON DELETE CASCADE",
            "\(pq("target")) bigint NOT NULL REFERENCES \(targetTable) (\(pq("_pk"))) ON DELETE CASCADE",
        ]
        if layout.hasSourcePosition { columns.append("\(pq("source_position")) bigint") }
        if layout.hasTargetPosition { columns.append("\(pq("target_position")) bigint") }
        columns.append("PRIMARY KEY (\(pq("source")), \(pq("target")))")
        creationStatements = [
            "CREATE TABLE \(qualified) (\(columns.joined(separator: ", ")))",
            "CREATE INDEX \(pq(name + ".target")) ON \(qualified) (\(pq("target")), \(pq("source")))",
        ]
    }
}

/// The SQL layout of one entity and the statements the store runs on it. A class so that hot
/// paths pass a reference rather than copying a dozen strings.
final class PostgresEntityTable: Sendable {
    let entity: Entity
    /// The entity's name (as in object IDs), which is the table's name.
    let name: String
    /// `"schema"."Entity"`.
    let qualified: String
    /// Per attribute, its column's name (the attribute's).
    let attributeColumns: [String]
    /// Per attribute, how its column is stored, its type and whether it may be null.
    let kinds: [PostgresColumnKind]
    let attributeTypes: [AttributeType]
    let attributeIsOptional: [Bool]
    /// Per relationship, where it is stored.
    let relationshipStorage: [PostgresRelationshipStorage]
    /// The to-one relationships, in the order their keys follow the attributes in ``selectList``.
    let toOneIndexes: [Int]
    let toManyIndexes: [Int]
    /// The to-one relationships stored in this table's columns, in column order.
    let foreignKeyIndexes: [Int]
    /// The destination entity of each relationship, and whether it is to-many.
    let relationshipDestinations: [String]
    let relationshipIsToMany: [Bool]
    /// The destination entity of each to-one in ``toOneIndexes``.
    let toOneDestinations: [String]
    /// Position columns this table holds for ordered to-many relationships of other entities.
    let positionColumns: [String]
    /// Per ordered to-many kept by the targets' foreign key: the statement setting the targets'
    /// positions, `$1` their keys and `$2` their positions, side by side (the targets of many
    /// owners at once).
    let positionSQL: [Int: String]
    /// Per to-many relationship: the `(owner, target)` pairs of an array of owners (`$1`), by
    /// owner, then in the relationship's order.
    let toManySQL: [Int: String]

    /// The columns an insert writes: `_pk`, `_version`, attributes, stored to-one keys.
    let writtenColumns: [String]
    /// `t0."_pk", t0."_version", t0."attr"..., <to-one keys>` for alias `t0`.
    let selectList: String
    /// Every row, in key order.
    let selectAllSQL: String
    /// The rows of an array of keys (`$1`), in key order.
    let selectByKeysSQL: String
    /// The row of one key (`$1`).
    let selectByKeySQL: String
    /// One row (`$1` ...).
    let insertSQL: String
    /// Many rows from one array per written column.
    let insertManySQL: String
    /// Many rows through binary `COPY` of the written columns (``PostgresCopyWriter``).
    let copySQL: String
    /// Many updates from arrays: `$1` keys, `$2` expected versions, then one array per written
    /// column after `_version`; returns the keys it updated (the others are conflicts).
    let updateManySQL: String
    /// ``updateManySQL`` returning, instead of the keys, each updated row as it was before
    /// (``selectList``, read by a join of the table with itself under the statement's snapshot):
    /// the history's stored state at no extra statement. `nil` when a snapshot needs more than
    /// the row (to-many or derived to-one relationships).
    let updateManyReturningOldSQL: String?
    /// Many deletes: `$1` keys; returns each deleted row's key, version and the values of
    /// ``tombstoneAttributes`` (the caller checks the versions and rolls back on a mismatch).
    let deleteManySQL: String
    /// The attributes whose values the history keeps after a delete, by index.
    let tombstoneAttributes: [Int]
    /// `CREATE TABLE` with its columns and unique constraints.
    let createTableSQL: String
    /// Foreign keys, their indexes, and model indexes.
    let constraintAndIndexStatements: [String]
    /// Per unique constraint name (as PostgreSQL reports it), the constrained properties.
    let uniqueConstraintNames: [String: [String]]

    init(entity: Entity, model: Model, schema: String) {
        self.entity = entity
        name = entity.name
        let schemaName = pq(schema)
        func qualify(_ table: String) -> String { schemaName + "." + pq(table) }
        qualified = qualify(entity.name)
        attributeColumns = entity.attributes.map(\.name)
        kinds = entity.attributes.map { PostgresColumnKind($0.type) }
        attributeTypes = entity.attributes.map(\.type)
        attributeIsOptional = entity.attributes.map(\.isOptional)
        relationshipDestinations = entity.relationships.map(\.destination)
        relationshipIsToMany = entity.relationships.map(\.isToMany)

        var storage: [PostgresRelationshipStorage] = []
        for relationship in entity.relationships {
            let inverseColumn = relationship.inverse
            switch RelationshipLayout(of: relationship, in: entity, model: model) {
            case .foreignKey:
                storage.append(.foreignKey(column: relationship.name))
            case .derivedToOne:
                storage.append(.derivedToOne(table: qualify(relationship.destination), column: inverseColumn))
            case .foreignKeyToMany(let ordered):
                storage.append(
                    .foreignKeyToMany(
                        table: qualify(relationship.destination), column: inverseColumn,
                        positionColumn: ordered ? "_position_" + inverseColumn : nil))
            case .joinTable(let side):
                storage.append(
                    .joinTable(
                        PostgresJoinTable(
                            layout: side, ownEntity: entity.name, destinationEntity: relationship.destination,
                            schema: schema)))
            }
        }
        relationshipStorage = storage
        toOneIndexes = storage.indices.filter { !storage[$0].isToMany }
        toManyIndexes = storage.indices.filter { storage[$0].isToMany }
        foreignKeyIndexes = storage.indices.filter {
            if case .foreignKey = storage[$0] { return true } else { return false }
        }
        toOneDestinations = toOneIndexes.map { entity.relationships[$0].destination }
        positionColumns = foreignKeyIndexes.compactMap { index in
            let relationship = entity.relationships[index]
            return RelationshipLayout.keepsPosition(relationship, model: model) ? "_position_" + relationship.name : nil
        }
        let pk = pq("_pk")
        var positions: [Int: String] = [:]
        var toMany: [Int: String] = [:]
        for index in toManyIndexes {
            switch storage[index] {
            case .foreignKeyToMany(let table, let column, let position):
                if let position {
                    positions[index] =
                        "UPDATE \(table) AS t SET \(pq(position)) = u.p FROM unnest($1::bigint[], $2::bigint[]) AS u(k, p) WHERE t.\(pk) = u.k"
                }
                let order = (position.map { "\(pq($0)), " } ?? "") + pk
                toMany[index] =
                    "SELECT \(pq(column)), \(pk) FROM \(table) WHERE \(pq(column)) = ANY($1) ORDER BY \(pq(column)), \(order)"
            case .joinTable(let join):
                toMany[index] = join.selectTargetsSQL
            default:
                break
            }
        }
        positionSQL = positions
        toManySQL = toMany

        var select = ["t0.\(pk)", "t0.\(pq("_version"))"] + attributeColumns.map { "t0.\(pq($0))" }
        for index in toOneIndexes {
            switch storage[index] {
            case .foreignKey(let column):
                select.append("t0.\(pq(column))")
            case .derivedToOne(let table, let column):
                select.append(
                    "(SELECT o.\(pk) FROM \(table) AS o WHERE o.\(pq(column)) = t0.\(pk) ORDER BY o.\(pk) LIMIT 1)")
            default:
                break
            }
        }
        selectList = select.joined(separator: ", ")
        selectAllSQL = "SELECT \(selectList) FROM \(qualified) AS t0 ORDER BY t0.\(pk)"
        selectByKeysSQL = "SELECT \(selectList) FROM \(qualified) AS t0 WHERE t0.\(pk) = ANY($1) ORDER BY t0.\(pk)"
        selectByKeySQL = "SELECT \(selectList) FROM \(qualified) AS t0 WHERE t0.\(pk) = $1"

        let foreignKeyColumns = foreignKeyIndexes.map { entity.relationships[$0].name }
        let written = ["_pk", "_version"] + attributeColumns + foreignKeyColumns
        writtenColumns = written
        let columnList = written.map(pq).joined(separator: ", ")
        insertSQL =
            "INSERT INTO \(qualified) (\(columnList)) VALUES ("
            + (1...written.count).map { "$\($0)" }.joined(separator: ", ") + ")"
        copySQL = "COPY \(qualified) (\(columnList)) FROM STDIN (FORMAT binary)"
        // One array per column, unnested side by side (ROWS FROM has no limit on the number of
        // arrays, unlike a many-argument unnest).
        let writtenKinds: [PostgresColumnKind?] = [nil, nil] + kinds.map { $0 } + foreignKeyColumns.map { _ in nil }
        func arrayType(_ kind: PostgresColumnKind?) -> String { kind?.arraySQLType ?? "bigint[]" }
        func element(_ kind: PostgresColumnKind?, _ column: Int) -> String {
            kind?.fromArrayElement("u.c\(column)") ?? "u.c\(column)"
        }
        let unnested =
            "ROWS FROM ("
            + writtenKinds.enumerated().map { "unnest($\($0.offset + 1)::\(arrayType($0.element)))" }
            .joined(separator: ", ") + ") AS u(" + written.indices.map { "c\($0)" }.joined(separator: ", ") + ")"
        insertManySQL =
            "INSERT INTO \(qualified) (\(columnList)) SELECT "
            + writtenKinds.enumerated().map { element($0.element, $0.offset) }.joined(separator: ", ") + " FROM "
            + unnested
        let assignments =
            ["\(pq("_version")) = u.c1 + 1"]
            + written.indices.dropFirst(2).map { "\(pq(written[$0])) = \(element(writtenKinds[$0], $0))" }
        updateManySQL =
            "UPDATE \(qualified) AS t SET \(assignments.joined(separator: ", ")) FROM \(unnested) WHERE t.\(pk) = u.c0 AND t.\(pq("_version")) = u.c1 RETURNING t.\(pk)"
        updateManyReturningOldSQL =
            toOneIndexes == foreignKeyIndexes && toManyIndexes.isEmpty
            ? "UPDATE \(qualified) AS t SET \(assignments.joined(separator: ", ")) FROM \(unnested) JOIN \(qualified) AS t0 ON t0.\(pk) = u.c0 WHERE t.\(pk) = u.c0 AND t.\(pq("_version")) = u.c1 RETURNING \(selectList)"
            : nil
        let tombstones = entity.attributes.indices.filter { entity.attributes[$0].preservesValueOnDeletion }
        let attributeNames = attributeColumns
        tombstoneAttributes = tombstones
        deleteManySQL =
            "DELETE FROM \(qualified) AS t WHERE t.\(pk) = ANY($1) RETURNING "
            + (["t.\(pk)", "t.\(pq("_version"))"] + tombstones.map { "t.\(pq(attributeNames[$0]))" })
            .joined(separator: ", ")

        var columns = ["\(pk) bigint PRIMARY KEY", "\(pq("_version")) bigint NOT NULL"]
        for (column, kind) in zip(attributeColumns, kinds) { columns.append("\(pq(column)) \(kind.sqlType)") }
        for column in foreignKeyColumns { columns.append("\(pq(column)) bigint") }
        for position in positionColumns { columns.append("\(pq(position)) bigint") }
        var uniqueNames: [String: [String]] = [:]
        var seenConstraints: Set<[String]> = []
        for constraint in entity.uniqueConstraints where seenConstraints.insert(constraint).inserted {
            let constraintName = "\(entity.name).unique.\(constraint.joined(separator: "+"))"
            uniqueNames[PostgresNaming.identifier(constraintName)] = constraint
            columns.append(
                "CONSTRAINT \(pq(constraintName)) UNIQUE (\(constraint.map(pq).joined(separator: ", "))) DEFERRABLE INITIALLY DEFERRED"
            )
        }
        uniqueConstraintNames = uniqueNames
        createTableSQL = "CREATE TABLE \(qualified) (\(columns.joined(separator: ", ")))"

        var statements: [String] = []
        for index in foreignKeyIndexes {
            let relationship = entity.relationships[index]
            let constraintName = pq("\(entity.name).fk.\(relationship.name)")
            statements.append(
                "ALTER TABLE \(qualified) ADD CONSTRAINT \(constraintName) FOREIGN KEY (\(pq(relationship.name))) REFERENCES \(qualify(relationship.destination)) (\(pk)) DEFERRABLE INITIALLY DEFERRED"
            )
            statements.append("CREATE INDEX \(constraintName) ON \(qualified) (\(pq(relationship.name)))")
        }
        for index in entity.indexes {
            statements.append(
                "CREATE INDEX \(pq("\(entity.name).index.\(index.name)")) ON \(qualified) (\(index.properties.map(pq).joined(separator: ", ")))"
            )
        }
        constraintAndIndexStatements = statements
    }

    /// How many columns the table has.
    var columnCount: Int { writtenColumns.count + positionColumns.count }
}
