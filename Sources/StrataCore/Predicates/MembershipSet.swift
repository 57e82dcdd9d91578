/// The constants of one `IN {...}` list as hash sets, so membership costs O(1) per object
/// instead of one ``ValueComparison/equal(_:_:options:)`` per list element.
///
/// ``contains(_:)`` answers exactly what comparing with every element would: `NULL` matches only
/// `NULL`; two integers compare exactly and any other pair of numbers as `Double` (NaN matches
/// nothing); strings compare by Unicode scalars after ``StringFolding/fold(_:_:)`` with the
/// list's options; every other kind by storage equality.
struct MembershipSet {
    private var containsNull = false
    /// The integers of the list.
    private var integers = Set<Int64>()
    /// The non-integer numbers of the list, as `Double` (without NaN).
    private var fractionalDoubles = Set<Double>()
    /// Every number of the list, as `Double` (without NaN).
    private var allDoubles = Set<Double>()
    /// Strings (folded when the list has options) and every other non-numeric kind.
    private var others = Set<Value>()
    /// The objects of a list of objects (and `NULL`s), such as `SELF IN %@` with object IDs;
    /// `nil` for a list of constants.
    private(set) var objects: Set<ObjectID>?
    private let options: ObjectPredicate.Options

    /// The set of `values`, compared with `options`.
    init(_ values: some Sequence<Value>, options: ObjectPredicate.Options) {
        self.options = options
        for value in values {
            switch value {
            case .null:
                containsNull = true
            case .integer(let v):
                integers.insert(v)
                allDoubles.insert(Double(v))
            case .double, .float, .decimal:
                guard let d = ValueComparison.double(value), !d.isNaN else { continue }
                fractionalDoubles.insert(d)
                allDoubles.insert(d)
            case .string(let s):
                others.insert(.string(options.isEmpty ? s : StringFolding.fold(s, options)))
            default:
                others.insert(value)
            }
        }
    }

    /// The set of a list of objects and `NULL`s: an object is a member when it is in `objects`,
    /// `NULL` when the list holds one.
    init(objects: some Sequence<ObjectID>, containsNull: Bool) {
        self.options = []
        self.objects = Set(objects)
        self.containsNull = containsNull
    }

    /// Whether the list holds `NULL`.
    var holdsNull: Bool { containsNull }

    /// Whether `value` equals some element of the list.
    func contains(_ value: Value) -> Bool {
        switch value {
        case .null:
            return containsNull
        case .integer(let v):
            return integers.contains(v) || fractionalDoubles.contains(Double(v))
        case .double, .float, .decimal:
            guard let d = ValueComparison.double(value), !d.isNaN else { return false }
            return allDoubles.contains(d)
        case .string(let s):
            return others.contains(.string(options.isEmpty ? s : StringFolding.fold(s, options)))
        default:
            return others.contains(value)
        }
    }
}

/// The membership sets one evaluator has built: each `IN {...}` list of constants once per
/// fetch, not once per object.
///
/// A list is recognised by its storage (the predicate shares it with every copy) and its
/// options; the cache keeps the list alive, so its storage cannot be reused by another list.
final class MembershipSets {
    private var entries: [(list: [ObjectPredicate.Operand], options: ObjectPredicate.Options, set: MembershipSet?)] =
        []
    /// How many sets were built (for tests: one per list and fetch).
    private(set) var builds = 0
    /// How many times a list was asked for (for tests: once per object and comparison).
    private(set) var lookups = 0
    /// The most lists kept; a predicate rarely has more.
    private static let capacity = 16

    /// The set of `list` with `options`: of its constants, or of its objects when it holds only
    /// object IDs and `NULL`s; `nil` otherwise (an element then depends on the object, and the
    /// list is compared element by element).
    func set(for list: [ObjectPredicate.Operand], options: ObjectPredicate.Options) -> MembershipSet? {
        for entry in entries where entry.options == options && Self.sameStorage(entry.list, list) {
            lookups += 1
            return entry.set
        }
        var values: [Value]? = []
        values?.reserveCapacity(list.count)
        for operand in list {
            guard case .constant(let value) = operand else {
                values = nil
                break
            }
            values?.append(value)
        }
        let built = values.map { MembershipSet($0, options: options) } ?? Self.objectSet(of: list)
        if built != nil { builds += 1 }
        lookups += 1
        if entries.count >= Self.capacity { entries.removeFirst() }
        entries.append((list, options, built))
        return built
    }

    /// The set of `list` when it holds only objects and `NULL`s (with at least one object).
    private static func objectSet(of list: [ObjectPredicate.Operand]) -> MembershipSet? {
        var objects: [ObjectID] = []
        objects.reserveCapacity(list.count)
        var containsNull = false
        for operand in list {
            switch operand {
            case .objectID(let id): objects.append(id)
            case .constant(.null): containsNull = true
            default: return nil
            }
        }
        return objects.isEmpty ? nil : MembershipSet(objects: objects, containsNull: containsNull)
    }

    private static func sameStorage(_ a: [ObjectPredicate.Operand], _ b: [ObjectPredicate.Operand]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in x.baseAddress == y.baseAddress } }
    }
}
