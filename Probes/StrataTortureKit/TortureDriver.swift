import StrataCore

/// Reads and writes the crash test's graph through the public store API, keeping the keys the
/// store gave each slot, group and the journal.
public final class TortureDriver {
    /// The store written to.
    public let store: any PersistentStore
    /// The run's seed.
    public let seed: UInt64
    /// What the store holds (as last loaded or saved).
    public private(set) var state: TortureState
    private var itemKeys: [Int: ObjectID]
    private let groupKeys: [ObjectID]
    private let journalKey: ObjectID
    private let counterKeys: [ObjectID]
    private let model: Model

    private init(
        store: any PersistentStore, seed: UInt64, state: TortureState, itemKeys: [Int: ObjectID], groupKeys: [ObjectID],
        journalKey: ObjectID, counterKeys: [ObjectID]
    ) {
        self.store = store
        self.seed = seed
        self.state = state
        self.itemKeys = itemKeys
        self.groupKeys = groupKeys
        self.journalKey = journalKey
        self.counterKeys = counterKeys
        model = store.model
    }

    /// Writes the initial graph (groups, journal at save 0, counters at 0) into an empty store.
    public static func create(in store: any PersistentStore, seed: UInt64) throws -> TortureDriver {
        let groups = try store.obtainPermanentIDs(for: "Group", count: TortureModel.groupCount)
        let journal = try store.obtainPermanentIDs(for: "Journal", count: 1)[0]
        let counters = try store.obtainPermanentIDs(for: "Counter", count: TortureModel.counterCount)
        var inserts = groups.enumerated().map { index, id in
            Snapshot(
                objectID: id, version: 0, attributes: [.string("g\(index)"), .integer(0)], relationships: [.toMany([])])
        }
        inserts.append(Snapshot(objectID: journal, version: 0, attributes: [.integer(0)], relationships: []))
        inserts += counters.enumerated().map { index, id in
            Snapshot(objectID: id, version: 0, attributes: [.integer(Int64(index)), .integer(0)], relationships: [])
        }
        try store.save(SaveRequest(inserts: inserts))
        return TortureDriver(
            store: store, seed: seed, state: .initial, itemKeys: [:], groupKeys: groups, journalKey: journal,
            counterKeys: counters)
    }

    /// Reads the whole graph from `store`, checking that it is consistent (both sides of every
    /// relationship agree, slots are unique, every value has its type).
    ///
    /// - Throws: ``StrataError/Code/internalInconsistency`` describing the first inconsistency, or
    ///   the store's own error.
    public static func load(from store: any PersistentStore, seed: UInt64) throws -> TortureDriver {
        func inconsistent(_ message: String) -> StrataError {
            StrataError(
                .internalInconsistency, "torture store \(store.url): \(message)", location: ["path": store.url.location]
            )
        }
        let groups = try store.fetch(FetchRequest(entityName: "Group")).snapshots()
        guard groups.count == TortureModel.groupCount else { throw inconsistent("\(groups.count) groups") }
        var groupKeys = [ObjectID?](repeating: nil, count: TortureModel.groupCount)
        var groupStates = [TortureGroup](
            repeating: TortureGroup(revision: 0, version: 0), count: TortureModel.groupCount)
        var groupMembers = [Set<ObjectID>](repeating: [], count: TortureModel.groupCount)
        for group in groups {
            guard case .string(let name) = group.attributes[0], name.hasPrefix("g"), let index = Int(name.dropFirst()),
                (0..<TortureModel.groupCount).contains(index), groupKeys[index] == nil,
                case .integer(let revision) = group.attributes[1], case .toMany(let members) = group.relationships[0]
            else { throw inconsistent("a malformed group \(group)") }
            groupKeys[index] = group.objectID
            groupStates[index] = TortureGroup(revision: revision, version: group.version)
            groupMembers[index] = Set(members)
            guard members.count == groupMembers[index].count else {
                throw inconsistent("group \(index) lists an item twice")
            }
        }
        let journals = try store.fetch(FetchRequest(entityName: "Journal")).snapshots()
        guard journals.count == 1, case .integer(let lastSave) = journals[0].attributes[0] else {
            throw inconsistent("journal \(journals)")
        }
        let counters = try store.fetch(FetchRequest(entityName: "Counter")).snapshots()
        guard counters.count == TortureModel.counterCount else { throw inconsistent("\(counters.count) counters") }

        var items: [Int: TortureItem] = [:]
        var itemKeys: [Int: ObjectID] = [:]
        for item in try store.fetch(FetchRequest(entityName: "Item")).snapshots() {
            guard case .integer(let slot) = item.attributes[0], case .integer(let value) = item.attributes[1],
                case .string(let label) = item.attributes[2], case .toOne(let groupID?) = item.relationships[0],
                let group = groupKeys.firstIndex(of: groupID)
            else { throw inconsistent("a malformed item \(item)") }
            let payload: String?
            switch item.attributes[3] {
            case .null: payload = nil
            case .string(let text): payload = text
            default: throw inconsistent("item payload \(item.attributes[3])")
            }
            guard items[Int(slot)] == nil else { throw inconsistent("two items in slot \(slot)") }
            guard groupMembers[group].contains(item.objectID) else {
                throw inconsistent("item \(item.objectID) points to group \(group), which does not list it")
            }
            items[Int(slot)] = TortureItem(
                value: value, label: label, payload: payload, group: group, version: item.version)
            itemKeys[Int(slot)] = item.objectID
        }
        let listed = groupMembers.reduce(0) { $0 + $1.count }
        guard listed == items.count else {
            throw inconsistent("groups list \(listed) items, the store holds \(items.count)")
        }
        let state = TortureState(
            lastSave: Int(lastSave), journalVersion: journals[0].version, items: items, groups: groupStates)
        return TortureDriver(
            store: store, seed: seed, state: state, itemKeys: itemKeys, groupKeys: groupKeys.map { $0! },
            journalKey: journals[0].objectID, counterKeys: counters.map(\.objectID))
    }

    /// The request that performs save `state.lastSave + 1` (IDs for new items are obtained
    /// from the store) and the state after it.
    public func nextSave() throws -> (request: SaveRequest, next: TortureState, keys: [Int: ObjectID]) {
        let n = state.lastSave + 1
        let operations = state.operations(forSave: n, seed: seed)
        var next = state
        next.apply(operations, save: n)
        var keys = itemKeys
        let insertCount = operations.filter { if case .insert = $0 { return true } else { return false } }.count
        var fresh = insertCount > 0 ? try store.obtainPermanentIDs(for: "Item", count: insertCount)[...] : []
        var request = SaveRequest()
        for operation in operations {
            switch operation {
            case .insert(let slot, let item):
                let id = fresh.removeFirst()
                keys[slot] = id
                request.inserts.append(itemSnapshot(id, slot: slot, item, version: 0))
            case .update(let slot, let item):
                request.updates.append(
                    .init(
                        itemSnapshot(keys[slot]!, slot: slot, item, version: item.version),
                        expectedVersion: item.version - 1))
            case .delete(let slot):
                request.deletes.append(.init(keys[slot]!, expectedVersion: state.items[slot]!.version))
                keys[slot] = nil
            }
        }
        for group in state.groupsChanged(by: operations).sorted() {
            let members = next.items.filter { $0.value.group == group }.map { keys[$0.key]! }.sorted()
            let snapshot = Snapshot(
                objectID: groupKeys[group], version: next.groups[group].version,
                attributes: [.string("g\(group)"), .integer(next.groups[group].revision)],
                relationships: [.toMany(members)])
            request.updates.append(.init(snapshot, expectedVersion: state.groups[group].version))
        }
        let journal = Snapshot(
            objectID: journalKey, version: next.journalVersion, attributes: [.integer(Int64(n))], relationships: [])
        request.updates.append(.init(journal, expectedVersion: state.journalVersion))
        return (request, next, keys)
    }

    /// Performs the next save; returns its number once the store reported it committed.
    @discardableResult
    public func saveNext() throws -> Int {
        let (request, next, keys) = try nextSave()
        try store.save(request)
        state = next
        itemKeys = keys
        return next.lastSave
    }

    /// The keys of the counters, by slot.
    public var counters: [ObjectID] { counterKeys }

    /// The key of the item in `slot`, if the slot holds one.
    public func itemKey(slot: Int) -> ObjectID? { itemKeys[slot] }

    /// The keys of the groups, by index.
    public var groups: [ObjectID] { groupKeys }

    /// The key of the journal object.
    public var journal: ObjectID { journalKey }

    private func itemSnapshot(_ id: ObjectID, slot: Int, _ item: TortureItem, version: Int64) -> Snapshot {
        Snapshot(
            objectID: id, version: version,
            attributes: [
                .integer(Int64(slot)), .integer(item.value), .string(item.label),
                item.payload.map(Value.string) ?? .null,
            ],
            relationships: [.toOne(groupKeys[item.group])])
    }
}
