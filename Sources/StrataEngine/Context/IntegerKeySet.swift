/// The values of an integer attribute seen so far by one unique check, to find two new objects
/// that share one.
///
/// An open-addressing table of 8-byte slots, probed linearly, at most half full: each slot
/// holds its value mixed by a bijection of 64 bits (SplitMix64's finalizer over the value and a
/// per-process seed), so equal mixes are equal values and a slot needs no other field; 0 marks
/// an empty slot, and the one value that mixes to 0 is kept apart. A save of 100,000 new
/// objects puts 2 MB of slots in order where a dictionary of constraint keys spread 10 MB and
/// hashed each key with SipHash (Benchmarks/README.md, "The unique check of new integer keys").
struct IntegerKeySet {
    private var slots: [UInt64]
    private let mask: Int
    private let seed: UInt64
    /// Whether the value that mixes to 0 is in the set.
    private var holdsZeroMix = false
    /// How many values the set holds; never more than the capacity it was made for.
    private(set) var count = 0
    private let capacity: Int

    /// The process's hashing seed (random per process, so that values cannot be chosen to
    /// collide; fixed under `SWIFT_DETERMINISTIC_HASHING`, for repeatable counts).
    private static let processSeed: UInt64 = {
        var hasher = Hasher()
        hasher.combine(0x1_5EED as UInt64)
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }()

    /// A set for at most `capacity` values; `seed` only for tests (the process's otherwise).
    init(capacity: Int, seed: UInt64? = nil) {
        var size = 16
        while size < capacity * 2 { size *= 2 }
        slots = [UInt64](repeating: 0, count: size)
        mask = size - 1
        self.capacity = capacity
        self.seed = seed ?? Self.processSeed
    }

    /// Adds `value`; `false` when the set held it already.
    mutating func insert(_ value: Int64) -> Bool {
        let mixed = mix(value)
        if mixed == 0 {
            if holdsZeroMix { return false }
            holdsZeroMix = true
            return noteInserted()
        }
        var slot = Int(truncatingIfNeeded: mixed) & mask
        while true {
            let entry = slots[slot]
            if entry == mixed { return false }
            if entry == 0 {
                slots[slot] = mixed
                return noteInserted()
            }
            slot = (slot + 1) & mask
        }
    }

    private mutating func noteInserted() -> Bool {
        count += 1
        precondition(count <= capacity, "an integer key set made for \(capacity) values was given more")
        return true
    }

    /// `value` and the seed through SplitMix64's finalizer: a bijection, spreading sequential
    /// values evenly.
    @inline(__always)
    private func mix(_ value: Int64) -> UInt64 {
        var x = UInt64(bitPattern: value) ^ seed
        x = (x ^ (x >> 30)) &* 0xBF58_476D_1CE4_E5B9
        x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
        return x ^ (x >> 31)
    }
}
