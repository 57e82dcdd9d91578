/// The record of `../shared/design/performance.md`: an integer primary key, 3 integers,
/// 3 doubles and 3 strings of 5 to 50 bytes.
public struct WorkloadRecord: Sendable {
    /// The primary key, 1...N.
    public var id: Int64
    /// Three integers.
    public var i1: Int64, i2: Int64, i3: Int64
    /// Three doubles.
    public var d1: Double, d2: Double, d3: Double
    /// Three ASCII strings of 5 to 50 bytes.
    public var s1: String, s2: String, s3: String
}

/// Deterministic data: the same seed gives the same records on every backend and every run.
public struct Workload: Sendable {
    /// The records, in key order.
    public let records: [WorkloadRecord]
    /// 100,000 random keys in 1...N for W3.
    public let lookupKeys: [Int64]
    /// The keys of the 10% updated in W4.
    public let updateKeys: [Int64]
    /// The keys of the 10% deleted in W5 (disjoint order from the updates, same distribution).
    public let deleteKeys: [Int64]

    /// Generates `count` records from `seed`.
    public init(count: Int = 100_000, seed: UInt64 = 0x5742_4154_4100_0001) {
        var rng = SplitMix64(seed: seed)
        func string() -> String {
            let length = 5 + Int(rng.next() % 46)
            var bytes = [UInt8]()
            bytes.reserveCapacity(length)
            for _ in 0..<length { bytes.append(UInt8(97 + rng.next() % 26)) }
            return String(decoding: bytes, as: UTF8.self)
        }
        func double() -> Double { Double(rng.next() >> 11) / Double(1 << 53) * 1000 }
        var records = [WorkloadRecord]()
        records.reserveCapacity(count)
        for i in 1...count {
            records.append(
                WorkloadRecord(
                    id: Int64(i),
                    i1: Int64(bitPattern: rng.next()) % 1_000_000, i2: Int64(rng.next() % 1000), i3: Int64(i % 97),
                    d1: double(), d2: double(), d3: double(),
                    s1: string(), s2: string(), s3: string()))
        }
        self.records = records
        lookupKeys = (0..<100_000).map { _ in Int64(1 + rng.next() % UInt64(count)) }
        var keys = Array(1...Int64(count))
        for i in stride(from: keys.count - 1, to: 0, by: -1) { keys.swapAt(i, Int(rng.next() % UInt64(i + 1))) }
        updateKeys = Array(keys[0..<(count / 10)]).sorted()
        deleteKeys = Array(keys[(count / 10)..<(count / 5)]).sorted()
    }
}

/// A small, fast, seedable generator (Steele, Lea and Flood's SplitMix64).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    /// Seeds the generator.
    public init(seed: UInt64) { state = seed }
    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
