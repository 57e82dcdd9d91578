import CStrataLMDB
import StrataCore

extension LMDBStore {
    /// Whether the store evaluates `request` itself (see ``NativeCondition`` for the supported
    /// predicates and sorts); result types other than dictionaries are native.
    public func canEvaluateNatively(_ request: FetchRequest) -> Bool {
        guard let layout = layouts[request.entityName] else { return false }
        return NativeQuery(request, layout: layout) != nil
    }

    /// Runs a fetch in one read-only snapshot transaction.
    ///
    /// Candidates come from the cheapest source the request allows: the listed object IDs,
    /// primary keys named by the predicate, a range of a secondary database (index, unique
    /// constraint, to-one relationship), or a scan of the entity in primary-key order. Each
    /// candidate is checked against the whole predicate. Without sorts the scan stops as soon as
    /// `offset + limit` objects matched.
    public func execute(_ request: FetchRequest) throws -> FetchResult {
        try ensureOpen()
        try request.validateShape()
        let layout = try layout(request.entityName)
        guard let query = NativeQuery(request, layout: layout) else {
            throw StrataError(
                .unsupported,
                "the LMDB store does not evaluate this request itself (canEvaluateNatively is false); send the plain request and evaluate it in memory",
                location: ["entity": request.entityName])
        }
        do {
            return try environment.read { txn in try run(request, query, layout, txn) }
        } catch {
            throw environment.translate(error, doing: "fetching \(request.entityName)")
        }
    }

    private func run(_ request: FetchRequest, _ query: NativeQuery, _ layout: EntityLayout, _ txn: LMDBTransaction) throws -> FetchResult {
        let offset = request.offset
        let limit = request.limit ?? Int.max
        let sorted = !query.sorts.isEmpty
        let condition = query.condition

        // The count of a whole entity is in the database's statistics.
        if request.objectIDs == nil, condition == nil, request.resultType == .count {
            let total = try txn.count(layout.records)
            return .count(max(0, min(limit, total - offset)))
        }

        let keysOnly = condition == nil && !sorted && request.resultType != .snapshots
        var snapshots: [Snapshot] = []
        var keys: [Int64] = []
        var skipped = 0
        var taken = 0

        // Returns false to stop the scan.
        func visit(_ pk: Int64, _ bytes: UnsafeRawBufferPointer) throws -> Bool {
            if keysOnly {
                if skipped < offset { skipped += 1; return true }
                keys.append(pk)
                taken += 1
                return taken < limit
            }
            let snapshot = try decode(bytes, pk, layout)
            if let condition, !condition.matches(snapshot) { return true }
            if sorted {
                snapshots.append(snapshot)
                return true
            }
            if skipped < offset { skipped += 1; return true }
            snapshots.append(snapshot)
            taken += 1
            return taken < limit
        }

        if limit > 0 {
            switch try candidates(request, condition, layout, txn) {
            case .scan:
                let cursor = try txn.cursor(layout.records)
                defer { cursor.close() }
                var entry = try cursor.move(MDB_FIRST)
                while let (key, value) = entry {
                    guard let pk = PrimaryKey.decode(key) else {
                        throw RecordCorruption(reason: "a key of \(layout.entity.name) is \(key.count) bytes long, not 8")
                    }
                    guard try visit(pk, value) else { break }
                    entry = try cursor.move(MDB_NEXT)
                }
            case .keys(let list):
                for pk in list {
                    guard let bytes = try PrimaryKey.withKey(pk, { try txn.get(layout.records, key: $0) }) else { continue }
                    guard try visit(pk, bytes) else { break }
                }
            }
        }

        if sorted {
            snapshots.sort { a, b in NativeSorting.precedes(a, b, query.sorts) }
            let start = min(offset, snapshots.count)
            let end = limit >= snapshots.count - start ? snapshots.count : start + limit
            snapshots = Array(snapshots[start..<end])
        }
        switch request.resultType {
        case .snapshots, .dictionaries:
            return .snapshots(snapshots)
        case .objectIDs:
            return .objectIDs(keysOnly ? keys.map(layout.objectID) : snapshots.map(\.objectID))
        case .count:
            return .count(keysOnly ? keys.count : snapshots.count)
        }
    }

    /// Where a fetch's candidates come from.
    private enum Candidates {
        /// Every record, in primary-key order.
        case scan
        /// These primary keys, ascending, without duplicates.
        case keys([Int64])
    }

    private func candidates(_ request: FetchRequest, _ condition: NativeCondition?, _ layout: EntityLayout, _ txn: LMDBTransaction) throws -> Candidates {
        if let ids = request.objectIDs {
            var keys: [Int64] = []
            keys.reserveCapacity(ids.count)
            for id in ids where id.entityName == layout.entity.name && id.storeIdentifier == identifier {
                if let pk = id.primaryKey { keys.append(pk) }
            }
            return .keys(Self.sortedUnique(keys))
        }
        guard let condition else { return .scan }
        return try candidates(for: condition, layout, txn) ?? .scan
    }

    /// The candidates of `condition` from keys or secondary databases, or `nil` for a scan.
    private func candidates(for condition: NativeCondition, _ layout: EntityLayout, _ txn: LMDBTransaction) throws -> Candidates? {
        switch condition {
        case .constant(false):
            return .keys([])
        case .primaryKey(let keys):
            return .keys(keys.sorted())
        case .toOne(let position, let target?, false):
            guard let secondary = layout.toOneIndex(position) else { return nil }
            let prefix = withUnsafeBytes(of: PrimaryKey.encode(target)) { Array($0) }
            return .keys(try scan(secondary.dbi, ranges: [KeyRange(prefix: prefix)], txn))
        case .attribute(let position, let test):
            guard let secondary = layout.index(leadingWith: position), let ranges = KeyRange.ranges(for: test) else { return nil }
            return .keys(try scan(secondary.dbi, ranges: ranges, txn))
        case .all(let parts):
            var best: Candidates?
            for part in parts {
                guard let found = try candidates(for: part, layout, txn) else { continue }
                if case .keys(let list) = found, list.isEmpty { return found }
                if best == nil { best = found }
                if case .primaryKey = part { return found }
            }
            return best
        default:
            return nil
        }
    }

    /// The primary keys stored under the key ranges `ranges` of a sorted-duplicates database.
    private func scan(_ dbi: MDB_dbi, ranges: [KeyRange], _ txn: LMDBTransaction) throws -> [Int64] {
        var keys: [Int64] = []
        let cursor = try txn.cursor(dbi)
        defer { cursor.close() }
        for range in ranges {
            var entry = try range.lower.withUnsafeBytes { try cursor.seek(atLeast: $0) }
            while let (key, value) = entry, range.admits(key) {
                if let pk = PrimaryKey.decode(value) { keys.append(pk) }
                entry = try cursor.move(MDB_NEXT)
            }
        }
        return Self.sortedUnique(keys)
    }

    private static func sortedUnique(_ keys: [Int64]) -> [Int64] {
        var keys = keys
        keys.sort()
        var unique: [Int64] = []
        unique.reserveCapacity(keys.count)
        for key in keys where unique.last != key { unique.append(key) }
        return unique
    }

    // MARK: Records

    /// Decodes the record of `pk`, reporting damage as ``StrataError/Code/storeCorrupt`` naming
    /// the entity and key.
    @inline(__always)
    func decode(_ bytes: UnsafeRawBufferPointer, _ pk: Int64, _ layout: EntityLayout) throws -> Snapshot {
        do {
            return try RecordCodec.decode(bytes, pk: pk, layout: layout)
        } catch let corruption as RecordCorruption {
            throw corrupt(corruption, pk, layout)
        }
    }

    /// The object version stored in a record.
    @inline(__always)
    func decodeVersion(_ bytes: UnsafeRawBufferPointer, _ pk: Int64, _ layout: EntityLayout) throws -> Int64 {
        do {
            return try RecordCodec.version(of: bytes)
        } catch let corruption as RecordCorruption {
            throw corrupt(corruption, pk, layout)
        }
    }

    private func corrupt(_ corruption: RecordCorruption, _ pk: Int64, _ layout: EntityLayout) -> StrataError {
        StrataError(
            .storeCorrupt,
            "the LMDB store at \(environment.path) holds an unreadable record for \(layout.entity.name) p\(pk) in database \(LMDBLayout.records(layout.entity.name)): \(corruption.reason)",
            location: ["path": environment.path, "entity": layout.entity.name, "key": String(pk)])
    }
}

/// A range of keys in a secondary database: from `lower` (inclusive) while keys start with
/// `prefix`, or stay at or below `upper` (compared on `upper`'s length).
struct KeyRange {
    var lower: [UInt8]
    var prefix: [UInt8]?
    var upper: [UInt8]?

    init(prefix: [UInt8]) {
        let clipped = Array(prefix.prefix(IndexKey.maximumLength))
        lower = clipped
        self.prefix = clipped
    }

    init(lower: [UInt8], prefix: [UInt8]?, upper: [UInt8]?) {
        self.lower = Array(lower.prefix(IndexKey.maximumLength))
        self.prefix = prefix
        self.upper = upper.map { Array($0.prefix(IndexKey.maximumLength)) }
    }

    @inline(__always)
    func admits(_ key: UnsafeRawBufferPointer) -> Bool {
        if let prefix, !key.starts(with: prefix) { return false }
        if let upper {
            let head = key.prefix(upper.count)
            return !upper.lexicographicallyPrecedes(head)
        }
        return true
    }

    /// The ranges holding every candidate of `test` (a superset: candidates are re-checked).
    static func ranges(for test: NativeCondition.AttributeTest) -> [KeyRange]? {
        func tag(_ value: Value) -> [UInt8] { [IndexKey.encode(value)[0]] }
        switch test {
        case .equal(let value): return [KeyRange(prefix: IndexKey.encode(value))]
        case .member(let values): return values.map { KeyRange(prefix: IndexKey.encode($0)) }
        case .less(let value), .lessOrEqual(let value):
            return [KeyRange(lower: tag(value), prefix: tag(value), upper: IndexKey.encode(value))]
        case .greater(let value), .greaterOrEqual(let value):
            return [KeyRange(lower: IndexKey.encode(value), prefix: tag(value), upper: nil)]
        case .between(let low, let high):
            return [KeyRange(lower: IndexKey.encode(low), prefix: tag(low), upper: IndexKey.encode(high))]
        case .beginsWith(let prefix):
            return [KeyRange(prefix: IndexKey.stringPrefix(prefix))]
        case .notEqual:
            return nil
        }
    }
}

/// The sort order of natively sorted fetches: `nil` first when ascending (last when
/// descending), ties by primary key ascending.
enum NativeSorting {
    static func precedes(_ a: Snapshot, _ b: Snapshot, _ keys: [NativeQuery.SortKey]) -> Bool {
        for key in keys {
            let x = a.attributes[key.position], y = b.attributes[key.position]
            let order: Int
            switch (x.isNull, y.isNull) {
            case (true, true): order = 0
            case (true, false): order = -1
            case (false, true): order = 1
            case (false, false): order = NativeOrder.compare(x, y)
            }
            if order != 0 { return key.ascending ? order < 0 : order > 0 }
        }
        return (a.objectID.primaryKey ?? 0) < (b.objectID.primaryKey ?? 0)
    }
}
