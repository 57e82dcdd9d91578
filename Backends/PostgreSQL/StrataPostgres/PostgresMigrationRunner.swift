import Foundation
import StrataCore

/// The SQL of one migration step on a PostgreSQL store, run inside the caller's transaction
/// (PostgreSQL's DDL is transactional: an error anywhere leaves the old schema whole).
///
/// It mirrors the SQLite store's runner. In order: relationship links whose storage changes are
/// copied into temporary pair tables (and checked: at most one target where the new side is
/// to-one); required-without-default attributes are checked for nulls; the old layout's foreign
/// keys, unique constraints and indexes are dropped (they are named after their entities, and
/// are all made again at the end); removed tables and obsolete join tables go; tables and
/// columns are renamed (through temporary names, so swaps work); columns the new layout lacks are
/// dropped and missing ones added (a new attribute's default set with a bound `UPDATE`); new
/// tables are created; the pair tables are written into the new storage; nulls of attributes
/// that become required take their default; the new layout's unique constraints, foreign keys
/// and indexes are made (a new unique constraint on duplicates is `uniqueConstraint`);
/// `_strata_sequence` follows renamed and removed entities. `_strata_history` is not touched.
struct PostgresMigrationRunner {
    let step: MigrationStep
    let connection: PostgresConnection
    let schemaName: String
    let endpoint: String
    let progress: (StoreProgress) -> Void
    let isCancelled: () -> Bool
    let old: PostgresSchema
    let new: PostgresSchema
    private var phase = 0
    static let phases = 11

    init(
        step: MigrationStep, connection: PostgresConnection, schema: String, endpoint: String,
        progress: @escaping (StoreProgress) -> Void, isCancelled: @escaping () -> Bool
    ) {
        self.step = step
        self.connection = connection
        self.schemaName = schema
        self.endpoint = endpoint
        self.progress = progress
        self.isCancelled = isCancelled
        old = PostgresSchema(model: step.source, schema: schema)
        new = PostgresSchema(model: step.destination, schema: schema)
    }

    private var location: [String: String] { ["server": endpoint, "schema": schemaName] }

    func cancelled() -> StrataError {
        StrataError(
            .cancelled,
            "the migration \(step.name) of the store in schema '\(schemaName)' at \(endpoint) was cancelled; the store is unchanged",
            location: location)
    }

    private mutating func advance() throws {
        if isCancelled() { throw cancelled() }
        phase += 1
        progress(StoreProgress(phase: "migrating \(step.name)", completed: phase, total: Self.phases))
    }

    /// `"schema"."name"`.
    private func qualified(_ name: String) -> String { old.qualified(name) }

    /// One relationship whose links move to new storage.
    private struct MovedLinks {
        let entity: String
        let relationship: Int
        /// The temporary table holding (id, owner, target, opos, tpos).
        let pairs: String
    }

    mutating func run() throws {
        if step.isStructurallyEmpty { return }
        progress(StoreProgress(phase: "migrating \(step.name)", completed: 0, total: Self.phases))
        let renamedEntities = Dictionary(
            uniqueKeysWithValues: step.entityMappings.compactMap { m in m.sourceEntity.map { ($0, m.destinationEntity) }
            })

        // 1. Links whose storage changes, into pair tables; owning storages kept as they are.
        var moved: [MovedLinks] = []
        var keptOldOwners: Set<String> = []
        var keptJoinRenames: [(String, String)] = []
        var keptColumnRenames: [String: [(String, String)]] = [:]
        for table in new.orderedTables {
            guard let mapping = step.mapping(for: table.name) else { continue }
            for (index, storage) in table.relationshipStorage.enumerated() {
                guard isOwning(storage) else { continue }
                let relationship = table.entity.relationships[index]
                guard let inverseEntity = step.destination.entity(named: relationship.destination),
                    let inverseIndex = inverseEntity.relationshipIndex(named: relationship.inverse)
                else { continue }
                var oldSide: (table: PostgresEntityTable, index: Int, swapped: Bool)?
                if let source = mapping.sourceEntity, let k = mapping.relationships[index].sourceIndex,
                    let oldTable = old.tables[source]
                {
                    oldSide = (oldTable, k, false)
                } else if let inverseMapping = step.mapping(for: inverseEntity.name),
                    let source = inverseMapping.sourceEntity,
                    let k = inverseMapping.relationships[inverseIndex].sourceIndex, let oldTable = old.tables[source]
                {
                    oldSide = (oldTable, k, true)
                }
                guard let oldSide else { continue }
                let oldRelationship = oldSide.table.entity.relationships[oldSide.index]
                let oldOwner = owningSide(of: oldSide.table, oldSide.index, in: old)
                if !oldSide.swapped, oldOwner.entity == oldSide.table.name, oldOwner.index == oldSide.index,
                    sameShape(old: oldSide.table.relationshipStorage[oldSide.index], new: storage)
                {
                    keptOldOwners.insert("\(oldSide.table.name).\(oldRelationship.name)")
                    switch (oldSide.table.relationshipStorage[oldSide.index], storage) {
                    case (.foreignKey(let a), .foreignKey(let b)) where a != b:
                        keptColumnRenames[table.name, default: []].append((a, b))
                        if table.positionColumns.contains("_position_" + b),
                            oldSide.table.positionColumns.contains("_position_" + a)
                        {
                            keptColumnRenames[table.name, default: []].append(("_position_" + a, "_position_" + b))
                        }
                    case (.joinTable(let a), .joinTable(let b)) where a.name != b.name:
                        keptJoinRenames.append((a.name, b.name))
                    default: break
                    }
                    continue
                }
                let pairs = "_strata_pairs_\(moved.count)"
                try connection.execute(
                    "CREATE TEMP TABLE \(pq(pairs)) (id bigserial PRIMARY KEY, owner bigint NOT NULL, target bigint NOT NULL, opos bigint, tpos bigint) ON COMMIT DROP"
                )
                let select = pairSelect(oldSide.table, oldSide.index)
                let columns = oldSide.swapped ? "target, owner, tpos, opos" : "owner, target, opos, tpos"
                try connection.execute("INSERT INTO \(pq(pairs)) (\(columns)) \(select)")
                moved.append(MovedLinks(entity: table.name, relationship: index, pairs: pairs))
                try checkToOne(
                    pairs, relationship: relationship, entity: table.entity,
                    inverse: inverseEntity.relationships[inverseIndex], inverseEntity: inverseEntity)
                if relationship.isToMany && relationship.isOrdered {
                    try number(pairs, position: "opos", partition: "owner", tieBreak: "target")
                }
                if inverseEntity.relationships[inverseIndex].isToMany
                    && inverseEntity.relationships[inverseIndex].isOrdered
                {
                    try number(pairs, position: "tpos", partition: "target", tieBreak: "owner")
                }
            }
        }
        try advance()

        // 2. Attributes that become required with no default: the stage must have filled them.
        for mapping in step.entityMappings {
            guard let source = mapping.sourceEntity, let oldTable = old.tables[source],
                let entity = step.destination.entity(named: mapping.destinationEntity)
            else { continue }
            for (i, a) in mapping.attributes.enumerated() where !entity.attributes[i].isOptional && a.fillNulls == nil {
                guard let k = a.sourceIndex, oldTable.entity.attributes[k].isOptional else { continue }
                let column = oldTable.attributeColumns[k]
                let result = try connection.queryOnce(
                    "SELECT \(pq("_pk")) FROM \(oldTable.qualified) WHERE \(pq(column)) IS NULL LIMIT 1")
                if result.rowCount > 0 {
                    let key = result.int64(0, 0)
                    throw StrataError(
                        .missingValue,
                        "migrating \(step.name): \(source) p\(key) has no value for '\(entity.name).\(a.name)', which becomes required with no default; fill it in the custom stage's willMigrate. Nothing was changed",
                        location: location.merging(["entity": entity.name, "key": a.name, "object": "p\(key)"]) { $1 })
                }
            }
        }
        try advance()

        // 3. The old layout's constraints and indexes (named after entities: made again in 11),
        //    obsolete join tables, removed tables.
        for table in old.orderedTables {
            for statement in dropConstraintsAndIndexes(of: table) { try connection.execute(statement) }
        }
        var droppedJoins: Set<String> = []
        for table in old.orderedTables {
            for (index, storage) in table.relationshipStorage.enumerated() {
                guard case .joinTable(let join) = storage, join.isCanonical,
                    !keptOldOwners.contains("\(table.name).\(table.entity.relationships[index].name)"),
                    droppedJoins.insert(join.name).inserted
                else { continue }
                try connection.execute("DROP TABLE IF EXISTS \(join.qualified)")
            }
        }
        for name in step.removedEntities {
            if let table = old.tables[name] { try connection.execute("DROP TABLE \(table.qualified)") }
        }
        try advance()

        // 4. Renamed tables (through temporary names, so that swaps work), with the index of a
        //    kept join table.
        var tableRenames: [(String, String)] = []
        for mapping in step.entityMappings {
            guard let source = mapping.sourceEntity, source != mapping.destinationEntity else { continue }
            tableRenames.append((source, mapping.destinationEntity))
        }
        try renameTables(tableRenames + keptJoinRenames)
        for (from, to) in keptJoinRenames {
            try connection.execute(
                "ALTER INDEX \(qualified(from + ".target")) RENAME TO \(pq(to + ".target"))")
        }
        try advance()

        // 5. Renamed columns.
        for table in new.orderedTables {
            guard let mapping = step.mapping(for: table.name), let source = mapping.sourceEntity,
                let oldTable = old.tables[source]
            else { continue }
            var renames: [(String, String)] = keptColumnRenames[table.name] ?? []
            for (i, a) in mapping.attributes.enumerated() {
                guard let k = a.sourceIndex else { continue }
                let from = oldTable.attributeColumns[k]
                let to = table.attributeColumns[i]
                if from != to { renames.append((from, to)) }
            }
            for (i, (from, _)) in renames.enumerated() {
                try connection.execute(
                    "ALTER TABLE \(table.qualified) RENAME COLUMN \(pq(from)) TO \(pq("_strata_column_\(i)"))")
            }
            for (i, (_, to)) in renames.enumerated() {
                try connection.execute(
                    "ALTER TABLE \(table.qualified) RENAME COLUMN \(pq("_strata_column_\(i)")) TO \(pq(to))")
            }
        }
        try advance()

        // 6. Columns: drop what the new layout lacks, add what it has; a new attribute's
        //    default is set with a bound value.
        for table in new.orderedTables {
            guard let mapping = step.mapping(for: table.name), mapping.sourceEntity != nil else { continue }
            let wanted = expectedColumns(table)
            let present = try columns(of: table.name)
            for column in present where wanted[column] == nil {
                try connection.execute("ALTER TABLE \(table.qualified) DROP COLUMN \(pq(column))")
            }
            for (i, column) in table.attributeColumns.enumerated()
            where !present.contains(PostgresNaming.identifier(column)) {
                let a = mapping.attributes[i]
                try connection.execute(
                    "ALTER TABLE \(table.qualified) ADD COLUMN \(pq(column)) \(table.kinds[i].sqlType)")
                if a.sourceIndex == nil, !a.initialValue.isNull {
                    try connection.queryOnce(
                        "UPDATE \(table.qualified) SET \(pq(column)) = $1",
                        [PostgresValueCoding.parameter(a.initialValue, kind: table.kinds[i])])
                }
            }
            let attributeColumns = Set(table.attributeColumns.map(PostgresNaming.identifier))
            for column in wanted.keys.sorted() where !present.contains(column) && !attributeColumns.contains(column) {
                try connection.execute("ALTER TABLE \(table.qualified) ADD COLUMN \(pq(column)) bigint")
            }
        }
        try advance()

        // 7. New tables, and join tables new to this layout.
        for table in new.orderedTables where step.mapping(for: table.name)?.sourceEntity == nil {
            try connection.execute(table.createTableSQL)
        }
        let existingTables = try tableNames()
        for join in new.joinTables where !existingTables.contains(PostgresNaming.identifier(join.name)) {
            for statement in join.creationStatements { try connection.execute(statement) }
        }
        try advance()

        // 8. Links into their new storage.
        for links in moved {
            guard let table = new.tables[links.entity] else { continue }
            let pairs = pq(links.pairs)
            switch table.relationshipStorage[links.relationship] {
            case .foreignKey(let column):
                let position = "_position_" + column
                let setPosition = table.positionColumns.contains(position) ? ", \(pq(position)) = p.tpos" : ""
                try connection.execute(
                    "UPDATE \(table.qualified) AS t SET \(pq(column)) = p.target\(setPosition) FROM \(pairs) AS p WHERE p.owner = t.\(pq("_pk"))"
                )
            case .joinTable(let join):
                var columns = ["source", "target"]
                var values = ["owner", "target"]
                if join.hasSourcePosition {
                    columns.append("source_position")
                    values.append("opos")
                }
                if join.hasTargetPosition {
                    columns.append("target_position")
                    values.append("tpos")
                }
                try connection.execute(
                    "INSERT INTO \(join.qualified) (\(columns.map(pq).joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM \(pairs) ON CONFLICT DO NOTHING"
                )
            default:
                break
            }
            try connection.execute("DROP TABLE \(pairs)")
        }
        try advance()

        // 9. Nulls of attributes that become required take the default.
        for table in new.orderedTables {
            guard let mapping = step.mapping(for: table.name) else { continue }
            for (i, a) in mapping.attributes.enumerated() {
                guard let fill = a.fillNulls, a.sourceIndex != nil else { continue }
                let column = pq(table.attributeColumns[i])
                try connection.queryOnce(
                    "UPDATE \(table.qualified) SET \(column) = $1 WHERE \(column) IS NULL",
                    [PostgresValueCoding.parameter(fill, kind: table.kinds[i])])
            }
        }
        try advance()

        // 10. The new layout's unique constraints of tables that existed (new tables have
        //     theirs), checked now; then its foreign keys and indexes.
        for table in new.orderedTables where step.mapping(for: table.name)?.sourceEntity != nil {
            for (name, properties) in uniqueConstraints(of: table) {
                do {
                    try connection.execute(
                        "ALTER TABLE \(table.qualified) ADD CONSTRAINT \(pq(name)) UNIQUE (\(properties.map(pq).joined(separator: ", "))) DEFERRABLE INITIALLY DEFERRED"
                    )
                } catch let error as StrataError where error.location["sqlstate"] == "23505" {
                    throw StrataError(
                        .uniqueConstraint,
                        "migrating \(step.name): the objects of \(table.name) break the new unique constraint on \(properties.joined(separator: ", ")); nothing was changed",
                        location: location.merging(["entity": table.name, "constraint": name]) { $1 },
                        underlying: error.underlying)
                }
            }
        }
        for table in new.orderedTables {
            for statement in table.constraintAndIndexStatements { try connection.execute(statement) }
        }
        try advance()

        // 11. The key sequences follow their entities.
        let sequence = qualified(PostgresSchema.sequenceTable)
        for name in step.removedEntities {
            try connection.queryOnce("DELETE FROM \(sequence) WHERE \(pq("entity")) = $1", [.text(name)])
        }
        let renames = renamedEntities.filter { $0.key != $0.value }
        for (from, _) in renames {
            try connection.queryOnce(
                "UPDATE \(sequence) SET \(pq("entity")) = $1 WHERE \(pq("entity")) = $2",
                [.text("\u{1}" + from), .text(from)])
        }
        for (from, to) in renames {
            try connection.queryOnce(
                "UPDATE \(sequence) SET \(pq("entity")) = $1 WHERE \(pq("entity")) = $2",
                [.text(to), .text("\u{1}" + from)])
        }
        try advance()
    }

    // MARK: Helpers

    private func isOwning(_ storage: PostgresRelationshipStorage) -> Bool {
        switch storage {
        case .foreignKey: return true
        case .joinTable(let join): return join.isCanonical
        default: return false
        }
    }

    /// The side that owns the storage of relationship `index` of `table` (itself or its inverse).
    private func owningSide(of table: PostgresEntityTable, _ index: Int, in schema: PostgresSchema) -> (
        entity: String, index: Int
    ) {
        if isOwning(table.relationshipStorage[index]) { return (table.name, index) }
        let relationship = table.entity.relationships[index]
        guard let inverseTable = schema.tables[relationship.destination],
            let inverseIndex = inverseTable.entity.relationshipIndex(named: relationship.inverse)
        else { return (table.name, index) }
        return (inverseTable.name, inverseIndex)
    }

    private func sameShape(old: PostgresRelationshipStorage, new: PostgresRelationshipStorage) -> Bool {
        switch (old, new) {
        case (.foreignKey, .foreignKey): return true
        case (.joinTable(let a), .joinTable(let b)):
            return a.isCanonical && b.isCanonical && a.hasSourcePosition == b.hasSourcePosition
                && a.hasTargetPosition == b.hasTargetPosition
        default: return false
        }
    }

    /// `SELECT owner, target, opos, tpos` of relationship `index` of old `table`.
    private func pairSelect(_ table: PostgresEntityTable, _ index: Int) -> String {
        let pk = pq("_pk")
        switch table.relationshipStorage[index] {
        case .foreignKey(let column):
            let position = "_position_" + column
            let tpos = table.positionColumns.contains(position) ? pq(position) : "NULL::bigint"
            return
                "SELECT \(pk), \(pq(column)), NULL::bigint, \(tpos) FROM \(table.qualified) WHERE \(pq(column)) IS NOT NULL"
        case .derivedToOne(let other, let column):
            return
                "SELECT \(pq(column)), \(pk), NULL::bigint, NULL::bigint FROM \(other) WHERE \(pq(column)) IS NOT NULL"
        case .foreignKeyToMany(let other, let column, let position):
            return
                "SELECT \(pq(column)), \(pk), \(position.map(pq) ?? "NULL::bigint"), NULL::bigint FROM \(other) WHERE \(pq(column)) IS NOT NULL"
        case .joinTable(let join):
            let own = join.positionColumn.map(pq) ?? "NULL::bigint"
            let other: String
            if join.isCanonical {
                other = join.hasTargetPosition ? pq("target_position") : "NULL::bigint"
            } else {
                other = join.hasSourcePosition ? pq("source_position") : "NULL::bigint"
            }
            return "SELECT \(pq(join.ownColumn)), \(pq(join.targetColumn)), \(own), \(other) FROM \(join.qualified)"
        }
    }

    /// Throws unless every owner has at most one target where the new side is to-one (and the
    /// reverse).
    private func checkToOne(
        _ pairs: String, relationship: Relationship, entity: Entity, inverse: Relationship, inverseEntity: Entity
    ) throws {
        for (column, side, sideEntity) in [("owner", relationship, entity), ("target", inverse, inverseEntity)]
        where !side.isToMany {
            let result = try connection.queryOnce(
                "SELECT \(column), count(*) FROM \(pq(pairs)) GROUP BY \(column) HAVING count(*) > 1 LIMIT 1")
            if result.rowCount > 0 {
                let key = result.int64(0, 0)
                let count = result.int64(0, 1)
                throw StrataError(
                    .migrationNotInferable,
                    "migrating \(step.name): \(sideEntity.name) p\(key) has \(count) targets in '\(sideEntity.name).\(side.name)', which becomes to-one; the custom stage must leave at most one. Nothing was changed",
                    location: location.merging(
                        ["entity": sideEntity.name, "property": side.name, "object": "p\(key)"]) { $1 })
            }
        }
    }

    /// Numbers `position` 0, 1, 2, ... within each `partition`, keeping any existing order.
    private func number(_ pairs: String, position: String, partition: String, tieBreak: String) throws {
        let t = pq(pairs)
        try connection.execute(
            "UPDATE \(t) SET \(position) = r.n FROM (SELECT id, row_number() OVER (PARTITION BY \(partition) ORDER BY \(position), \(tieBreak)) - 1 AS n FROM \(t)) AS r WHERE \(t).id = r.id"
        )
    }

    private func renameTables(_ renames: [(String, String)]) throws {
        for (i, (from, _)) in renames.enumerated() {
            try connection.execute("ALTER TABLE \(qualified(from)) RENAME TO \(pq("_strata_table_\(i)"))")
        }
        for (i, (_, to)) in renames.enumerated() {
            try connection.execute("ALTER TABLE \(qualified("_strata_table_\(i)")) RENAME TO \(pq(to))")
        }
    }

    /// The unique constraints of `table` by their (unshortened) names.
    private func uniqueConstraints(of table: PostgresEntityTable) -> [(String, [String])] {
        var seen: Set<[String]> = []
        return table.entity.uniqueConstraints.compactMap { constraint in
            guard seen.insert(constraint).inserted else { return nil }
            return ("\(table.name).unique.\(constraint.joined(separator: "+"))", constraint)
        }
    }

    /// Statements dropping what the old layout named after `table`'s entity: foreign keys and
    /// their indexes, unique constraints, model indexes.
    private func dropConstraintsAndIndexes(of table: PostgresEntityTable) -> [String] {
        var statements: [String] = []
        for index in table.foreignKeyIndexes {
            let name = "\(table.name).fk.\(table.entity.relationships[index].name)"
            statements.append("ALTER TABLE \(table.qualified) DROP CONSTRAINT IF EXISTS \(pq(name))")
            statements.append("DROP INDEX IF EXISTS \(qualified(name))")
        }
        for (name, _) in uniqueConstraints(of: table) {
            statements.append("ALTER TABLE \(table.qualified) DROP CONSTRAINT IF EXISTS \(pq(name))")
        }
        for index in table.entity.indexes {
            statements.append("DROP INDEX IF EXISTS \(qualified("\(table.name).index.\(index.name)"))")
        }
        return statements
    }

    private func expectedColumns(_ table: PostgresEntityTable) -> [String: Bool] {
        var columns: [String: Bool] = ["_pk": true, "_version": true]
        for c in table.attributeColumns { columns[PostgresNaming.identifier(c)] = true }
        for index in table.foreignKeyIndexes {
            if case .foreignKey(let c) = table.relationshipStorage[index] {
                columns[PostgresNaming.identifier(c)] = true
            }
        }
        for c in table.positionColumns { columns[PostgresNaming.identifier(c)] = true }
        return columns
    }

    private func tableNames() throws -> Set<String> {
        let result = try connection.query(
            "SELECT tablename::text FROM pg_catalog.pg_tables WHERE schemaname = $1", [.text(schemaName)])
        return Set((0..<result.rowCount).map { result.string($0, 0) })
    }

    private func columns(of table: String) throws -> [String] {
        let result = try connection.query(
            "SELECT a.attname::text FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON a.attrelid = c.oid JOIN pg_catalog.pg_namespace n ON c.relnamespace = n.oid WHERE n.nspname = $1 AND c.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
            [.text(schemaName), .text(PostgresNaming.identifier(table))])
        return (0..<result.rowCount).map { result.string($0, 0) }
    }
}
