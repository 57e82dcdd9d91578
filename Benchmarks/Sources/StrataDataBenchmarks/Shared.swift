import BenchmarkSupport
import Foundation

/// The record's unique key attribute: a bijection of its workload ID, as in ObjectGraphBenchmarks.
func keyOf(_ id: Int64) -> Int64 { Int64(bitPattern: UInt64(bitPattern: id) &* 0x9E37_79B9_7F4A_7C15) }

/// What each side adds up from an object it read: every property.
func touch(
    key: Int64, i1: Int64, i2: Int64, i3: Int64, d1: Double, d2: Double, d3: Double, s1: String, s2: String,
    s3: String
) -> Int {
    Int(truncatingIfNeeded: key &+ i1 &+ i2 &+ i3) &+ Int(d1 + d2 + d3) &+ s1.utf8.count &+ s2.utf8.count
        &+ s3.utf8.count
}

/// `keys` in a seeded random order, as in ObjectGraphBenchmarks.
func shuffled(_ keys: [Int64], seed: UInt64) -> [Int64] {
    var rng = SplitMix64(seed: seed)
    var keys = keys
    for i in stride(from: keys.count - 1, to: 0, by: -1) { keys.swapAt(i, Int(rng.next() % UInt64(i + 1))) }
    return keys
}

/// The update workload's change to `s1`.
func changedS1(_ s: String) -> String { String(s.reversed()) }

/// The workloads, in order.
let workloadNames = [
    "insert + save", "fetch all (default options)", "lookups by ID", "lookups by indexed key attribute",
    "update 10% (fetch by key + change, save)", "delete 10%",
]

/// The 1-, 5- and 15-minute load averages.
func loadAverage() -> String {
    var loads = [Double](repeating: 0, count: 3)
    _ = getloadavg(&loads, 3)
    return loads.map { format($0) }.joined(separator: ", ")
}
