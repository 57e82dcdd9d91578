import StrataCore

/// The rows of one entity kept column by column: the versions, one ``XMLColumn`` per attribute
/// and one ``XMLRelationshipColumn`` per relationship, all parallel (row `i` of each belongs to
/// the same object). The form a load builds (``EntityTable/Storage/columns(_:)``): a handful of
/// arrays per entity, values boxed into ``Value``s only when read.
struct EntityColumns: Sendable {
    /// The optimistic-locking versions.
    private(set) var versions = XMLBuffer<Int64>()
    /// One column per attribute, indexed like ``Entity/attributes``.
    private(set) var columns: [XMLColumn]
    /// One column per relationship, indexed like ``Entity/relationships``.
    private(set) var relationships: [XMLRelationshipColumn]

    /// No rows, with the columns of `entity`.
    init(entity: Entity) {
        columns = entity.attributes.map { XMLColumn(type: $0.type) }
        relationships = entity.relationships.map { XMLRelationshipColumn(isToMany: $0.isToMany) }
    }

    /// No rows, with the same columns as `other`.
    init(shapeOf other: EntityColumns) {
        columns = other.columns.map { XMLColumn(storage: $0.storage) }
        relationships = other.relationships.map { XMLRelationshipColumn(isToMany: $0.isToMany) }
    }

    /// Rows from parallel columns (as the loader builds them), all as long as `versions`.
    init(versions: XMLBuffer<Int64>, columns: [XMLColumn], relationships: [XMLRelationshipColumn]) {
        precondition(
            columns.allSatisfy { $0.count == versions.count } && relationships.allSatisfy { $0.count == versions.count }
        )
        self.versions = versions
        self.columns = columns
        self.relationships = relationships
    }

    /// The number of rows.
    var count: Int { versions.count }

    /// The value of attribute `a` at row `i`. O(1), plus a string's length.
    func value(_ a: Int, at i: Int) -> Value { columns[a].value(at: i) }

    /// Reserves room for `count` rows in all.
    mutating func reserveCapacity(_ count: Int) {
        versions.reserveCapacity(count)
        for a in columns.indices { columns[a].reserveCapacity(rows: count) }
        for r in relationships.indices { relationships[r].reserveCapacity(rows: count) }
    }

    /// Appends one row. O(1) amortized, plus its strings' lengths.
    mutating func append(_ row: StoredRow) {
        versions.append(row.version)
        for a in columns.indices { columns[a].append(row.attributes[a]) }
        for r in relationships.indices { relationships[r].append(row.relationships[r]) }
    }

    /// Appends the rows of `rows`, in order: column by column. O(rows plus bytes).
    mutating func append(_ rows: UnsafeBufferPointer<(key: Int64, row: StoredRow)>) {
        guard !rows.isEmpty else { return }
        versions.reserveCapacity(versions.count + rows.count)
        for i in rows.indices { versions.append(rows[i].row.version) }
        for a in columns.indices { columns[a].append(attribute: a, of: rows) }
        for r in relationships.indices { relationships[r].append(relationship: r, of: rows) }
    }

    /// Appends the rows `range` of `other` (the same entity's): bulk copies, column by column.
    mutating func append(rowsOf other: EntityColumns, _ range: Range<Int>) {
        guard !range.isEmpty else { return }
        versions.append(contentsOf: other.versions, range)
        for a in columns.indices { columns[a].append(rowsOf: other.columns[a], range) }
        for r in relationships.indices { relationships[r].append(rowsOf: other.relationships[r], range) }
    }

    /// The rows in the order `order` (a permutation of the row indexes).
    func permuted(_ order: [Int]) -> EntityColumns {
        var permutedVersions = XMLBuffer<Int64>()
        permutedVersions.reserveCapacity(order.count)
        for i in order { permutedVersions.append(versions[i]) }
        return EntityColumns(
            versions: permutedVersions, columns: columns.map { $0.permuted(order) },
            relationships: relationships.map { $0.permuted(order) })
    }

    /// Removes from every relationship of every row the targets for which `isGone` is true,
    /// returning whether anything changed.
    mutating func removeTargets(_ isGone: (_ relationship: Int, _ key: Int64) -> Bool) -> Bool {
        var changed = false
        for r in relationships.indices where relationships[r].removeTargets(where: { isGone(r, $0) }) { changed = true }
        return changed
    }
}
