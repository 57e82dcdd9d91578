import StrataTestSupport

/// One item of the crash test's object graph, by slot (primary keys differ from run to run).
public struct TortureItem: Hashable, Sendable {
    /// The `value` attribute.
    public var value: Int64
    /// The `label` attribute.
    public var label: String
    /// The `payload` attribute (up to a few KB, or nil).
    public var payload: String?
    /// The index of the item's group.
    public var group: Int
    /// The object's version (1 at insert, +1 per update).
    public var version: Int64

    /// Creates an item state.
    public init(value: Int64, label: String, payload: String?, group: Int, version: Int64) {
        self.value = value
        self.label = label
        self.payload = payload
        self.group = group
        self.version = version
    }
}

/// One group of the crash test's object graph.
public struct TortureGroup: Hashable, Sendable {
    /// The number of the last save that changed the group's members.
    public var revision: Int64
    /// The object's version.
    public var version: Int64

    /// Creates a group state.
    public init(revision: Int64, version: Int64) {
        self.revision = revision
        self.version = version
    }
}

/// One change a crash-test save makes.
public enum TortureOperation: Hashable, Sendable {
    /// Inserts an item into an empty slot.
    case insert(slot: Int, TortureItem)
    /// Rewrites the item in a slot (its group may change).
    case update(slot: Int, TortureItem)
    /// Deletes the item in a slot.
    case delete(slot: Int)
}

/// The whole content of a crash-test store, as a pure function of the save number: save `n`'s
/// operations follow from the seed and `n` alone, so the state after any save can be recomputed
/// and compared exactly with what a store holds.
public struct TortureState: Hashable, Sendable, CustomStringConvertible {
    /// The number of the last save applied (0: the store as created).
    public var lastSave: Int
    /// The journal object's version (`lastSave + 1`).
    public var journalVersion: Int64
    /// The items by slot.
    public var items: [Int: TortureItem]
    /// The groups, by index.
    public var groups: [TortureGroup]

    /// The state of a new store: no items, every group at revision 0.
    public static var initial: TortureState {
        TortureState(
            lastSave: 0, journalVersion: 1, items: [:],
            groups: Array(repeating: TortureGroup(revision: 0, version: 1), count: TortureModel.groupCount))
    }

    /// Creates a state.
    public init(lastSave: Int, journalVersion: Int64, items: [Int: TortureItem], groups: [TortureGroup]) {
        self.lastSave = lastSave
        self.journalVersion = journalVersion
        self.items = items
        self.groups = groups
    }

    /// The state after saves `1...n` from the initial state.
    public static func after(save n: Int, seed: UInt64) -> TortureState {
        var state = TortureState.initial
        while state.lastSave < n {
            state.apply(state.operations(forSave: state.lastSave + 1, seed: seed), save: state.lastSave + 1)
        }
        return state
    }

    /// The operations of save `n` when applied to this state (1 to 4 slots, each inserted,
    /// updated or deleted).
    public func operations(forSave n: Int, seed: UInt64) -> [TortureOperation] {
        var random = SeededGenerator(seed: seed, step: n)
        var slots: [Int] = []
        let count = Int.random(in: 1...4, using: &random)
        while slots.count < count {
            let slot = Int.random(in: 0..<TortureModel.slotCount, using: &random)
            if !slots.contains(slot) { slots.append(slot) }
        }
        return slots.map { slot in
            let value = Int64.random(in: Int64.min...Int64.max, using: &random)
            let length = Int.random(in: 0...3_000, using: &random)
            let payload: String? =
                length % 5 == 0 ? nil : String(repeating: Character(Unicode.Scalar(UInt8(97 + n % 26))), count: length)
            let group = Int.random(in: 0..<TortureModel.groupCount, using: &random)
            let label = "slot \(slot) save \(n) <&\"é\">"
            if let current = items[slot] {
                if Int.random(in: 0..<3, using: &random) == 0 { return .delete(slot: slot) }
                return .update(
                    slot: slot,
                    TortureItem(
                        value: value, label: label, payload: payload, group: group, version: current.version + 1))
            }
            return .insert(
                slot: slot, TortureItem(value: value, label: label, payload: payload, group: group, version: 1))
        }
    }

    /// The groups whose members `operations` change.
    public func groupsChanged(by operations: [TortureOperation]) -> Set<Int> {
        var changed = Set<Int>()
        for operation in operations {
            switch operation {
            case .insert(_, let item):
                changed.insert(item.group)
            case .update(let slot, let item):
                if let old = items[slot]?.group, old != item.group {
                    changed.insert(old)
                    changed.insert(item.group)
                }
            case .delete(let slot):
                if let old = items[slot]?.group { changed.insert(old) }
            }
        }
        return changed
    }

    /// Applies save `n`'s operations.
    public mutating func apply(_ operations: [TortureOperation], save n: Int) {
        for group in groupsChanged(by: operations) {
            groups[group].revision = Int64(n)
            groups[group].version += 1
        }
        for operation in operations {
            switch operation {
            case .insert(let slot, let item), .update(let slot, let item): items[slot] = item
            case .delete(let slot): items[slot] = nil
            }
        }
        lastSave = n
        journalVersion += 1
    }

    /// A short summary (save number, items, group versions).
    public var description: String {
        "save \(lastSave): \(items.count) items (slots \(items.keys.sorted())), groups \(groups.map { "r\($0.revision)v\($0.version)" })"
    }
}
