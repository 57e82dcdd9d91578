import StrataCore

/// The objects of a context with unsaved changes (inserted, changed or deleted), by ID, held
/// strongly, with what a fetch needs to know of them at a glance: how many of each entity there
/// are, and which of their properties may differ from where the context reads from.
///
/// Each member carries the *slots* it may have changed (``ManagedObject/changedSlots``),
/// one bit per attribute plus one for all relationships and one for "not in the store at all"
/// (inserted); the change set keeps the union of its members' slots per entity. A fetch whose
/// predicate and sorts read none of an entity's changed slots can take the store's answer for
/// every changed object it did not return (see ``ObjectContext/resolve(_:options:)``), instead of
/// evaluating every one of them again: a fetch-by-key and change loop stays linear.
///
/// The slots only ever over-approximate: a member's slots grow until it leaves the change set
/// (they are reset when it enters again), and an entity's union is reset when its last member
/// leaves. Changes that do not say which slots they touch count as touching all of them.
///
/// The members are kept in the order they joined (an ``ObjectRegistry``), so that the passes a
/// save makes over them (notifications, validation, the write) visit objects in the order they
/// were made, which is the order they lie in memory, rather than in hash order.
///
/// Complexity: lookups, additions and removals are O(1) (one more hash of the entity's name).
struct ChangeSet {
    /// The members by ID, in the order they joined.
    private(set) var objects = ObjectRegistry()
    /// For each entity that had members: how many it has, and the union of their changed slots
    /// (zero when it has none left), at its position in ``positions``.
    private var summaries: [EntitySummary] = []
    /// The position of each entity's summary in ``summaries``, by entity name. Positions never
    /// change (a model has few entities), so the last one found is kept with its name: runs of
    /// one entity (an import, an update loop) compare the name instead of hashing it.
    private var positions: [String: Int] = [:]
    private var lastName = ""
    private var lastPosition = -1
    /// Changed objects a fetch looked at to correct the stores' answer (see
    /// ``ObjectContext/pendingObjectsEvaluated``).
    var evaluations = 0

    /// For each entity with member indexes: the indexes, by attribute position.
    private var memberIndexes: [String: [Int: MemberIndex]] = [:]

    struct EntitySummary {
        var members = 0
        var slots: Slots = 0
        /// The slots of the attributes with a member index. Members' own slots leave them out, so
        /// that every write of one reaches ``ChangeSet/add(_:changing:)`` (which files the member
        /// again); they count as changed for every member.
        var indexedSlots: Slots = 0
    }

    /// The members of one entity by the current value of one attribute, for fetches that look
    /// objects up by it (see ``members(of:matching:)``). A member is filed under each value it
    /// held when filed; a bucket may keep members that hold another value since, or left.
    struct MemberIndex {
        var byValue: [Value: [ManagedObject]] = [:]
        /// Members added, or written in this attribute, since the last lookup: filed at the next.
        var unfiled: [ManagedObject] = []
    }

    /// How many members an entity needs before a lookup by value builds a member index for it:
    /// below that, a scan of the change set costs less.
    static let memberIndexThreshold = 16

    // MARK: Slots

    /// A set of slots, a bit each. 32 bits, so that a managed object keeps its own in the 4
    /// bytes its ID leaves free (see ``ManagedObject/changedSlots``).
    typealias Slots = UInt32
    /// Every slot: an object changed in ways nobody described.
    static let allSlots = Slots.max
    /// The slot of an object that is not in the store (inserted): every fetch reads it.
    static let insertedSlot: Slots = 1 << 31
    /// The slot of every relationship.
    static let relationshipSlot: Slots = 1 << 30
    /// How many attributes have a slot of their own; the later ones share the last one (a
    /// change to one of them counts as a change to all of them, which only costs precision).
    static let attributeSlotCount = 30

    /// The slot of the attribute at `index`.
    @inline(__always)
    static func slot(ofAttribute index: Int) -> Slots {
        1 &<< Slots(truncatingIfNeeded: index < attributeSlotCount ? index : attributeSlotCount - 1)
    }

    /// The slots in which `new` differs from `old` (attribute and relationship values).
    static func slots(
        changingAttributes old: [Value], _ oldRelationships: [RelationshipValue], to new: [Value],
        _ newRelationships: [RelationshipValue]
    ) -> Slots {
        guard old.count == new.count, oldRelationships.count == newRelationships.count else { return allSlots }
        var slots: Slots = 0
        for index in old.indices where old[index] != new[index] { slots |= slot(ofAttribute: index) }
        if oldRelationships != newRelationships { slots |= relationshipSlot }
        return slots
    }

    // MARK: Membership

    var isEmpty: Bool { objects.isEmpty }
    var count: Int { objects.count }

    /// Makes room for `count` more members at once (a child's push), instead of growing the
    /// table step by step.
    mutating func reserveCapacity(forAdding count: Int) { objects.reserveCapacity(forAdding: count) }

    /// The members, in the order they joined.
    var values: ObjectRegistry.Values { objects.values }

    /// The member for `id`. Setting an object adds it as changed in every slot; setting `nil`
    /// removes the member.
    subscript(id: ObjectID) -> ManagedObject? {
        get { objects[id] }
        set {
            if let newValue {
                precondition(newValue.objectID == id, "\(newValue.objectID) filed under \(id)")
                add(newValue, changing: Self.allSlots)
            } else {
                removeValue(forKey: id)
            }
        }
    }

    /// Adds `object` (or keeps it) as a member that may have changed `slots` too.
    mutating func add(_ object: ManagedObject, changing slots: Slots) {
        let previous = objects.register(object)
        let isSame = previous === object
        let name = object.entity.name
        let position = summaryPosition(for: name)
        // One access to the summary (an import adds every object through here).
        var unfiled = Self.note(
            object, changing: slots, isSame: isSame, isNew: previous == nil, in: &summaries[position])
        // An indexed attribute's slot bit is its position, except that the attributes from
        // the last attribute slot on share it: a write to any of them files the member again in
        // the index of each of them.
        while unfiled != 0 {
            let bit = unfiled.trailingZeroBitCount
            if bit == Self.attributeSlotCount - 1 {
                let sharing = memberIndexes[name].map { $0.keys.filter { $0 >= bit } } ?? []
                for attribute in sharing { memberIndexes[name]?[attribute]?.unfiled.append(object) }
            } else {
                memberIndexes[name]?[bit]?.unfiled.append(object)
            }
            unfiled &= unfiled - 1
        }
    }

    /// Records in `object` and in its entity's `summary` that it may have changed `slots`
    /// (`isSame`: it was a member already; `isNew`: no object had its ID); returns the indexed
    /// slots whose index must file it again.
    @inline(__always)
    private static func note(
        _ object: ManagedObject, changing slots: Slots, isSame: Bool, isNew: Bool, in summary: inout EntitySummary
    ) -> Slots {
        let indexed = summary.indexedSlots
        let own = isSame ? object.changedSlots | slots & ~indexed : slots & ~indexed
        object.changedSlots = own
        if isNew { summary.members += 1 }
        summary.slots |= own
        return isSame ? slots & indexed : indexed
    }

    /// Removes the member for `id`, returning it.
    @discardableResult
    mutating func removeValue(forKey id: ObjectID) -> ManagedObject? {
        guard let object = objects.removeValue(forKey: id) else { return nil }
        forget(object)
        return object
    }

    /// Removes `object`, a member filed under `id` (the ID it had before a rename); whether it
    /// was one.
    mutating func removeMember(_ object: ManagedObject, filedAs id: ObjectID) -> Bool {
        guard objects.remove(object, registeredAs: id) else { return false }
        forget(object)
        return true
    }

    /// Takes a removed member out of its entity's summary.
    private mutating func forget(_ object: ManagedObject) {
        let name = object.entity.name
        let position = summaryPosition(for: name)
        if summaries[position].members <= 1 {
            summaries[position] = EntitySummary()
            if !memberIndexes.isEmpty { memberIndexes.removeValue(forKey: name) }
        } else {
            summaries[position].members -= 1
        }
    }

    /// Removes every member.
    mutating func removeAll() {
        objects.removeAll()
        for position in summaries.indices { summaries[position] = EntitySummary() }
        memberIndexes.removeAll()
    }

    /// The position of the summary of the entity named `name`, made when it has none.
    private mutating func summaryPosition(for name: String) -> Int {
        if lastPosition >= 0 && name == lastName { return lastPosition }
        let position: Int
        if let known = positions[name] {
            position = known
        } else {
            position = summaries.count
            summaries.append(EntitySummary())
            positions[name] = position
        }
        lastName = name
        lastPosition = position
        return position
    }

    /// The summary of the entity named `name` (empty when it has no members).
    private func summary(of name: String) -> EntitySummary {
        if lastPosition >= 0 && name == lastName { return summaries[lastPosition] }
        return positions[name].map { summaries[$0] } ?? EntitySummary()
    }

    /// Puts the members back as they were in `before` (a copy taken earlier), keeping the
    /// count of ``evaluations``.
    mutating func restore(_ before: ChangeSet) {
        let evaluations = self.evaluations
        // Members whose slots left out an attribute indexed since `before` get it back.
        var dropped: [String: Slots] = [:]
        for (name, position) in positions {
            let lost = summaries[position].indexedSlots & ~before.indexedSlots(of: name)
            if lost != 0 { dropped[name] = lost }
        }
        self = before
        self.evaluations = evaluations
        guard !dropped.isEmpty else { return }
        for object in objects.values {
            guard let lost = dropped[object.entity.name] else { continue }
            object.changedSlots |= lost
            summaries[summaryPosition(for: object.entity.name)].slots |= lost
        }
    }

    // MARK: Per entity

    /// How many members are objects of the entity named `entityName`.
    func count(of entityName: String) -> Int { summary(of: entityName).members }

    /// The union of the changed slots of the members of the entity named `entityName`.
    func slots(of entityName: String) -> Slots { summary(of: entityName).slots }

    /// The slots of the attributes of the entity named `entityName` that have a member index:
    /// they count as changed for every member (see ``EntitySummary/indexedSlots``).
    func indexedSlots(of entityName: String) -> Slots { summary(of: entityName).indexedSlots }

    /// Every member of the entity named `entityName` whose attribute `lookup.attribute` holds
    /// one of `lookup.values` (and a few that may not), through the entity's member index for
    /// the attribute, built at the first call; `nil` when the entity has fewer members than
    /// ``memberIndexThreshold`` and no index yet.
    ///
    /// Complexity: O(members filed since the last call + members returned); O(members) to build.
    mutating func members(of entityName: String, matching lookup: EqualityLookup) -> [ManagedObject]? {
        let attribute = lookup.attribute
        guard self.summary(of: entityName).members > 0 else { return nil }
        let position = summaryPosition(for: entityName)
        let slot = Self.slot(ofAttribute: attribute)
        // Attributes that share the last slot each have an index of their own under it.
        if memberIndexes[entityName]?[attribute] == nil {
            guard summaries[position].members >= Self.memberIndexThreshold else { return nil }
            var index = MemberIndex()
            for object in objects.values where object.entity.name == entityName {
                object.changedSlots &= ~slot
                index.unfiled.append(object)
            }
            summaries[position].indexedSlots |= slot
            summaries[position].slots |= slot
            memberIndexes[entityName, default: [:]][attribute] = index
        }
        let objects = self.objects
        return memberIndexes[entityName]?[attribute]?.lookUp(lookup.values, at: attribute, members: objects)
    }

    /// Checks the bookkeeping against the members: counts, slots, and that every value of a
    /// member that differs from its original is in its changed slots. O(n); tests call it.
    func checkInvariants() {
        var expected: [String: EntitySummary] = [:]
        for object in objects.values {
            precondition(objects[object.objectID] === object, "change set: \(object.objectID) is not found by its ID")
            precondition(
                !object.state.isInserted || object.changedSlots & Self.insertedSlot != 0,
                "change set: \(object.objectID) is inserted but not marked so")
            if !object.state.isInserted, !object.state.isFault, let original = object.original {
                let differing = Self.slots(
                    changingAttributes: original.attributes, original.relationships, to: object.attributeValues,
                    object.relationshipValues)
                precondition(
                    differing & ~(object.changedSlots | indexedSlots(of: object.entity.name)) == 0,
                    "change set: \(object.objectID) has changes outside its changed slots")
            }
            expected[object.entity.name, default: EntitySummary()].members += 1
            expected[object.entity.name, default: EntitySummary()].slots |= object.changedSlots
        }
        precondition(
            expected.mapValues(\.members) == positions.mapValues { summaries[$0].members }.filter { $0.value > 0 },
            "change set: members per entity disagree")
        for (name, indexes) in memberIndexes {
            precondition(indexedSlots(of: name) != 0, "change set: '\(name)' has member indexes it does not mark")
            for (attribute, index) in indexes {
                for object in objects.values where object.entity.name == name && !object.state.isFault {
                    let filed = index.byValue[object.attributeValues[attribute]]?.contains { $0 === object } ?? false
                    precondition(
                        filed || index.unfiled.contains { $0 === object },
                        "change set: \(object.objectID) is missing from the index of attribute \(attribute)")
                }
            }
        }
        for (name, summary) in expected {
            precondition(
                summary.slots & ~slots(of: name) == 0,
                "change set: '\(name)' has members with changed slots its summary lacks")
        }
    }
}

extension ChangeSet.MemberIndex {
    /// Files the unfiled members still in `members` under their current values, then returns
    /// the filed members holding one of `values` at `attribute` now, and any fault.
    mutating func lookUp(_ values: [Value], at attribute: Int, members: ObjectRegistry) -> [ManagedObject] {
        var faults: [ManagedObject] = []
        for object in unfiled where members[object.objectID] === object {
            if object.state.isFault {
                faults.append(object)
                continue
            }
            let value = object.attributeValues[attribute]
            if byValue[value]?.last !== object { byValue[value, default: []].append(object) }
        }
        unfiled = faults
        var found = faults
        for value in values {
            for object in byValue[value] ?? []
            where members[object.objectID] === object && !object.state.isFault
                && object.attributeValues[attribute] == value
            {
                found.append(object)
            }
        }
        return found
    }
}
