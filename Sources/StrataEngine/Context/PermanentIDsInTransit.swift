/// The temporary-to-permanent ID mappings a parent handed down to a context that has not adopted
/// them yet, each numbered in the order it arrived, so that an adoption removes exactly the
/// mappings it adopted, however many others arrived or were removed meanwhile.
struct PermanentIDsInTransit: Sendable {
    /// The mappings in the order they arrived.
    private(set) var mappings: [[ObjectID: ObjectID]] = []
    /// The number of each mapping in ``mappings``, increasing.
    private var serials: [Int] = []
    private var nextSerial = 0

    /// How many merges of a parent's pushes (``ObjectContext/automaticallyMergesChangesFromParent``)
    /// are queued on the context and not finished.
    private(set) var mergesInFlight = 0
    /// The mappings adopted while merges were in flight: a merge queued before its objects'
    /// IDs became permanent names them by temporary IDs the context may have adopted since (a
    /// read on its queue catches up with the parent), and looks them up here.
    private var recentlyAdopted: [[ObjectID: ObjectID]] = []

    /// The number of the last mapping to arrive, or `nil` when none is in transit.
    var lastSerial: Int? { serials.last }

    /// Adds a mapping after the others.
    mutating func append(_ mapping: [ObjectID: ObjectID]) {
        mappings.append(mapping)
        serials.append(nextSerial)
        nextSerial += 1
    }

    /// Counts a merge queued on the context.
    mutating func beginMerge() { mergesInFlight += 1 }

    /// Ends a merge counted by ``beginMerge()``; the mappings kept for merges go with the last.
    mutating func endMerge() {
        assert(mergesInFlight > 0, "more merges ended than began")
        mergesInFlight -= 1
        if mergesInFlight == 0 { recentlyAdopted = [] }
    }

    /// Notes that `mapping` was adopted (kept while merges are in flight).
    mutating func noteAdopted(_ mapping: [ObjectID: ObjectID]) {
        if mergesInFlight > 0 { recentlyAdopted.append(mapping) }
    }

    /// Whether no mapping is in transit or kept.
    var isEmpty: Bool { mappings.isEmpty && recentlyAdopted.isEmpty }

    /// The permanent ID of the temporary `id`, from a mapping in transit or adopted lately.
    func permanentID(for id: ObjectID) -> ObjectID? {
        for mapping in mappings.reversed() { if let permanent = mapping[id] { return permanent } }
        for mapping in recentlyAdopted.reversed() { if let permanent = mapping[id] { return permanent } }
        return nil
    }

    /// Removes the mappings numbered up to `serial` (those an adoption that read them adopted).
    mutating func removeMappings(through serial: Int) {
        let count = serials.prefix { $0 <= serial }.count
        mappings.removeFirst(count)
        serials.removeFirst(count)
    }
}
