/// SplitMix64: a tiny deterministic generator, so that random tests and torture runs replay
/// exactly from their seed.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose whole sequence follows from `seed`.
    public init(seed: UInt64) { state = seed }

    /// The generator for one numbered step (a save, a run) of a seeded sequence: independent of
    /// every other step's.
    public init(seed: UInt64, step: Int) {
        self.init(seed: seed &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(truncatingIfNeeded: step) &* 0xD1B5_4A32_D192_ED03)
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
