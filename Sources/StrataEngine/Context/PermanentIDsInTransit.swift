/// The temporary-to-permanent ID mappings a parent handed down to a context that has not adopted
/// them yet, each numbered in the order it arrived, so that an adoption removes exactly the
/// mappings it adopted, however many others arrived or were removed meanwhile.
struct PermanentIDsInTransit: Sendable {
    /// The mappings in the order they arrived.
    private(set) var mappings: [[ObjectID: ObjectID]] = []
    /// The number of each mapping in ``mappings``, increasing.
    private var serials: [Int] = []
    private var nextSerial = 0

    /// The number of the last mapping to arrive, or `nil` when none is in transit.
    var lastSerial: Int? { serials.last }

    /// Adds a mapping after the others.
    mutating func append(_ mapping: [ObjectID: ObjectID]) {
        mappings.append(mapping)
        serials.append(nextSerial)
        nextSerial += 1
    }

    /// Removes the mappings numbered up to `serial` (those an adoption that read them adopted).
    mutating func removeMappings(through serial: Int) {
        let count = serials.prefix { $0 <= serial }.count
        mappings.removeFirst(count)
        serials.removeFirst(count)
    }
}
