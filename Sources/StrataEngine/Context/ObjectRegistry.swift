import StrataCore

/// Objects by ID, held strongly, in the order they joined: a context's registry, and the members
/// of its change set (``ChangeSet``).
///
/// A compact hash table: the objects sit in one array in the order they were registered (a
/// removed object leaves a hole there until holes outnumber objects), and an open-addressing
/// index of 8-byte slots, probed linearly, maps an ID to its object's position. A slot holds the
/// position and 32 bits of the ID's hash, so a probe reads an object only when those bits match
/// (the ID it holds is the key: none is stored twice).
///
/// Why not a `Dictionary`:
/// - **Release order.** When a context ends, its objects are released in the order they joined,
///   which is the order a fetch allocated them, their values and their strings in. Memory is then
///   handed back in address order, which the processor's prefetchers follow, instead of in hash
///   order, where each object, its values and their allocator neighbours miss the cache (see
///   Benchmarks/README.md, "A context's objects released in the order they came").
/// - **Size.** An index slot of 8 bytes where a dictionary's bucket takes 24 (its key and
///   value), and 8 bytes an object in the array: a fetch of 1,000,000 objects peaks 10 MB lower.
///
/// An object is found by the ID it has now: a caller that changes a registered object's ID
/// re-registers it at once (``remove(_:registeredAs:)`` with the old ID, then ``register(_:)``).
struct ObjectRegistry {
    /// The registered objects in the order they joined; `nil` where one was removed.
    private var objects: [ManagedObject?] = []
    /// The index: 0 for an empty slot, else the low 32 bits of the ID's hash above the object's
    /// position plus one. An entry's home slot is its hash bits masked by ``mask``.
    private var slots: [UInt64] = []
    /// How many objects are registered (``objects`` less its holes).
    private(set) var count = 0
    /// Seeds the IDs' hash: the process's hashing seed (random per process, so keys cannot be
    /// chosen to collide; fixed under `SWIFT_DETERMINISTIC_HASHING`, for repeatable counts).
    private static let seed: Int = {
        var hasher = Hasher()
        hasher.combine(0x5EED as UInt64)
        return hasher.finalize()
    }()

    /// The index never fills beyond three quarters.
    private static func slotCount(for count: Int) -> Int {
        var slots = 16
        while count > slots / 4 * 3 { slots *= 2 }
        return slots
    }

    private var mask: Int { slots.count - 1 }

    var isEmpty: Bool { count == 0 }

    /// The registered objects, in the order they joined.
    var values: Values { Values(objects: objects, count: count) }

    /// The registered objects, in the order they joined, without a copy of them.
    struct Values: Sequence {
        fileprivate let objects: [ManagedObject?]
        /// How many there are.
        let count: Int

        func makeIterator() -> Iterator { Iterator(objects: objects) }

        struct Iterator: IteratorProtocol {
            fileprivate let objects: [ManagedObject?]
            fileprivate var position = 0

            mutating func next() -> ManagedObject? {
                while position < objects.count {
                    defer { position += 1 }
                    if let object = objects[position] { return object }
                }
                return nil
            }
        }

        var underestimatedCount: Int { count }
    }

    /// The hash bits of `id` a slot keeps.
    @inline(__always)
    private func hashBits(of id: ObjectID) -> UInt64 {
        UInt64(UInt32(truncatingIfNeeded: id._rawHashValue(seed: Self.seed)))
    }

    /// Where `id` is in the index: the slot and position of the first entry with `id`'s hash
    /// bits whose object `matches`, or the empty slot that ends the probe run (position `nil`).
    /// The index must have slots.
    @inline(__always)
    private func find(_ id: ObjectID, where matches: (ManagedObject) -> Bool) -> (
        slot: Int, position: Int?, bits: UInt64
    ) {
        let bits = hashBits(of: id)
        var slot = Int(truncatingIfNeeded: bits) & mask
        while true {
            let entry = slots[slot]
            if entry == 0 { return (slot, nil, bits) }
            let position = Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1
            if entry >> 32 == bits, let object = objects[position], matches(object) { return (slot, position, bits) }
            slot = (slot + 1) & mask
        }
    }

    /// The object registered under `id`, if any.
    subscript(id: ObjectID) -> ManagedObject? {
        guard count > 0, let position = find(id, where: { $0.objectID == id }).position else { return nil }
        return objects[position]
    }

    /// Registers `object` under its ID, in place of any object registered under it; returns
    /// the object it replaced (`object` itself when it was registered already).
    @discardableResult
    mutating func register(_ object: ManagedObject) -> ManagedObject? {
        let id = object.objectID
        if count + 1 > slots.count / 4 * 3 { resizeIndex(toHold: count + 1) }
        let found = find(id, where: { $0.objectID == id })
        if let position = found.position {
            defer { objects[position] = object }
            return objects[position]
        }
        precondition(objects.count < Int(UInt32.max), "a context holds at most \(UInt32.max - 1) objects")
        objects.append(object)
        slots[found.slot] = found.bits << 32 | UInt64(objects.count)
        count += 1
        return nil
    }

    /// Forgets the object registered under `id`, and returns it.
    @discardableResult
    mutating func removeValue(forKey id: ObjectID) -> ManagedObject? {
        guard let object = self[id] else { return nil }
        remove(object, registeredAs: id)
        return object
    }

    /// Forgets `object`, registered under `id` (its ID now, or the one it had before a rename);
    /// returns whether it was registered under `id`.
    @discardableResult
    mutating func remove(_ object: ManagedObject, registeredAs id: ObjectID) -> Bool {
        remove(object, registeredAs: id, closingHoles: true)
    }

    @discardableResult
    private mutating func remove(_ object: ManagedObject, registeredAs id: ObjectID, closingHoles: Bool) -> Bool {
        guard count > 0 else { return false }
        let found = find(id, where: { $0 === object })
        guard let position = found.position else { return false }
        removeEntry(atSlot: found.slot, position: position)
        if closingHoles { closeHolesIfSparse() }
        return true
    }

    /// Forgets every object, releasing them in the order they joined.
    mutating func removeAll() {
        objects = []
        slots = []
        count = 0
    }

    /// Makes room for `additional` more objects at once.
    mutating func reserveCapacity(forAdding additional: Int) {
        objects.reserveCapacity(objects.count + additional)
        if count + additional > slots.count / 4 * 3 { resizeIndex(toHold: count + additional) }
    }

    /// Forgets every object that `isUnused` returns `true` for; returns how many it forgot.
    ///
    /// `isUnused` receives the object's storage in place, so that `isKnownUniquelyReferenced`
    /// sees the registry's reference alone.
    @discardableResult
    mutating func removeAll(where isUnused: (inout ManagedObject?) -> Bool) -> Int {
        var unused: [Int] = []
        for position in objects.indices where objects[position] != nil && isUnused(&objects[position]) {
            unused.append(position)
        }
        guard !unused.isEmpty else { return 0 }
        if unused.count * 4 < count {
            // A few: each leaves its slot (positions hold until the holes are closed below).
            for position in unused {
                let object = objects[position].unsafelyUnwrapped
                remove(object, registeredAs: object.objectID, closingHoles: false)
            }
            closeHolesIfSparse()
        } else {
            // Most: the survivors close up, keeping their order, and the index is made anew.
            for position in unused { objects[position] = nil }
            count -= unused.count
            objects.removeAll { $0 == nil }
            rebuildIndex()
        }
        return unused.count
    }

    /// Empties `slot` (the entry of the object at `position`), moving later entries of its probe
    /// run back so that every entry stays reachable from its home slot; leaves a hole at
    /// `position`.
    private mutating func removeEntry(atSlot slot: Int, position: Int) {
        var hole = slot
        var next = (slot + 1) & mask
        while slots[next] != 0 {
            let home = Int(truncatingIfNeeded: slots[next] >> 32) & mask
            // The entry may move back to the hole when the hole lies on its probe run.
            if (next - home) & mask >= (next - hole) & mask {
                slots[hole] = slots[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        slots[hole] = 0
        objects[position] = nil
        count -= 1
    }

    /// Closes the holes of ``objects`` once they outnumber the objects (amortized O(1) a
    /// removal: the index is made anew after as many removals as objects remain).
    private mutating func closeHolesIfSparse() {
        if count == 0 {
            objects.removeAll(keepingCapacity: true)
        } else if objects.count - count > max(count, 64) {
            objects.removeAll { $0 == nil }
            rebuildIndex()
        }
    }

    /// A new index of at least the size `count` objects need, the entries moved by their hash
    /// bits (no object read).
    private mutating func resizeIndex(toHold count: Int) {
        let old = slots
        slots = [UInt64](repeating: 0, count: Self.slotCount(for: count))
        for entry in old where entry != 0 { insertEntry(entry) }
    }

    /// The index made anew from ``objects`` (after positions moved): reads each object's ID.
    private mutating func rebuildIndex() {
        slots = [UInt64](repeating: 0, count: Self.slotCount(for: count))
        for position in objects.indices {
            guard let object = objects[position] else { continue }
            insertEntry(hashBits(of: object.objectID) << 32 | UInt64(position + 1))
        }
        assertConsistent()
    }

    /// Puts `entry` in the first empty slot from its home slot.
    private mutating func insertEntry(_ entry: UInt64) {
        var slot = Int(truncatingIfNeeded: entry >> 32) & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = entry
    }

    /// Debug builds, after the index is made anew (O(n), as the rebuild is): every object is
    /// counted and indexed, and the first ones are found under their IDs. Not after each
    /// removal, which would make a run of removals quadratic in debug builds.
    private func assertConsistent() {
        #if DEBUG
            let live = objects.compactMap { $0 }
            assert(live.count == count, "registry counts \(count) objects but holds \(live.count)")
            assert(slots.lazy.filter { $0 != 0 }.count == count, "registry index and objects disagree")
            for object in live.prefix(256) {
                assert(self[object.objectID] === object, "\(object.objectID) is not reachable in the registry")
            }
        #endif
    }
}
