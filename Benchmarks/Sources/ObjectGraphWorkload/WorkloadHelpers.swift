import BenchmarkSupport
import Foundation

// What the object-graph benchmark programs (ObjectGraphBenchmarks, StrataDataBenchmarks) share,
// so that every side of both does the same work.

/// The record's unique key attribute: a bijection of its workload ID (multiplying by an odd
/// constant), so lookups by key and by ID take different paths and the key index is filled in
/// random order.
public func keyOf(_ id: Int64) -> Int64 { Int64(bitPattern: UInt64(bitPattern: id) &* 0x9E37_79B9_7F4A_7C15) }

/// What every side adds up from an object or row it read, so that each side touches every
/// property (as a user reading the objects would) and nothing is optimized away.
public func touch(
    key: Int64, i1: Int64, i2: Int64, i3: Int64, d1: Double, d2: Double, d3: Double, s1: String, s2: String,
    s3: String
) -> Int {
    Int(truncatingIfNeeded: key &+ i1 &+ i2 &+ i3) &+ Int(d1 + d2 + d3) &+ s1.utf8.count &+ s2.utf8.count
        &+ s3.utf8.count
}

/// `keys` in a seeded random order: the workload's update and delete keys are sorted, which
/// would hand every side (the raw one most) B-tree locality a user's edits do not have.
public func shuffled(_ keys: [Int64], seed: UInt64) -> [Int64] {
    var rng = SplitMix64(seed: seed)
    var keys = keys
    for i in stride(from: keys.count - 1, to: 0, by: -1) { keys.swapAt(i, Int(rng.next() % UInt64(i + 1))) }
    return keys
}

/// The changed values of the update workload: every side makes the same three changes.
public func changedS1(_ s: String) -> String { String(s.reversed()) }
