import Foundation
import StrataCore

/// The SQL of one migration step, run inside the caller's transaction.
///
/// In order: relationship links whose storage changes are copied into temporary pair tables
/// (and checked: at most one target where the new side is to-one); required-without-default
/// attributes are checked for nulls; removed tables and dropped join tables go; tables and
/// columns are renamed (`ALTER TABLE ... RENAME`, through temporary names so swaps work);
/// indexes that no longer match the new layout are dropped; columns the new layout lacks are
/// dropped and missing ones added (`ADD COLUMN ... DEFAULT <literal>` for a new attribute with a
/// default, so existing rows are not rewritten); new tables are created; the pair tables are
/// written into the new storage (foreign keys with `UPDATE ... FROM`, join tables with
/// `INSERT ... SELECT`, positions numbered with `row_number()` where a side becomes ordered);
/// nulls of attributes that become required take their default; missing indexes are created
/// (a new unique index fails with `uniqueConstraint` on duplicates); `_strata_sequence` follows
/// renamed and removed entities.
struct SQLiteMigrationRunner {
    let step: MigrationStep
    let connection: SQLiteConnection
    let path: String
    let progress: (StoreProgress) -> Void
    let isCancelled: () -> Bool
    let old: SQLiteSchema
    let new: SQLiteSchema
    private var phase = 0
    private static let phases = 12

    init(
        step: MigrationStep, connection: SQLiteConnection, path: String, progress: @escaping (StoreProgress) -> Void,
        isCancelled: @escaping () -> Bool
    ) {
        self.step = step
        self.connection = connection
        self.path = path
        self.progress = progress
        self.isCancelled = isCancelled
        self.old = SQLiteSchema(model: step.source)
        self.new = SQLiteSchema(model: step.destination)
    }

    func cancelled() -> StrataError {
        StrataError(
            .cancelled, "the migration \(step.name) of '\(path)' was cancelled; the store is unchanged",
            location: ["path": path])
    }

    private mutating func advance() throws {
        if isCancelled() { throw cancelled() }
        phase += 1
        progress(StoreProgress(phase: "migrating \(step.name)", completed: phase, total: Self.phases))
    }

    /// One relationship (a pair of inverse sides) whose links move to new storage.
    private struct MovedLinks {
        /// The destination entity and relationship that own the new storage.
        let entity: String
        let relationship: Int
        /// The temporary table holding (owner, target, opos, tpos).
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
        var keptOldOwners: Set<String> = [] // "Entity.relationship" of old owning sides kept
        var keptJoinRenames: [(String, String)] = []
        var keptColumnRenames: [String: [(String, String)]] = [:] // new table -> (old col, new col)
        for table in new.orderedTables {
            let mapping = step.mapping(for: table.name)!
            for (index, storage) in table.relationshipStorage.enumerated() {
                guard isOwning(storage) else { continue }
                let relationship = table.entity.relationships[index]
                let inverseEntity = step.destination.entity(named: relationship.destination)!
                let inverseIndex = inverseEntity.relationshipIndex(named: relationship.inverse)!
                // The old side this relationship comes from, or the old side its inverse comes from.
                var oldSide: (table: SQLiteEntityTable, index: Int, swapped: Bool)?
                if let source = mapping.sourceEntity, let k = mapping.relationships[index].sourceIndex {
                    oldSide = (old.tables[source]!, k, false)
                } else if let inverseMapping = step.mapping(for: inverseEntity.name),
                    let source = inverseMapping.sourceEntity,
                    let k = inverseMapping.relationships[inverseIndex].sourceIndex
                {
                    oldSide = (old.tables[source]!, k, true)
                }
                guard let oldSide else { continue } // a new relationship: empty
                let oldRelationship = oldSide.table.entity.relationships[oldSide.index]
                let oldOwner = owningSide(of: oldSide.table, oldSide.index, in: old, model: step.source)
                // Unchanged storage: the same side owns it, in the same shape.
                if !oldSide.swapped, oldOwner.entity == oldSide.table.name, oldOwner.index == oldSide.index,
                    sameShape(old: oldSide.table.relationshipStorage[oldSide.index], new: storage)
                {
                    keptOldOwners.insert("\(oldSide.table.name).\(oldRelationship.name)")
                    switch (oldSide.table.relationshipStorage[oldSide.index], storage) {
                    case (.foreignKey(let a), .foreignKey(let b)) where a != b:
                        keptColumnRenames[table.sqlName, default: []].append((a, b))
                        if table.positionColumns.contains("_position_" + b),
                            oldSide.table.positionColumns.contains("_position_" + a)
                        {
                            keptColumnRenames[table.sqlName, default: []].append(("_position_" + a, "_position_" + b))
                        }
                    case (.joinTable(let a), .joinTable(let b)) where a.table != b.table:
                        keptJoinRenames.append((a.table, b.table))
                    default: break
                    }
                    continue
                }
                let pairs = "_strata_pairs_\(moved.count)"
                try connection.execute(
                    "CREATE TEMP TABLE \(q(pairs)) (owner INTEGER NOT NULL, target INTEGER NOT NULL, opos INTEGER, tpos INTEGER)"
                )
                let select = pairSelect(oldSide.table, oldSide.index)
                let columns = oldSide.swapped ? "target, owner, tpos, opos" : "owner, target, opos, tpos"
                try connection.execute("INSERT INTO temp.\(q(pairs)) (\(columns)) \(select)")
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
                let statement = try connection.prepare(
                    "SELECT \(q("_pk")) FROM \(oldTable.quotedName) WHERE \(q(column)) IS NULL LIMIT 1")
                defer { statement.reset() }
                if try statement.step() {
                    let key = statement.int64(0)
                    throw StrataError(
                        .missingValue,
                        "migrating \(step.name): \(source) p\(key) has no value for '\(entity.name).\(a.name)', which becomes required with no default; fill it in the custom stage's willMigrate. Nothing was changed",
                        location: ["path": path, "entity": entity.name, "key": a.name, "object": "p\(key)"])
                }
            }
        }
        try advance()

        // 3. Removed tables and join tables whose links moved or went.
        for name in step.removedEntities { try connection.execute("DROP TABLE \(old.tables[name]!.quotedName)") }
        var droppedJoins: Set<String> = []
        for table in old.orderedTables {
            for (index, storage) in table.relationshipStorage.enumerated() {
                guard case .joinTable(let join) = storage, join.isCanonical,
                    !keptOldOwners.contains("\(table.name).\(table.entity.relationships[index].name)"),
                    droppedJoins.insert(join.table).inserted
                else { continue }
                try connection.execute("DROP TABLE IF EXISTS \(q(join.table))")
            }
        }
        try advance()

        // 4. Renamed tables (through temporary names, so that swaps and case changes work).
        var tableRenames: [(String, String)] = []
        for mapping in step.entityMappings {
            guard let source = mapping.sourceEntity else { continue }
            let from = old.tables[source]!.sqlName
            let to = new.tables[mapping.destinationEntity]!.sqlName
            if from != to { tableRenames.append((from, to)) }
        }
        try renameTables(tableRenames + keptJoinRenames)
        try advance()

        // 5. Renamed columns.
        for table in new.orderedTables {
            let mapping = step.mapping(for: table.name)!
            guard let source = mapping.sourceEntity, let oldTable = old.tables[source] else { continue }
            var renames: [(String, String)] = keptColumnRenames[table.sqlName] ?? []
            for (i, a) in mapping.attributes.enumerated() {
                guard let k = a.sourceIndex else { continue }
                let from = oldTable.attributeColumns[k]
                let to = table.attributeColumns[i]
                if from != to { renames.append((from, to)) }
            }
            guard !renames.isEmpty else { continue }
            for (i, (from, _)) in renames.enumerated() {
                try connection.execute(
                    "ALTER TABLE \(table.quotedName) RENAME COLUMN \(q(from)) TO \(q("_strata_column_\(i)"))")
            }
            for (i, (_, to)) in renames.enumerated() {
                try connection.execute(
                    "ALTER TABLE \(table.quotedName) RENAME COLUMN \(q("_strata_column_\(i)")) TO \(q(to))")
            }
        }
        try advance()

        // 6. Indexes that do not match the new layout.
        let expected = expectedStatements()
        for (name, sql) in try existingIndexes() where expected.indexes[name] != sql {
            try connection.execute("DROP INDEX \(q(name))")
        }
        try advance()

        // 7. Columns: drop what the new layout lacks, add what it has.
        for table in new.orderedTables {
            let mapping = step.mapping(for: table.name)!
            guard mapping.sourceEntity != nil else { continue }
            let wanted = expectedColumns(table)
            let present = try columns(of: table.sqlName)
            for column in present where wanted[column] == nil {
                try connection.execute("ALTER TABLE \(table.quotedName) DROP COLUMN \(q(column))")
            }
            for (i, column) in table.attributeColumns.enumerated() where !present.contains(column) {
                let a = mapping.attributes[i]
                let literal = a.sourceIndex == nil && !a.initialValue.isNull ? Self.literal(a.initialValue) : nil
                try connection.execute(
                    "ALTER TABLE \(table.quotedName) ADD COLUMN \(q(column)) \(table.kinds[i].declaredType)"
                        + (literal.map { " DEFAULT \($0)" } ?? ""))
                if a.sourceIndex == nil, !a.initialValue.isNull, literal == nil {
                    let statement = try connection.prepare("UPDATE \(table.quotedName) SET \(q(column)) = ?")
                    SQLiteValueCoding.bind(a.initialValue, at: 1, in: statement)
                    try statement.run()
                }
            }
            for column in wanted.keys.sorted()
            where !present.contains(column) && !table.attributeColumns.contains(column) {
                try connection.execute("ALTER TABLE \(table.quotedName) ADD COLUMN \(q(column)) INTEGER")
            }
        }
        try advance()

        // 8. New tables.
        let existingTables = try tableNames()
        for (name, sql) in expected.tables where !existingTables.contains(name) { try connection.execute(sql) }
        try advance()

        // 9. Links into their new storage.
        for links in moved {
            let table = new.tables[links.entity]!
            let pairs = "temp.\(q(links.pairs))"
            switch table.relationshipStorage[links.relationship] {
            case .foreignKey(let column):
                let position = "_position_" + column
                let setPosition = table.positionColumns.contains(position) ? ", \(q(position)) = p.tpos" : ""
                try connection.execute(
                    "UPDATE \(table.quotedName) SET \(q(column)) = p.target\(setPosition) FROM \(pairs) AS p WHERE p.owner = \(table.quotedName).\(q("_pk"))"
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
                    "INSERT OR IGNORE INTO \(q(join.table)) (\(columns.map(q).joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM \(pairs)"
                )
            default:
                break
            }
            try connection.execute("DROP TABLE \(pairs)")
        }
        try advance()

        // 10. Nulls of attributes that become required take the default.
        for table in new.orderedTables {
            let mapping = step.mapping(for: table.name)!
            for (i, a) in mapping.attributes.enumerated() {
                guard let fill = a.fillNulls, a.sourceIndex != nil else { continue }
                let statement = try connection.prepare(
                    "UPDATE \(table.quotedName) SET \(q(table.attributeColumns[i])) = ? WHERE \(q(table.attributeColumns[i])) IS NULL"
                )
                SQLiteValueCoding.bind(fill, at: 1, in: statement)
                try statement.run()
            }
        }
        try advance()

        // 11. Missing indexes (a new unique index checks its constraint here).
        let present = try existingIndexes()
        for (name, sql) in expected.indexes.sorted(by: { $0.key < $1.key }) where present[name] == nil {
            do { try connection.execute(sql) } catch let error as StrataError
                where error.underlying?.contains("UNIQUE") == true || error.code == .uniqueConstraint
            {
                throw StrataError(
                    .uniqueConstraint,
                    "migrating \(step.name): the objects of the store at '\(path)' break the unique constraint of the new index \(name); nothing was changed",
                    location: ["path": path, "index": name], underlying: error.underlying)
            }
        }
        try advance()

        // 12. The key sequences follow their entities.
        for name in step.removedEntities {
            let statement = try connection.prepare("DELETE FROM \(q("_strata_sequence")) WHERE \(q("entity")) = ?")
            statement.bind(1, name)
            try statement.run()
        }
        let renames = renamedEntities.filter { $0.key != $0.value }
        for (from, _) in renames {
            let statement = try connection.prepare(
                "UPDATE \(q("_strata_sequence")) SET \(q("entity")) = ? WHERE \(q("entity")) = ?")
            statement.bind(1, "\u{1}" + from)
            statement.bind(2, from)
            try statement.run()
        }
        for (from, to) in renames {
            let statement = try connection.prepare(
                "UPDATE \(q("_strata_sequence")) SET \(q("entity")) = ? WHERE \(q("entity")) = ?")
            statement.bind(1, to)
            statement.bind(2, "\u{1}" + from)
            try statement.run()
        }
        try advance()
    }

    // MARK: Helpers

    private func isOwning(_ storage: SQLiteRelationshipStorage) -> Bool {
        switch storage {
        case .foreignKey: return true
        case .joinTable(let join): return join.isCanonical
        default: return false
        }
    }

    /// The side that owns the storage of relationship `index` of `table` (itself or its inverse).
    private func owningSide(of table: SQLiteEntityTable, _ index: Int, in schema: SQLiteSchema, model: Model) -> (
        entity: String, index: Int
    ) {
        if isOwning(table.relationshipStorage[index]) { return (table.name, index) }
        let relationship = table.entity.relationships[index]
        let inverseTable = schema.tables[relationship.destination]!
        return (inverseTable.name, inverseTable.entity.relationshipIndex(named: relationship.inverse)!)
    }

    private func sameShape(old: SQLiteRelationshipStorage, new: SQLiteRelationshipStorage) -> Bool {
        switch (old, new) {
        case (.foreignKey, .foreignKey): return true
        case (.joinTable(let a), .joinTable(let b)):
            return a.isCanonical && b.isCanonical && a.hasSourcePosition == b.hasSourcePosition
                && a.hasTargetPosition == b.hasTargetPosition
        default: return false
        }
    }

    /// `SELECT owner, target, opos, tpos` of relationship `index` of old `table`, from wherever
    /// the old layout keeps it.
    private func pairSelect(_ table: SQLiteEntityTable, _ index: Int) -> String {
        switch table.relationshipStorage[index] {
        case .foreignKey(let column):
            let position = "_position_" + column
            let tpos = table.positionColumns.contains(position) ? q(position) : "NULL"
            return
                "SELECT \(q("_pk")), \(q(column)), NULL, \(tpos) FROM \(table.quotedName) WHERE \(q(column)) IS NOT NULL"
        case .derivedToOne(let other, let column):
            return "SELECT \(q(column)), \(q("_pk")), NULL, NULL FROM \(q(other)) WHERE \(q(column)) IS NOT NULL"
        case .foreignKeyToMany(let other, let column, let position):
            return
                "SELECT \(q(column)), \(q("_pk")), \(position.map(q) ?? "NULL"), NULL FROM \(q(other)) WHERE \(q(column)) IS NOT NULL"
        case .joinTable(let join):
            let own = join.positionColumn.map(q) ?? "NULL"
            let other: String
            if join.isCanonical {
                other = join.hasTargetPosition ? q("target_position") : "NULL"
            } else {
                other = join.hasSourcePosition ? q("source_position") : "NULL"
            }
            return "SELECT \(q(join.ownColumn)), \(q(join.targetColumn)), \(own), \(other) FROM \(q(join.table))"
        }
    }

    /// Throws unless every owner has at most one target where the new side is to-one (and the
    /// reverse).
    private func checkToOne(
        _ pairs: String, relationship: Relationship, entity: Entity, inverse: Relationship, inverseEntity: Entity
    ) throws {
        for (column, side, sideEntity) in [("owner", relationship, entity), ("target", inverse, inverseEntity)]
        where !side.isToMany {
            let statement = try connection.prepare(
                "SELECT \(column), count(*) FROM temp.\(q(pairs)) GROUP BY \(column) HAVING count(*) > 1 LIMIT 1")
            defer { statement.reset() }
            if try statement.step() {
                let key = statement.int64(0)
                let count = statement.int64(1)
                throw StrataError(
                    .migrationNotInferable,
                    "migrating \(step.name): \(sideEntity.name) p\(key) has \(count) targets in '\(sideEntity.name).\(side.name)', which becomes to-one; the custom stage must leave at most one. Nothing was changed",
                    location: ["path": path, "entity": sideEntity.name, "property": side.name, "object": "p\(key)"])
            }
        }
    }

    /// Numbers `position` 0, 1, 2, ... within each `partition`, keeping any existing order.
    private func number(_ pairs: String, position: String, partition: String, tieBreak: String) throws {
        let t = "temp.\(q(pairs))"
        try connection.execute(
            "UPDATE \(t) SET \(position) = r.n FROM (SELECT rowid AS id, row_number() OVER (PARTITION BY \(partition) ORDER BY \(position), \(tieBreak)) - 1 AS n FROM \(t)) AS r WHERE \(t).rowid = r.id"
        )
    }

    private func renameTables(_ renames: [(String, String)]) throws {
        for (i, (from, _)) in renames.enumerated() {
            try connection.execute("ALTER TABLE \(q(from)) RENAME TO \(q("_strata_table_\(i)"))")
        }
        for (i, (_, to)) in renames.enumerated() {
            try connection.execute("ALTER TABLE \(q("_strata_table_\(i)")) RENAME TO \(q(to))")
        }
    }

    private func expectedColumns(_ table: SQLiteEntityTable) -> [String: Bool] {
        var columns: [String: Bool] = ["_pk": true, "_version": true]
        for c in table.attributeColumns { columns[c] = true }
        for index in table.foreignKeyIndexes {
            if case .foreignKey(let c) = table.relationshipStorage[index] { columns[c] = true }
        }
        for c in table.positionColumns { columns[c] = true }
        return columns
    }

    private func expectedStatements() -> (tables: [(String, String)], indexes: [String: String]) {
        var tables: [(String, String)] = []
        var indexes: [String: String] = [:]
        for sql in new.creationStatements() {
            guard let name = Self.firstQuotedName(sql) else { continue }
            if sql.hasPrefix("CREATE TABLE") { tables.append((name, sql)) } else { indexes[name] = sql }
        }
        return (tables, indexes)
    }

    static func firstQuotedName(_ sql: String) -> String? {
        guard let start = sql.firstIndex(of: "\"") else { return nil }
        let rest = sql[sql.index(after: start)...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }

    private func existingIndexes() throws -> [String: String] {
        let statement = try connection.prepare(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
        defer { statement.reset() }
        var result: [String: String] = [:]
        while try statement.step() { result[statement.string(0)] = statement.string(1) }
        return result
    }

    private func tableNames() throws -> Set<String> {
        let statement = try connection.prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        defer { statement.reset() }
        var result: Set<String> = []
        while try statement.step() { result.insert(statement.string(0)) }
        return result
    }

    private func columns(of table: String) throws -> [String] {
        let statement = try connection.prepare("SELECT name FROM pragma_table_info(?)")
        defer { statement.reset() }
        statement.bind(1, table)
        var result: [String] = []
        while try statement.step() { result.append(statement.string(0)) }
        return result
    }

    /// `value` as an SQL literal in the store's encoding, or `nil` when it has none that
    /// round-trips (then the column is filled with a bound parameter instead).
    static func literal(_ value: Value) -> String? {
        func text(_ s: String) -> String? {
            s.contains("\0") ? nil : "'" + s.replacingOccurrences(of: "'", with: "''") + "'"
        }
        func real(_ d: Double) -> String? {
            if d.isNaN { return "'\(SQLiteValueCoding.nanMarker)'" }
            guard d.isFinite else { return nil }
            let text = "\(d)"
            return Double(text) == d ? text : nil
        }
        switch value {
        case .null: return "NULL"
        case .integer(let v): return v == Int64.min ? nil : String(v)
        case .double(let v): return real(v)
        case .float(let v): return real(Double(v))
        case .decimal(let v): return text(v.description)
        case .string(let v): return text(v)
        case .bool(let v): return v ? "1" : "0"
        case .date(let v): return real(v.timeIntervalSinceReferenceDate)
        case .binary(let v): return "X'" + v.map { String(format: "%02X", $0) }.joined() + "'"
        case .uuid(let v):
            return "X'" + withUnsafeBytes(of: v.uuid) { Data($0) }.map { String(format: "%02X", $0) }.joined() + "'"
        case .uri(let v): return text(v.absoluteString)
        }
    }
}
