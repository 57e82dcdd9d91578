import CStrataLMDB
import StrataCore

extension LMDBStore {
    /// The candidates of a limited fetch whose first sort is by an attribute leading an index,
    /// read by walking that index in the sort's order instead of reading every object: `nil` when
    /// the request does not qualify (no limit, object IDs or a predicate with an
    /// ``AccessPath``, `[c]`/`[d]`, a key path, no such index).
    ///
    /// The walk reads objects in index order (each key's objects by ascending primary key, the
    /// order of ties), keeps those the predicate matches, and stops at the first change of the
    /// sort attribute's key after `offset + limit` matches, or at once when the key is the whole
    /// value of the request's only sort. Index keys order
    /// values as sorts do (``IndexKey``), except that NaN's key follows every number's where
    /// sorts put NaN first: doubles, floats and decimals walk nil, NaN, then numbers as separate
    /// key ranges. Every object not read has a key beyond the last one read, so it sorts after
    /// every object read (a truncated key only merges neighbours into one group): sorting what
    /// was read with ``PredicateEvaluator`` and cutting `offset`/`limit` gives the answer sorting
    /// every object gives. Complexity: O(k log k) for k objects read, about `offset + limit`
    /// plus the rest of the last group and the objects the predicate rejects on the way.
    func orderedWalk(
        _ request: FetchRequest, _ layout: EntityLayout, _ txn: LMDBTransaction, _ evaluator: PredicateEvaluator,
        recordsRead: inout Int
    ) throws -> [Snapshot]? {
        guard let limit = request.limit, request.objectIDs == nil, let sort = request.sorts.first,
            sort.options.isEmpty, sort.keyPath.components.count == 1,
            let position = layout.entity.attributeIndex(named: sort.keyPath.components[0]),
            let secondary = layout.index(leadingWith: position)
        else { return nil }
        if let predicate = request.predicate, AccessPath.choose(for: predicate, layout) != nil { return nil }
        let (sum, overflow) = request.offset.addingReportingOverflow(limit)
        let wanted = overflow ? Int.max : sum

        var segments = Self.walkSegments(layout.types[position])
        if !sort.ascending { segments.reverse() }
        var matches: [Snapshot] = []
        var group: [UInt8] = []
        let cursor = try txn.cursor(secondary.dbi)
        defer { cursor.close() }
        for segment in segments {
            var entry = try segment.first(on: cursor, ascending: sort.ascending)
            while let (key, _) = entry, segment.admits(key) {
                let lead = key.prefix(IndexKey.leadingLength(of: key))
                if !lead.elementsEqual(group) {
                    if matches.count >= wanted { return matches }
                    group = Array(lead)
                }
                // A key's primary keys come in ascending order, the order of ties: when the key is
                // the whole (untruncated) value of the only sort, the walk can stop inside it.
                let exact =
                    request.sorts.count == 1 && lead.count == key.count && key.count < IndexKey.maximumLength
                // Seeking the key again puts the cursor on its first object (MDB_FIRST_DUP after
                // MDB_LAST leaves LMDB's end-of-data flag set, and MDB_NEXT_DUP would stop there).
                var duplicate = try Array(key).withUnsafeBytes { try cursor.seek(atLeast: $0) }
                while let (_, value) = duplicate {
                    if let pk = PrimaryKey.decode(value),
                        let bytes = try PrimaryKey.withKey(pk, { try txn.get(layout.records, key: $0) })
                    {
                        recordsRead += 1
                        let snapshot = try decode(bytes, pk, layout)
                        if try request.predicate.map({ try evaluator.evaluate($0, on: snapshot) }) ?? true {
                            matches.append(snapshot)
                            if exact && matches.count >= wanted { return matches }
                        }
                    }
                    duplicate = try cursor.move(MDB_NEXT_DUP)
                }
                entry = try cursor.move(sort.ascending ? MDB_NEXT_NODUP : MDB_PREV_NODUP)
            }
        }
        return matches
    }

    /// The key ranges of an index led by an attribute of `type`, in ascending sort order.
    static func walkSegments(_ type: AttributeType) -> [WalkSegment] {
        switch type {
        case .double, .float, .decimal:
            var afterNaN = IndexKey.nanKey
            afterNaN.append(0xFF)
            return [
                WalkSegment(lower: [0x00], upper: [0x01]), WalkSegment(lower: IndexKey.nanKey, upper: afterNaN),
                WalkSegment(lower: [0x01], upper: IndexKey.nanKey),
            ]
        default:
            return [WalkSegment(lower: [], upper: nil)]
        }
    }
}

/// The index keys from `lower` (included) to `upper` (excluded; `nil`: to the end).
struct WalkSegment {
    var lower: [UInt8]
    var upper: [UInt8]?

    func admits(_ key: UnsafeRawBufferPointer) -> Bool {
        if key.lexicographicallyPrecedes(lower) { return false }
        if let upper, !key.lexicographicallyPrecedes(upper) { return false }
        return true
    }

    /// Positions `cursor` on the segment's first entry in the walk's direction.
    func first(on cursor: LMDBCursor, ascending: Bool) throws -> LMDBCursor.Entry? {
        if ascending {
            if lower.isEmpty { return try cursor.move(MDB_FIRST) }
            return try lower.withUnsafeBytes { try cursor.seek(atLeast: $0) }
        }
        guard let upper, try upper.withUnsafeBytes({ try cursor.seek(atLeast: $0) }) != nil else {
            return try cursor.move(MDB_LAST)
        }
        return try cursor.move(MDB_PREV)
    }
}
