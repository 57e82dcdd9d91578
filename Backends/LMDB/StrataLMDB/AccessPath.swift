import StrataCore

/// How a fetch finds its candidates without scanning the entity: primary keys named by the
/// predicate, a to-one relationship's secondary database, or key ranges of an index or unique
/// constraint led by the compared attribute.
///
/// An access path is always a *superset* of the matches (long index keys are truncated); the
/// store checks every candidate against the whole predicate with ``PredicateEvaluator``, so the
/// answer is the reference answer. Only these comparisons (alone or as a conjunct of an `AND`)
/// give a path; everything else scans in primary-key order:
///
/// - `SELF == id`, `SELF IN {ids}`;
/// - `toOne == id` (the relationship's `r:` database);
/// - on an integer, string, boolean or date attribute leading an index or unique constraint,
///   against constants of the same kind and without `[c]`/`[d]`: `==` (also with `nil`), `<`,
///   `<=`, `>`, `>=`, `BETWEEN`, `IN {...}`, and `BEGINSWITH` on strings.
enum AccessPath {
    /// Exactly these primary keys (possibly none).
    case keys(Set<Int64>)
    /// The sources of a to-one relationship (by position) pointing at `target`.
    case toOne(position: Int, target: Int64)
    /// Key ranges of a secondary database.
    case ranges(EntityLayout.Secondary, [KeyRange])

    /// The most selective path `predicate` offers, or `nil` (scan).
    static func choose(for predicate: ObjectPredicate, _ layout: EntityLayout) -> AccessPath? {
        switch predicate {
        case .alwaysFalse:
            return .keys([])
        case .comparison(let comparison):
            return path(for: comparison, layout)
        case .and(let parts):
            var best: AccessPath?
            for part in parts {
                guard let found = choose(for: part, layout) else { continue }
                if case .keys = found { return found }
                if best == nil { best = found }
            }
            return best
        default:
            return nil
        }
    }

    private static func path(for c: ObjectPredicate.Comparison, _ layout: EntityLayout) -> AccessPath? {
        guard c.modifier == .direct, c.options.isEmpty else { return nil }
        switch c.lhs {
        case .evaluatedObject:
            return selfPath(c, layout)
        case .keyPath(let path) where path.components.count == 1:
            let name = path.components[0]
            if let position = layout.entity.attributeIndex(named: name) {
                guard let secondary = layout.index(leadingWith: position),
                    let ranges = ranges(c.op, c.rhs, type: layout.types[position])
                else { return nil }
                return .ranges(secondary, ranges)
            }
            if let position = layout.entity.relationshipIndex(named: name),
                !layout.entity.relationships[position].isToMany,
                c.op == .equal, case .objectID(let id) = c.rhs,
                id.entityName == layout.destinations[position], id.storeIdentifier == layout.storeIdentifier,
                let pk = id.primaryKey
            {
                return .toOne(position: position, target: pk)
            }
            return nil
        default:
            return nil
        }
    }

    private static func selfPath(_ c: ObjectPredicate.Comparison, _ layout: EntityLayout) -> AccessPath? {
        func key(_ operand: ObjectPredicate.Operand) -> Int64?? {
            guard case .objectID(let id) = operand else { return nil }
            guard id.entityName == layout.entity.name, id.storeIdentifier == layout.storeIdentifier,
                let pk = id.primaryKey
            else { return .some(nil) }
            return .some(pk)
        }
        switch c.op {
        case .equal:
            guard let pk = key(c.rhs) else { return nil }
            return .keys(pk.map { [$0] } ?? [])
        case .in:
            guard case .list(let operands) = c.rhs else { return nil }
            var keys = Set<Int64>()
            for operand in operands {
                guard let pk = key(operand) else { return nil }
                if let pk { keys.insert(pk) }
            }
            return .keys(keys)
        default:
            return nil
        }
    }

    /// Whether the constant `value` orders against attributes of `type` as the index does.
    private static func indexable(_ type: AttributeType, _ value: Value) -> Bool {
        switch (type, value) {
        case (.integer16, .integer), (.integer32, .integer), (.integer64, .integer): return true
        case (.string, .string), (.boolean, .bool), (.date, .date): return true
        default: return false
        }
    }

    private static func ranges(_ op: ObjectPredicate.Operator, _ rhs: ObjectPredicate.Operand, type: AttributeType)
        -> [KeyRange]?
    {
        func constant(_ operand: ObjectPredicate.Operand) -> Value? {
            guard case .constant(let value) = operand, indexable(type, value) else { return nil }
            return value
        }
        func tag(_ value: Value) -> [UInt8] { [IndexKey.encode(value)[0]] }
        switch op {
        case .equal:
            if case .constant(.null) = rhs { return [KeyRange(prefix: IndexKey.encode(.null))] }
            return constant(rhs).map { [KeyRange(prefix: IndexKey.encode($0))] }
        case .less, .lessOrEqual:
            return constant(rhs).map { [KeyRange(lower: tag($0), prefix: tag($0), upper: IndexKey.encode($0))] }
        case .greater, .greaterOrEqual:
            return constant(rhs).map { [KeyRange(lower: IndexKey.encode($0), prefix: tag($0), upper: nil)] }
        case .between:
            guard case .list(let bounds) = rhs, bounds.count == 2, let low = constant(bounds[0]),
                let high = constant(bounds[1])
            else { return nil }
            return [KeyRange(lower: IndexKey.encode(low), prefix: tag(low), upper: IndexKey.encode(high))]
        case .in:
            guard case .list(let operands) = rhs else { return nil }
            var ranges: [KeyRange] = []
            for operand in operands {
                if case .constant(.null) = operand {
                    ranges.append(KeyRange(prefix: IndexKey.encode(.null)))
                    continue
                }
                guard let value = constant(operand) else { return nil }
                ranges.append(KeyRange(prefix: IndexKey.encode(value)))
            }
            return ranges
        case .beginsWith:
            guard type == .string, case .constant(.string(let prefix)) = rhs else { return nil }
            return [KeyRange(prefix: IndexKey.stringPrefix(prefix))]
        default:
            return nil
        }
    }
}

/// A range of keys in a secondary database: from `lower` (inclusive) while keys start with
/// `prefix`, and stay at or below `upper` (compared on `upper`'s length).
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
}
