import StrataCore

/// How a model is laid out in SQL: one ``SQLiteEntityTable`` per entity, plus the store's own
/// tables. Derived once per open from the model alone, so two processes with the same model agree.
///
/// Layout (see docs/SQLiteStore.md for an example):
/// - a table per entity, named after it, with `_pk INTEGER PRIMARY KEY`, `_version`, a column per
///   attribute and a column per to-one relationship that stores its side (named after it);
/// - a to-one whose inverse is to-many stores the foreign key; when that to-many is ordered, the
///   position lives beside the key in `_position_<to-one name>`;
/// - a one-to-one stores the key on the side whose `Entity.relationship` name sorts first (a
///   relationship that is its own inverse stores it on every object); the other side is derived;
/// - a many-to-many lives in a join table `"<Entity>.<relationship>"` named after the side that
///   sorts first, with columns `source`, `target` and, for ordered sides, `source_position` /
///   `target_position`;
/// - `_strata_metadata` (key, value), `_strata_sequence` (entity, lastKey) and `_strata_history`
///   (see ``SQLiteHistoryTable``).
struct SQLiteSchema: Sendable {
    /// The tables by entity name.
    let tables: [String: SQLiteEntityTable]
    /// The tables in model order.
    let orderedTables: [SQLiteEntityTable]

    init(model: Model) {
        var tables: [String: SQLiteEntityTable] = [:]
        var ordered: [SQLiteEntityTable] = []
        let naming = SQLiteNaming(model: model)
        for (position, entity) in model.entities.enumerated() {
            let table = SQLiteEntityTable(entity: entity, model: model, naming: naming, position: position)
            tables[entity.name] = table
            ordered.append(table)
        }
        self.tables = tables
        self.orderedTables = ordered
    }

    /// Every statement that creates the schema, in order.
    func creationStatements() -> [String] {
        var statements = [
            "CREATE TABLE \(q("_strata_metadata")) (\(q("key")) TEXT PRIMARY KEY NOT NULL, \(q("value")) TEXT NOT NULL)",
            "CREATE TABLE \(q("_strata_sequence")) (\(q("entity")) TEXT PRIMARY KEY NOT NULL, \(q("lastKey")) INTEGER NOT NULL)",
            SQLiteHistoryTable.creationSQL,
        ]
        for table in orderedTables { statements += table.creationStatements() }
        var joinTables: Set<String> = []
        for table in orderedTables {
            for storage in table.relationshipStorage {
                guard case .joinTable(let join) = storage, join.isCanonical, joinTables.insert(join.table).inserted
                else { continue }
                var columns = ["\(q("source")) INTEGER NOT NULL", "\(q("target")) INTEGER NOT NULL"]
                if join.hasSourcePosition { columns.append("\(q("source_position")) INTEGER") }
                if join.hasTargetPosition { columns.append("\(q("target_position")) INTEGER") }
                columns.append("PRIMARY KEY (\(q("source")), \(q("target")))")
                statements.append("CREATE TABLE \(q(join.table)) (\(columns.joined(separator: ", "))) WITHOUT ROWID")
                statements.append(
                    "CREATE INDEX \(q(join.table + ".target")) ON \(q(join.table)) (\(q("target")), \(q("source")))")
            }
        }
        return statements
    }

    /// Rebuilds the model indexes over double or float attributes that a store made by an
    /// earlier version holds on the plain columns (``SQLiteEntityTable/modelIndexStatements``
    /// holds each such column as a pair), in one `BEGIN IMMEDIATE` transaction; reads only
    /// `sqlite_master` when every index is current. Building an index reads the whole table once
    /// (a few seconds per million objects); no stored value changes.
    func rebuildOutdatedModelIndexes(on connection: SQLiteConnection) throws {
        let wanted = orderedTables.flatMap { table in
            zip(table.entity.indexes, table.modelIndexStatements).filter { index, _ in
                table.sortKeyColumns(of: index).count > index.properties.count
            }.map(\.1)
        }
        guard !wanted.isEmpty else { return }
        func outdated() throws -> [(name: String, sql: String)] {
            let statement = try connection.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index'")
            defer { statement.reset() }
            var present: [String: String] = [:]
            while try statement.step() { present[statement.string(0)] = statement.string(1) }
            return wanted.compactMap { sql in
                guard let name = SQLiteMigrationRunner.firstQuotedName(sql), present[name] != sql else { return nil }
                return (name, sql)
            }
        }
        guard !(try outdated()).isEmpty else { return }
        try connection.execute("BEGIN IMMEDIATE")
        do {
            // Read again under the lock: another process may have rebuilt them meanwhile.
            for (name, sql) in try outdated() {
                try connection.execute("DROP INDEX IF EXISTS \(q(name))")
                try connection.execute(sql)
            }
            try connection.execute("COMMIT")
        } catch {
            connection.rollbackQuietly()
            throw error
        }
    }
}

/// Double-quotes an SQL identifier (``SQLIdentifier/quoted(_:)``).
func q(_ identifier: String) -> String { SQLIdentifier.quoted(identifier) }

/// How an attribute's values are stored in their column.
enum SQLiteColumnKind: Sendable {
    case integer, double, float, decimal, string, boolean, date, binary, uuid, uri

    init(_ type: AttributeType) {
        switch type {
        case .integer16, .integer32, .integer64: self = .integer
        case .double: self = .double
        case .float: self = .float
        case .decimal: self = .decimal
        case .string: self = .string
        case .boolean: self = .boolean
        case .date: self = .date
        case .binary: self = .binary
        case .uuid: self = .uuid
        case .uri: self = .uri
        }
    }

    /// The declared column type (its SQLite affinity).
    var declaredType: String {
        switch self {
        case .integer, .boolean: return "INTEGER"
        case .double, .float, .date: return "REAL"
        case .decimal, .string, .uri: return "TEXT"
        case .binary, .uuid: return "BLOB"
        }
    }

    /// The terms that order `expression` (a column of this kind) as the evaluator's sorts do, in
    /// SQLite's order: one term, or for doubles and floats two.
    ///
    /// A double or float column holds NULL, numbers and the NaN marker, which SQLite orders NULL,
    /// numbers, text; the evaluator orders null, NaN, numbers. `expression < ''` is NULL for NULL,
    /// 0 for the marker (text after the empty text) and 1 for a number (numbers before any text),
    /// so the pair `(expression < '', expression)` orders as the evaluator does. It is a plain
    /// expression of built-in operators, so an index can hold it (see
    /// ``SQLiteEntityTable/modelIndexStatements``) and an `ORDER BY` on it walks that index.
    func sortKeys(_ expression: String) -> [String] {
        switch self {
        case .double, .float: return ["(\(expression) < '')", expression]
        default: return [expression]
        }
    }

    /// Whether the column can hold the text `'NaN'` (SQLite stores a NaN REAL as NULL, so NaN is
    /// written as that text marker).
    var mayHoldNaNMarker: Bool {
        switch self {
        case .double, .float, .date: return true
        default: return false
        }
    }
}

/// Where one relationship's targets are stored (table names are SQLite's, unquoted).
typealias SQLiteRelationshipStorage = RelationshipStorage<SQLiteJoinTable>

/// One side of a many-to-many relationship's join table, with the statements that write it.
struct SQLiteJoinTable: Sendable {
    /// The join table's name (`Entity.relationship` of the canonical side).
    let table: String
    /// Whether this side is the canonical one (its objects are `source`).
    let isCanonical: Bool
    /// The column holding this side's objects.
    let ownColumn: String
    /// The column holding the targets.
    let targetColumn: String
    /// The column holding this side's order, when this side is ordered.
    let positionColumn: String?
    /// Whether the table has `source_position` (the canonical side is ordered).
    let hasSourcePosition: Bool
    /// Whether the table has `target_position` (the other side is ordered).
    let hasTargetPosition: Bool

    /// The targets of one source.
    let selectTargetsSQL: String
    /// Removes one (source, target) row.
    let deleteRowSQL: String
    /// Adds one (source, target) row.
    let insertRowSQL: String
    /// Sets the source side's position of one row.
    let sourcePositionSQL: String
    /// Sets the target side's position of one row.
    let targetPositionSQL: String

    init(
        table: String, isCanonical: Bool, ownColumn: String, targetColumn: String, positionColumn: String?,
        hasSourcePosition: Bool, hasTargetPosition: Bool
    ) {
        self.table = table
        self.isCanonical = isCanonical
        self.ownColumn = ownColumn
        self.targetColumn = targetColumn
        self.positionColumn = positionColumn
        self.hasSourcePosition = hasSourcePosition
        self.hasTargetPosition = hasTargetPosition
        let t = q(table)
        let source = q("source")
        let target = q("target")
        selectTargetsSQL = "SELECT \(target) FROM \(t) WHERE \(source) = ?"
        deleteRowSQL = "DELETE FROM \(t) WHERE \(source) = ? AND \(target) = ?"
        insertRowSQL = "INSERT OR IGNORE INTO \(t) (\(source), \(target)) VALUES (?, ?)"
        sourcePositionSQL = "UPDATE \(t) SET \(q("source_position")) = ? WHERE \(source) = ? AND \(target) = ?"
        targetPositionSQL = "UPDATE \(t) SET \(q("target_position")) = ? WHERE \(source) = ? AND \(target) = ?"
    }
}

/// The SQL layout of one entity and the statements the store runs on it.
///
/// A class so that the hot paths pass a reference rather than copying a dozen strings.
final class SQLiteEntityTable: Sendable {
    /// The statements every table has, cached per connection in slots (no hashing of SQL text).
    enum Statement: Int, CaseIterable {
        case insert, update, delete, selectAll, selectByKey, selectByKeys, bulkInsert
    }

    /// The entity's position in the model, which numbers its statement slots.
    let position: Int
    let entity: Entity
    /// The entity's name (as in object IDs).
    let name: String
    /// The table's name (the entity's, unless another entity's differs from it only in case).
    let sqlName: String
    let quotedName: String
    /// Per attribute, its column's name.
    let attributeColumns: [String]
    /// Per model index, the SQL name part of its index.
    let indexNames: [String]
    /// Per attribute, how its column is stored.
    let kinds: [SQLiteColumnKind]
    /// Per attribute, its type and whether it may be null (checked per value on every save,
    /// without copying the ``Attribute`` structs).
    let attributeTypes: [AttributeType]
    let attributeIsOptional: [Bool]
    /// Per relationship, where it is stored.
    let relationshipStorage: [SQLiteRelationshipStorage]
    /// The indexes (into ``relationshipStorage``) of the to-one relationships, in the order their
    /// values follow the attributes in ``selectList``.
    let toOneIndexes: [Int]
    /// The indexes of the to-many relationships.
    let toManyIndexes: [Int]
    /// The indexes of the to-one relationships stored in this table's own columns, in column order.
    let foreignKeyIndexes: [Int]
    /// Position columns this table holds for ordered to-many relationships of other entities.
    let positionColumns: [String]
    /// Per relationship: the destination entity and whether it is to-many (checked on every save).
    let relationshipDestinations: [String]
    let relationshipIsToMany: [Bool]
    /// Per ordered to-many relationship stored as the targets' foreign key: the statement setting
    /// one target's position.
    let positionSQL: [Int: String]

    /// The destination entity of each to-one in ``toOneIndexes``.
    let toOneDestinations: [String]

    /// `t0."_pk", t0."_version", t0."attr"..., <to-one values>` for alias `t0`.
    let selectList: String
    /// Every row, in key order.
    let selectAllSQL: String
    /// One row by key.
    let selectByKeySQL: String
    /// Rows by a JSON array of keys, in key order.
    let selectByKeysSQL: String
    let insertSQL: String
    /// How many rows ``bulkInsertSQL`` inserts (within SQLite's 32,766 parameters).
    let bulkInsertRows: Int
    /// An INSERT of ``bulkInsertRows`` rows at once, for large saves.
    let bulkInsertSQL: String
    let updateSQL: String
    let deleteSQL: String
    /// Per to-many relationship index: the query listing the targets of one object, in order.
    let toManySQL: [Int: String]
    /// Per to-many relationship index: the query listing `(owner, target)` pairs for a JSON array
    /// of owners, ordered by owner then as ``toManySQL`` (one query for a large fetch).
    let toManyBulkSQL: [Int: String]
    /// Statements removing the join rows an object owns when it is deleted.
    let deleteJoinRowsSQL: [String]

    /// The connection cache slot of `statement`.
    @inline(__always)
    func slot(_ statement: Statement) -> Int { position * Statement.allCases.count + statement.rawValue }

    /// The SQL of `statement`.
    func sql(_ statement: Statement) -> String {
        switch statement {
        case .insert: return insertSQL
        case .bulkInsert: return bulkInsertSQL
        case .update: return updateSQL
        case .delete: return deleteSQL
        case .selectAll: return selectAllSQL
        case .selectByKey: return selectByKeySQL
        case .selectByKeys: return selectByKeysSQL
        }
    }

    init(entity: Entity, model: Model, naming: SQLiteNaming, position: Int) {
        self.position = position
        self.entity = entity
        name = entity.name
        sqlName = naming.table(entity.name)
        quotedName = q(sqlName)
        attributeColumns = entity.attributes.map { naming.column(entity.name, $0.name) }
        indexNames = entity.indexes.map { naming.index(entity.name, $0.name) }
        let entityName = entity.name
        func column(_ property: String) -> String { naming.column(entityName, property) }
        kinds = entity.attributes.map { SQLiteColumnKind($0.type) }
        attributeTypes = entity.attributes.map(\.type)
        attributeIsOptional = entity.attributes.map(\.isOptional)

        var storage: [SQLiteRelationshipStorage] = []
        for relationship in entity.relationships {
            storage.append(Self.storage(of: relationship, in: entity, model: model, naming: naming))
        }
        relationshipStorage = storage
        toOneIndexes = storage.indices.filter { !storage[$0].isToMany }
        toManyIndexes = storage.indices.filter { storage[$0].isToMany }
        foreignKeyIndexes = storage.indices.filter {
            if case .foreignKey = storage[$0] { return true } else { return false }
        }

        // Position columns: our to-one foreign keys whose inverse is an ordered to-many.
        positionColumns = foreignKeyIndexes.compactMap { index in
            let relationship = entity.relationships[index]
            return RelationshipLayout.keepsPosition(relationship, model: model)
                ? "_position_" + column(relationship.name) : nil
        }
        relationshipDestinations = entity.relationships.map(\.destination)
        relationshipIsToMany = entity.relationships.map(\.isToMany)
        var positionStatements: [Int: String] = [:]
        for (index, kind) in storage.enumerated() {
            if case .foreignKeyToMany(let table, _, let column?) = kind {
                positionStatements[index] = "UPDATE \(q(table)) SET \(q(column)) = ? WHERE \(q("_pk")) = ?"
            }
        }
        positionSQL = positionStatements

        var select = ["t0.\(q("_pk"))", "t0.\(q("_version"))"]
        select += attributeColumns.map { "t0.\(q($0))" }
        for index in toOneIndexes {
            switch storage[index] {
            case .foreignKey(let column):
                select.append("t0.\(q(column))")
            case .derivedToOne(let table, let column):
                select.append(
                    "(SELECT o.\(q("_pk")) FROM \(q(table)) AS o WHERE o.\(q(column)) = t0.\(q("_pk")) ORDER BY o.\(q("_pk")) LIMIT 1)"
                )
            default:
                break
            }
        }
        selectList = select.joined(separator: ", ")
        toOneDestinations = toOneIndexes.map { entity.relationships[$0].destination }
        selectAllSQL = "SELECT \(selectList) FROM \(quotedName) AS t0 ORDER BY t0.\(q("_pk"))"
        selectByKeySQL = "SELECT \(selectList) FROM \(quotedName) AS t0 WHERE t0.\(q("_pk")) = ?"
        selectByKeysSQL =
            "SELECT \(selectList) FROM \(quotedName) AS t0 WHERE t0.\(q("_pk")) IN (SELECT value FROM json_each(?)) ORDER BY t0.\(q("_pk"))"

        let written =
            ["_pk", "_version"] + attributeColumns + foreignKeyIndexes.map { column(entity.relationships[$0].name) }
        let rowPlaceholders = "(" + Array(repeating: "?", count: written.count).joined(separator: ", ") + ")"
        // `OR FAIL`, not the default `ABORT`: a failed insert fails the whole save, which rolls its
        // transaction back, so no statement needs undoing alone. Under `ABORT`, a many-row INSERT
        // into a table with a unique or NOT NULL constraint keeps a statement journal, a copy of
        // every page it changes, in a temporary file: with an index whose keys arrive in random
        // order, about one page written for every row.
        insertSQL =
            "INSERT OR FAIL INTO \(quotedName) (\(written.map(q).joined(separator: ", "))) VALUES \(rowPlaceholders)"
        bulkInsertRows = max(1, min(64, 32_000 / written.count))
        bulkInsertSQL =
            "INSERT OR FAIL INTO \(quotedName) (\(written.map(q).joined(separator: ", "))) VALUES "
            + Array(repeating: rowPlaceholders, count: bulkInsertRows).joined(separator: ", ")
        let assignments = written.dropFirst().map { "\(q($0)) = ?" }
        updateSQL =
            "UPDATE \(quotedName) SET \(assignments.joined(separator: ", ")) WHERE \(q("_pk")) = ? AND \(q("_version")) = ?"
        deleteSQL = "DELETE FROM \(quotedName) WHERE \(q("_pk")) = ? AND \(q("_version")) = ?"

        var toMany: [Int: String] = [:]
        var toManyBulk: [Int: String] = [:]
        var deleteJoins: [String] = []
        for index in toManyIndexes {
            switch storage[index] {
            case .foreignKeyToMany(let table, let column, let position):
                let order = (position.map { "\(q($0)), " } ?? "") + q("_pk")
                toMany[index] = "SELECT \(q("_pk")) FROM \(q(table)) WHERE \(q(column)) = ? ORDER BY \(order)"
                toManyBulk[index] =
                    "SELECT \(q(column)), \(q("_pk")) FROM \(q(table)) WHERE \(q(column)) IN (SELECT value FROM json_each(?)) ORDER BY \(q(column)), \(order)"
            case .joinTable(let join):
                let order = (join.positionColumn.map { "\(q($0)), " } ?? "") + q(join.targetColumn)
                toMany[index] =
                    "SELECT \(q(join.targetColumn)) FROM \(q(join.table)) WHERE \(q(join.ownColumn)) = ? ORDER BY \(order)"
                toManyBulk[index] =
                    "SELECT \(q(join.ownColumn)), \(q(join.targetColumn)) FROM \(q(join.table)) WHERE \(q(join.ownColumn)) IN (SELECT value FROM json_each(?)) ORDER BY \(q(join.ownColumn)), \(order)"
                if join.isCanonical { deleteJoins.append("DELETE FROM \(q(join.table)) WHERE \(q("source")) = ?") }
            default:
                break
            }
        }
        toManySQL = toMany
        toManyBulkSQL = toManyBulk
        deleteJoinRowsSQL = deleteJoins
    }

    private static func storage(of relationship: Relationship, in entity: Entity, model: Model, naming: SQLiteNaming)
        -> SQLiteRelationshipStorage
    {
        let ownColumn = naming.column(entity.name, relationship.name)
        let inverseColumn = naming.column(relationship.destination, relationship.inverse)
        let destinationTable = naming.table(relationship.destination)
        switch RelationshipLayout(of: relationship, in: entity, model: model) {
        case .foreignKey:
            return .foreignKey(column: ownColumn)
        case .derivedToOne:
            return .derivedToOne(table: destinationTable, column: inverseColumn)
        case .foreignKeyToMany(let ordered):
            return .foreignKeyToMany(
                table: destinationTable, column: inverseColumn,
                positionColumn: ordered ? "_position_" + inverseColumn : nil)
        case .joinTable(let side):
            let tableColumn = naming.column(side.tableEntity, side.tableRelationship)
            return .joinTable(
                SQLiteJoinTable(
                    table: "\(naming.table(side.tableEntity)).\(tableColumn)",
                    isCanonical: side.isCanonical,
                    ownColumn: side.isCanonical ? "source" : "target",
                    targetColumn: side.isCanonical ? "target" : "source",
                    positionColumn: side.isOrdered ? (side.isCanonical ? "source_position" : "target_position") : nil,
                    hasSourcePosition: side.hasSourcePosition,
                    hasTargetPosition: side.hasTargetPosition
                ))
        }
    }

    /// The sort key columns of a model index: per property, its column's
    /// ``SQLiteColumnKind/sortKeys(_:)`` (a property that is not an attribute keeps its name).
    func sortKeyColumns(of index: Entity.Index) -> [String] {
        index.properties.flatMap { property -> [String] in
            guard let attribute = entity.attributeIndex(named: property) else { return [q(property)] }
            return kinds[attribute].sortKeys(q(attributeColumns[attribute]))
        }
    }

    /// Per model index, the statement creating it, `"<Entity>.index.<name>"`, on its sort key
    /// columns: a double or float attribute as the pair of ``SQLiteColumnKind/sortKeys(_:)``, so
    /// that a fetch sorted by the index's attributes reads the index in order instead of sorting
    /// every row. Predicates on such an attribute name the pair's first term too, so the index
    /// serves them as well (``SQLiteQueryBuilder``).
    var modelIndexStatements: [String] {
        zip(entity.indexes, indexNames).map { index, indexName in
            "CREATE INDEX \(q("\(sqlName).index.\(indexName)")) ON \(quotedName) (\(sortKeyColumns(of: index).joined(separator: ", ")))"
        }
    }

    /// The statements creating this entity's table and indexes.
    func creationStatements() -> [String] {
        var columns = ["\(q("_pk")) INTEGER PRIMARY KEY", "\(q("_version")) INTEGER NOT NULL"]
        for (column, kind) in zip(attributeColumns, kinds) {
            columns.append("\(q(column)) \(kind.declaredType)")
        }
        for index in foreignKeyIndexes {
            guard case .foreignKey(let column) = relationshipStorage[index] else { continue }
            columns.append("\(q(column)) INTEGER")
        }
        for position in positionColumns { columns.append("\(q(position)) INTEGER") }
        var statements = ["CREATE TABLE \(quotedName) (\(columns.joined(separator: ", ")))"]
        for index in foreignKeyIndexes {
            guard case .foreignKey(let column) = relationshipStorage[index] else { continue }
            statements.append("CREATE INDEX \(q("\(sqlName).fk.\(column)")) ON \(quotedName) (\(q(column)))")
        }
        func columnNames(_ properties: [String]) -> [String] {
            properties.map { property in entity.attributeIndex(named: property).map { attributeColumns[$0] } ?? property
            }
        }
        statements += modelIndexStatements
        var seenConstraints: Set<[String]> = []
        for constraint in entity.uniqueConstraints where seenConstraints.insert(constraint).inserted {
            let constrained = columnNames(constraint)
            statements.append(
                "CREATE UNIQUE INDEX \(q("\(sqlName).unique.\(constrained.joined(separator: "+"))")) ON \(quotedName) (\(constrained.map(q).joined(separator: ", ")))"
            )
        }
        return statements
    }
}
