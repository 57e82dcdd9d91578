/// Evaluates predicates, sorts and key paths over snapshots, in memory: the reference semantics.
///
/// Every store may fall back to this evaluator, and a store that evaluates natively must give the
/// same answers (the conformance kit compares them). Relationships are followed through
/// `resolve`, which returns the snapshot of an object ID (or `nil` when it does not exist).
///
/// Complexity: a comparison costs O(1) plus the objects its key paths visit; a sort costs
/// O(n log n) comparisons.
public struct PredicateEvaluator {
    /// The model the snapshots belong to.
    public let model: Model
    private let resolve: (ObjectID) throws -> Snapshot?
    /// The `MATCHES` patterns compiled for this evaluator: each once per fetch, not per object.
    private let patterns = CompiledPatterns()
    /// The `IN {...}` lists of constants as hash sets: each built once per fetch, not per object.
    private let memberships = MembershipSets()

    /// How many `IN` membership sets this evaluator has built.
    package var membershipSetBuilds: Int { memberships.builds }
    /// How many times this evaluator answered `IN` from a membership set (or asked for one).
    package var membershipLookups: Int { memberships.lookups }

    /// An evaluator over `model`, following relationships through `resolve`.
    public init(model: Model, resolve: @escaping (ObjectID) throws -> Snapshot?) {
        self.model = model
        self.resolve = resolve
    }

    /// One thing a key path reaches: a value, or an object (by ID).
    enum Item: Hashable {
        case value(Value)
        case object(ObjectID)
    }

    /// What an operand evaluates to: one item, or a collection (through a to-many).
    struct Evaluated {
        var items: [Item]
        var isCollection: Bool
        static func one(_ item: Item) -> Evaluated { Evaluated(items: [item], isCollection: false) }
    }

    // MARK: Predicates

    /// Whether `snapshot` satisfies `predicate`.
    ///
    /// Recursive in the predicate's depth: pass predicates that ``PredicateValidator`` accepted
    /// (``QueryEvaluation`` checks the depth once per fetch).
    ///
    /// - Throws: ``StrataError/Code/unknownKey`` for a key path the entity does not have,
    ///   ``StrataError/Code/invalidPredicate`` for a comparison that cannot be applied.
    public func evaluate(_ predicate: ObjectPredicate, on snapshot: Snapshot) throws -> Bool {
        switch predicate {
        case .alwaysTrue: return true
        case .alwaysFalse: return false
        case .not(let inner): return try !evaluate(inner, on: snapshot)
        case .and(let parts):
            for part in parts where try !evaluate(part, on: snapshot) { return false }
            return true
        case .or(let parts):
            for part in parts where try evaluate(part, on: snapshot) { return true }
            return false
        case .comparison(let comparison):
            return try evaluate(comparison, on: snapshot)
        }
    }

    private func evaluate(_ c: ObjectPredicate.Comparison, on snapshot: Snapshot) throws -> Bool {
        if c.op == .in, case .list(let list) = c.rhs, let set = memberships.set(for: list, options: c.options) {
            return try evaluate(c, on: snapshot, in: set)
        }
        let lhs = try evaluate(c.lhs, on: snapshot)
        let rhs = try evaluate(c.rhs, on: snapshot)
        switch c.modifier {
        case .direct:
            if lhs.isCollection {
                // `employees CONTAINS %@` / `employees IN ...` on a to-many: membership.
                if c.op == .contains {
                    return try rhs.items.contains { needle in
                        try lhs.items.contains { try compare($0, .equal, needle, c.options) }
                    }
                }
                throw StrataError(
                    .invalidPredicate, "'\(c.lhs)' reaches many values; use ANY, ALL or NONE, or @count",
                    location: ["entity": snapshot.objectID.entityName])
            }
            return try compare(lhs.items[0], c.op, rhs, c.options)
        case .any:
            for item in lhs.items where try compare(item, c.op, rhs, c.options) { return true }
            return false
        case .all:
            for item in lhs.items where try !compare(item, c.op, rhs, c.options) { return false }
            return true
        case .none:
            for item in lhs.items where try compare(item, c.op, rhs, c.options) { return false }
            return true
        }
    }

    /// `c`, an `IN` over a list of constants or of objects, answered from the list's membership
    /// set: the same answers (and errors) as comparing with every element.
    private func evaluate(_ c: ObjectPredicate.Comparison, on snapshot: Snapshot, in set: MembershipSet) throws
        -> Bool
    {
        let lhs = try evaluate(c.lhs, on: snapshot)
        func isMember(_ item: Item) throws -> Bool {
            switch (item, set.objects) {
            case (.value(let value), nil): return set.contains(value)
            case (.object(let id), let objects?): return objects.contains(id)
            case (.value(.null), .some): return set.holdsNull
            default:
                // An object against constants, a value against objects: compared one by one,
                // for the same answer or error.
                return try compare(item, .in, evaluate(c.rhs, on: snapshot), c.options)
            }
        }
        switch c.modifier {
        case .direct:
            if lhs.isCollection {
                throw StrataError(
                    .invalidPredicate, "'\(c.lhs)' reaches many values; use ANY, ALL or NONE, or @count",
                    location: ["entity": snapshot.objectID.entityName])
            }
            return try isMember(lhs.items[0])
        case .any:
            for item in lhs.items where try isMember(item) { return true }
            return false
        case .all:
            for item in lhs.items where try !isMember(item) { return false }
            return true
        case .none:
            for item in lhs.items where try isMember(item) { return false }
            return true
        }
    }

    private func compare(
        _ lhs: Item, _ op: ObjectPredicate.Operator, _ rhs: Evaluated, _ options: ObjectPredicate.Options
    ) throws -> Bool {
        switch op {
        case .in:
            if rhs.isCollection || rhs.items.count != 1 {
                return try rhs.items.contains { try compare(lhs, .equal, $0, options) }
            }
            // `x IN "text"`: substring.
            if case .value(.string(let hay)) = rhs.items[0], case .value(.string(let needle)) = lhs {
                return StringMatching.contains(hay, needle, options: options)
            }
            return try compare(lhs, .equal, rhs.items[0], options)
        case .between:
            guard rhs.items.count == 2 else {
                throw StrataError(.invalidPredicate, "BETWEEN needs a list of two values, got \(rhs.items.count)")
            }
            return try compare(lhs, .greaterOrEqual, rhs.items[0], options)
                && compare(lhs, .lessOrEqual, rhs.items[1], options)
        case .contains where rhs.isCollection:
            throw StrataError(.invalidPredicate, "CONTAINS needs a single value on the right")
        default:
            guard rhs.items.count == 1, !rhs.isCollection else {
                if rhs.isCollection && rhs.items.isEmpty { return op == .notEqual }
                throw StrataError(
                    .invalidPredicate, "'\(op.rawValue)' needs a single value on the right; use IN for lists")
            }
            return try compare(lhs, op, rhs.items[0], options)
        }
    }

    private func compare(_ lhs: Item, _ op: ObjectPredicate.Operator, _ rhs: Item, _ options: ObjectPredicate.Options)
        throws -> Bool
    {
        switch (lhs, rhs) {
        case (.object(let a), .object(let b)):
            switch op {
            case .equal, .in, .contains: return a == b
            case .notEqual: return a != b
            default:
                throw StrataError(.invalidPredicate, "objects can only be compared with == and !=, not \(op.rawValue)")
            }
        case (.object, .value(let v)), (.value(let v), .object):
            guard v.isNull else {
                throw StrataError(.invalidPredicate, "an object cannot be compared with the value \(v)")
            }
            switch op {
            case .equal, .in, .contains: return false
            case .notEqual: return true
            default:
                throw StrataError(.invalidPredicate, "objects can only be compared with == and !=, not \(op.rawValue)")
            }
        case (.value(let a), .value(let b)):
            return try compareValues(a, op, b, options)
        }
    }

    private func compareValues(
        _ a: Value, _ op: ObjectPredicate.Operator, _ b: Value, _ options: ObjectPredicate.Options
    ) throws -> Bool {
        switch op {
        case .equal, .in: return ValueComparison.equal(a, b, options: options)
        case .notEqual: return !ValueComparison.equal(a, b, options: options)
        case .less: return ValueComparison.order(a, b, options: options).map { $0 < 0 } ?? false
        case .lessOrEqual: return ValueComparison.order(a, b, options: options).map { $0 <= 0 } ?? false
        case .greater: return ValueComparison.order(a, b, options: options).map { $0 > 0 } ?? false
        case .greaterOrEqual: return ValueComparison.order(a, b, options: options).map { $0 >= 0 } ?? false
        case .between: throw StrataError(.internalInconsistency, "BETWEEN reached a scalar comparison")
        case .beginsWith, .endsWith, .contains, .like, .matches:
            guard case .string(let text) = a, case .string(let pattern) = b else { return false }
            switch op {
            case .beginsWith: return StringMatching.beginsWith(text, pattern, options: options)
            case .endsWith: return StringMatching.endsWith(text, pattern, options: options)
            case .contains: return StringMatching.contains(text, pattern, options: options)
            case .like: return StringMatching.like(text, pattern, options: options)
            default: return try patterns.pattern(pattern, options: options).matches(text)
            }
        }
    }

    // MARK: Operands and key paths

    func evaluate(_ operand: ObjectPredicate.Operand, on snapshot: Snapshot) throws -> Evaluated {
        switch operand {
        case .constant(let value): return .one(.value(value))
        case .objectID(let id): return .one(.object(id))
        case .evaluatedObject: return .one(.object(snapshot.objectID))
        case .list(let operands):
            var items: [Item] = []
            for operand in operands { items += try evaluate(operand, on: snapshot).items }
            return Evaluated(items: items, isCollection: true)
        case .keyPath(let path):
            return try follow(path, from: snapshot)
        case .count(let path):
            let reached = try follow(path, from: snapshot)
            guard reached.isCollection else {
                throw StrataError(
                    .invalidPredicate, "'\(path).@count' needs a to-many relationship",
                    location: ["entity": snapshot.objectID.entityName, "key": path.description])
            }
            return .one(.value(.integer(Int64(reached.items.count))))
        }
    }

    /// Follows `path` from `snapshot`: through to-one relationships to one item, through to-many
    /// relationships to a collection. A `nil` to-one on the way yields ``Value/null``.
    func follow(_ path: PropertyPath, from snapshot: Snapshot) throws -> Evaluated {
        var current: [Snapshot?] = [snapshot]
        var isCollection = false
        for (i, key) in path.components.enumerated() {
            let isLast = i == path.components.count - 1
            var next: [Snapshot?] = []
            var items: [Item] = []
            for source in current {
                guard let source else {
                    if isLast { items.append(.value(.null)) } else { next.append(nil) }
                    continue
                }
                let entity = try model.requireEntity(source.objectID.entityName)
                if let a = entity.attributeIndex(named: key) {
                    guard isLast else {
                        throw StrataError(
                            .unknownKey, "'\(path)' continues past the attribute '\(entity.name).\(key)'",
                            location: ["entity": entity.name, "key": path.description])
                    }
                    items.append(.value(source.attributes[a]))
                } else if let r = entity.relationshipIndex(named: key) {
                    switch source.relationships[r] {
                    case .toOne(let target):
                        if isLast {
                            items.append(target.map(Item.object) ?? .value(.null))
                        } else {
                            next.append(try target.flatMap(resolve))
                        }
                    case .toMany(let targets):
                        isCollection = true
                        if isLast {
                            items += targets.map(Item.object)
                        } else {
                            for target in targets { next.append(try resolve(target)) }
                        }
                    }
                } else {
                    throw StrataError(
                        .unknownKey, "'\(entity.name)' has no property '\(key)' (in key path '\(path)')",
                        location: ["entity": entity.name, "key": key])
                }
            }
            if isLast { return Evaluated(items: items, isCollection: isCollection) }
            current = next
        }
        return .one(.object(snapshot.objectID))
    }

    /// The value `path` reaches from `snapshot` through to-one relationships (``Value/null`` when a
    /// relationship on the way is empty). Used for sorts and dictionary results.
    ///
    /// - Throws: ``StrataError/Code/invalidRequest`` when the path does not end at an attribute or
    ///   passes through a to-many relationship.
    public func value(at path: PropertyPath, of snapshot: Snapshot) throws -> Value {
        let reached = try follow(path, from: snapshot)
        guard !reached.isCollection, reached.items.count == 1, case .value(let value) = reached.items[0] else {
            throw StrataError(
                .invalidRequest, "'\(path)' does not lead to one attribute value of '\(snapshot.objectID.entityName)'",
                location: ["entity": snapshot.objectID.entityName, "key": path.description])
        }
        return value
    }

    // MARK: Sorts

    /// `snapshots` ordered by `sorts` (ties by primary key). The sort keys are computed once per
    /// snapshot, so relationships are followed n times, not n log n times.
    public func sorted(_ snapshots: [Snapshot], by sorts: [Sort]) throws -> [Snapshot] {
        guard !sorts.isEmpty else { return snapshots.sorted { $0.objectID < $1.objectID } }
        let keyed = try snapshots.map { snapshot in
            (snapshot, try sorts.map { try value(at: $0.keyPath, of: snapshot) })
        }
        return keyed.sorted { x, y in
            for (i, sort) in sorts.enumerated() {
                let order = ValueComparison.sortOrder(x.1[i], y.1[i], options: sort.options)
                if order != 0 { return sort.ascending ? order < 0 : order > 0 }
            }
            return x.0.objectID < y.0.objectID
        }.map(\.0)
    }
}

/// The `MATCHES` patterns one evaluator has compiled, looked up by the pattern string (the same
/// string instance on every object, so comparing it is cheap) and options.
final class CompiledPatterns {
    private var entries: [(pattern: String, options: ObjectPredicate.Options, compiled: StringMatching.RegexPattern)] =
        []
    /// The most patterns kept; a predicate rarely has more.
    private static let capacity = 16

    /// `pattern` compiled with `options`.
    ///
    /// - Throws: ``StrataError/Code/invalidPredicate`` for an invalid or too long pattern.
    func pattern(_ pattern: String, options: ObjectPredicate.Options) throws -> StringMatching.RegexPattern {
        for entry in entries where entry.options == options && entry.pattern == pattern { return entry.compiled }
        let compiled = try StringMatching.RegexPattern(pattern, options: options)
        if entries.count >= Self.capacity { entries.removeFirst() }
        entries.append((pattern, options, compiled))
        return compiled
    }
}
