import Foundation
import StrataCore

/// The part of the predicate language the LMDB store evaluates itself, with exactly the
/// semantics of ``PredicateEvaluator`` (see docs/LMDBStore.md for the list):
///
/// - `SELF == id`, `SELF IN {ids}`: primary-key lookups;
/// - `toOne == id`, `toOne == nil`, `toOne != id`: to-one relationships (an `==` with an ID uses
///   the relationship's secondary database);
/// - on an integer, string, boolean or date attribute, against constants of the same kind:
///   `==`, `!=`, `<`, `<=`, `>`, `>=`, `BETWEEN`, `IN {...}`, and `BEGINSWITH` on strings, all
///   without `[c]`/`[d]`; when the attribute leads a model index or unique constraint these are
///   range scans of its secondary database;
/// - `AND` of the above, `TRUEPREDICATE`, `FALSEPREDICATE`;
/// - sorts on integer, string (no options), boolean and date attributes.
///
/// Everything else is declined, and the engine evaluates it in memory.
indirect enum NativeCondition {
    case constant(Bool)
    case all([NativeCondition])
    /// The object's own primary key is one of these.
    case primaryKey(Set<Int64>)
    /// A to-one relationship (by position) points at `target` (`nil`: at nothing).
    case toOne(position: Int, target: Int64?, negated: Bool)
    /// An attribute (by position) passes a test.
    case attribute(position: Int, test: AttributeTest)

    /// A test of one attribute value against constants of its own kind.
    enum AttributeTest {
        case equal(Value)
        case notEqual(Value)
        case less(Value)
        case lessOrEqual(Value)
        case greater(Value)
        case greaterOrEqual(Value)
        case between(Value, Value)
        case member([Value])
        case beginsWith(String)
    }

    /// Whether `snapshot` satisfies the condition.
    func matches(_ snapshot: Snapshot) -> Bool {
        switch self {
        case .constant(let value): return value
        case .all(let conditions): return conditions.allSatisfy { $0.matches(snapshot) }
        case .primaryKey(let keys): return snapshot.objectID.primaryKey.map(keys.contains) ?? false
        case .toOne(let position, let target, let negated):
            guard case .toOne(let id) = snapshot.relationships[position] else { return false }
            let equal = id?.primaryKey == target
            return negated ? !equal : equal
        case .attribute(let position, let test):
            return test.matches(snapshot.attributes[position])
        }
    }
}

extension NativeCondition.AttributeTest {
    /// The predicate semantics: `==`/`!=` treat `nil` as a value; ordering operators with a
    /// `nil` side are false; `IN` with a `nil` value is true iff the list holds `nil`.
    func matches(_ value: Value) -> Bool {
        switch self {
        case .equal(let constant):
            if constant.isNull || value.isNull { return constant.isNull && value.isNull }
            return NativeOrder.compare(value, constant) == 0
        case .notEqual(let constant):
            if constant.isNull || value.isNull { return constant.isNull != value.isNull }
            return NativeOrder.compare(value, constant) != 0
        case .less(let c): return !value.isNull && NativeOrder.compare(value, c) < 0
        case .lessOrEqual(let c): return !value.isNull && NativeOrder.compare(value, c) <= 0
        case .greater(let c): return !value.isNull && NativeOrder.compare(value, c) > 0
        case .greaterOrEqual(let c): return !value.isNull && NativeOrder.compare(value, c) >= 0
        case .between(let low, let high):
            return !value.isNull && NativeOrder.compare(value, low) >= 0 && NativeOrder.compare(value, high) <= 0
        case .member(let list):
            if value.isNull { return list.contains(where: \.isNull) }
            return list.contains { !$0.isNull && NativeOrder.compare(value, $0) == 0 }
        case .beginsWith(let prefix):
            guard case .string(let text) = value else { return false }
            return text.unicodeScalars.starts(with: prefix.unicodeScalars)
        }
    }
}

/// Comparisons of two non-null values of the same natively supported kind.
enum NativeOrder {
    /// -1, 0 or 1.
    @inline(__always)
    static func compare(_ a: Value, _ b: Value) -> Int {
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.string(let x), .string(let y)): return StringFolding.compareScalars(x, y)
        case (.bool(let x), .bool(let y)): return x == y ? 0 : (x ? 1 : -1)
        case (.date(let x), .date(let y)):
            let l = x.timeIntervalSinceReferenceDate, r = y.timeIntervalSinceReferenceDate
            return l < r ? -1 : (l == r ? 0 : 1)
        default: return 0
        }
    }

    /// Whether values of `type` and the constant `value` are natively comparable.
    static func supports(_ type: AttributeType, _ value: Value) -> Bool {
        switch (type, value) {
        case (_, .null): return true
        case (.integer16, .integer), (.integer32, .integer), (.integer64, .integer): return true
        case (.string, .string), (.boolean, .bool), (.date, .date): return true
        default: return false
        }
    }

    /// Whether sorts on attributes of `type` are native.
    static func sortable(_ type: AttributeType) -> Bool {
        switch type {
        case .integer16, .integer32, .integer64, .string, .boolean, .date: return true
        default: return false
        }
    }
}

/// A fetch request compiled for the store: the condition, the sort keys, and how to find
/// candidates.
struct NativeQuery {
    /// A sort key: attribute position and direction.
    struct SortKey {
        var position: Int
        var ascending: Bool
    }

    var condition: NativeCondition?
    var sorts: [SortKey]

    /// Compiles `request` for `layout`, or returns `nil` when any part is not native.
    init?(_ request: FetchRequest, layout: EntityLayout) {
        if request.resultType == .dictionaries { return nil }
        var sorts: [SortKey] = []
        for sort in request.sorts {
            guard sort.options.isEmpty, sort.keyPath.components.count == 1,
                  let position = layout.entity.attributeIndex(named: sort.keyPath.components[0]),
                  NativeOrder.sortable(layout.types[position])
            else { return nil }
            sorts.append(SortKey(position: position, ascending: sort.ascending))
        }
        self.sorts = sorts
        if let predicate = request.predicate {
            guard let condition = NativeQuery.compile(predicate, layout) else { return nil }
            self.condition = condition
        } else {
            condition = nil
        }
    }

    private static func compile(_ predicate: ObjectPredicate, _ layout: EntityLayout) -> NativeCondition? {
        switch predicate {
        case .alwaysTrue: return .constant(true)
        case .alwaysFalse: return .constant(false)
        case .and(let parts):
            var compiled: [NativeCondition] = []
            for part in parts {
                guard let condition = compile(part, layout) else { return nil }
                compiled.append(condition)
            }
            return .all(compiled)
        case .or, .not: return nil
        case .comparison(let comparison): return compile(comparison, layout)
        }
    }

    private static func compile(_ c: ObjectPredicate.Comparison, _ layout: EntityLayout) -> NativeCondition? {
        guard c.modifier == .direct, c.options.isEmpty else { return nil }
        switch c.lhs {
        case .evaluatedObject:
            return compileSelf(c, layout)
        case .keyPath(let path) where path.components.count == 1:
            let name = path.components[0]
            if let position = layout.entity.attributeIndex(named: name) {
                guard let test = compileTest(c.op, c.rhs, type: layout.types[position]) else { return nil }
                switch test {
                case .less(.null), .lessOrEqual(.null), .greater(.null), .greaterOrEqual(.null): return .constant(false)
                default: break
                }
                return .attribute(position: position, test: test)
            }
            if let position = layout.entity.relationshipIndex(named: name), !layout.entity.relationships[position].isToMany {
                return compileToOne(c, position: position, layout)
            }
            return nil
        default:
            return nil
        }
    }

    private static func compileSelf(_ c: ObjectPredicate.Comparison, _ layout: EntityLayout) -> NativeCondition? {
        func key(_ operand: ObjectPredicate.Operand) -> Int64?? {
            guard case .objectID(let id) = operand else { return nil }
            guard id.entityName == layout.entity.name, id.storeIdentifier == layout.storeIdentifier, let pk = id.primaryKey else { return .some(nil) }
            return .some(pk)
        }
        switch c.op {
        case .equal:
            guard let pk = key(c.rhs) else { return nil }
            return pk.map { .primaryKey([$0]) } ?? .constant(false)
        case .in:
            guard case .list(let operands) = c.rhs else { return nil }
            var keys = Set<Int64>()
            for operand in operands {
                guard let pk = key(operand) else { return nil }
                if let pk { keys.insert(pk) }
            }
            return .primaryKey(keys)
        default:
            return nil
        }
    }

    private static func compileToOne(_ c: ObjectPredicate.Comparison, position: Int, _ layout: EntityLayout) -> NativeCondition? {
        guard c.op == .equal || c.op == .notEqual else { return nil }
        let negated = c.op == .notEqual
        switch c.rhs {
        case .constant(.null):
            return .toOne(position: position, target: nil, negated: negated)
        case .objectID(let id):
            guard id.entityName == layout.destinations[position], id.storeIdentifier == layout.storeIdentifier, let pk = id.primaryKey else {
                return negated ? nil : .constant(false)
            }
            return .toOne(position: position, target: pk, negated: negated)
        default:
            return nil
        }
    }

    private static func compileTest(_ op: ObjectPredicate.Operator, _ rhs: ObjectPredicate.Operand, type: AttributeType) -> NativeCondition.AttributeTest? {
        func constant(_ operand: ObjectPredicate.Operand) -> Value? {
            guard case .constant(let value) = operand, NativeOrder.supports(type, value) else { return nil }
            return value
        }
        switch op {
        case .equal: return constant(rhs).map { .equal($0) }
        case .notEqual: return constant(rhs).map { .notEqual($0) }
        case .less: return constant(rhs).map { .less($0) }
        case .lessOrEqual: return constant(rhs).map { .lessOrEqual($0) }
        case .greater: return constant(rhs).map { .greater($0) }
        case .greaterOrEqual: return constant(rhs).map { .greaterOrEqual($0) }
        case .between:
            guard case .list(let bounds) = rhs, bounds.count == 2,
                  let low = constant(bounds[0]), let high = constant(bounds[1]) else { return nil }
            if low.isNull || high.isNull { return nil }
            return .between(low, high)
        case .in:
            guard case .list(let operands) = rhs else { return nil }
            var values: [Value] = []
            for operand in operands {
                guard let value = constant(operand) else { return nil }
                values.append(value)
            }
            return .member(values)
        case .beginsWith:
            guard type == .string, case .constant(.string(let prefix)) = rhs, !prefix.isEmpty else { return nil }
            return .beginsWith(prefix)
        default:
            return nil
        }
    }
}
