import BenchmarkSupport
import Foundation

/// The record's unique key attribute: a bijection of its workload ID (multiplying by an odd
/// constant), so lookups by key and by ID take different paths and the key index is filled in
/// random order.
func keyOf(_ id: Int64) -> Int64 { Int64(bitPattern: UInt64(bitPattern: id) &* 0x9E37_79B9_7F4A_7C15) }

/// A date for the scale mode's date attribute, from the record's values.
func dateOf(_ r: WorkloadRecord) -> Date { Date(timeIntervalSinceReferenceDate: r.d2 * 1_000_000) }

/// What every side adds up from an object or row it read, so that each side touches every
/// property (as a user reading the objects would) and nothing is optimized away.
func touch(
    key: Int64, i1: Int64, i2: Int64, i3: Int64, d1: Double, d2: Double, d3: Double, s1: String, s2: String,
    s3: String
) -> Int {
    Int(truncatingIfNeeded: key &+ i1 &+ i2 &+ i3) &+ Int(d1 + d2 + d3) &+ s1.utf8.count &+ s2.utf8.count
        &+ s3.utf8.count
}

/// `keys` in a seeded random order: the workload's update and delete keys are sorted, which
/// would hand every side (the raw one most) B-tree locality a user's edits do not have.
func shuffled(_ keys: [Int64], seed: UInt64) -> [Int64] {
    var rng = SplitMix64(seed: seed)
    var keys = keys
    for i in stride(from: keys.count - 1, to: 0, by: -1) { keys.swapAt(i, Int(rng.next() % UInt64(i + 1))) }
    return keys
}

/// The changed values of the update workload: every side makes the same three changes.
func changedS1(_ s: String) -> String { String(s.reversed()) }

/// Milliseconds taken by an async `body`.
func asyncMilliseconds<T>(_ body: () async throws -> T) async rethrows -> (Double, T) {
    let start = monotonicNanoseconds()
    let result = try await body()
    return (Double(monotonicNanoseconds() - start) / 1e6, result)
}

/// What one side needs for one run: the records, and the keys of each workload.
struct RunInput: Sendable {
    let records: [WorkloadRecord]
    /// Workload IDs (1...N) looked up by ID and by key.
    let lookupIDs: [Int64]
    /// Workload IDs updated (fetched by key, changed), in random order.
    let updateIDs: [Int64]
    /// Workload IDs deleted, in random order.
    let deleteIDs: [Int64]
}

/// One side's times for one run, in ms, in workload order (NaN when skipped).
typealias RunTimes = [Double]

/// The workloads, in order.
let workloadNames = [
    "insert + save", "fetch all (default options)", "lookups by ID", "lookups by indexed key attribute",
    "update 10% (fetch by key + change, save)", "delete 10%",
]

/// A side of the comparison.
protocol Side: Sendable {
    /// Its name in the table.
    var name: String { get }
    /// Runs every workload on fresh files in `directory`, returning the times and a checksum.
    func run(_ input: RunInput, directory: String) async throws -> (RunTimes, Int)
}

/// The 1-, 5- and 15-minute load averages.
func loadAverage() -> String {
    var loads = [Double](repeating: 0, count: 3)
    _ = getloadavg(&loads, 3)
    return loads.map { format($0) }.joined(separator: ", ")
}
