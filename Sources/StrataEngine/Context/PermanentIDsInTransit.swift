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
    /// Mappings adopted lately: every one adopted while merges were in flight, else the last.
    /// A merge queued before its objects' IDs became permanent names them by temporary IDs the
    /// context may have adopted since (a read on its queue catches up with the parent), and
    /// the context's reads of such IDs may race the parent's save: both look here.
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

    /// Ends a merge counted by ``beginMerge()``; with the last, only the last mapping adopted
    /// is kept.
    mutating func endMerge() {
        assert(mergesInFlight > 0, "more merges ended than began")
        mergesInFlight -= 1
        if mergesInFlight == 0 && recentlyAdopted.count > 1 {
            recentlyAdopted = [recentlyAdopted[recentlyAdopted.count - 1]]
        }
    }

    /// Notes that `mapping` was adopted (see ``recentlyAdopted``).
    mutating func noteAdopted(_ mapping: [ObjectID: ObjectID]) {
        if mergesInFlight > 0 { recentlyAdopted.append(mapping) } else { recentlyAdopted = [mapping] }
    }

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
