import BenchmarkSupport
import Foundation
import ObjectGraphWorkload

/// A date for the scale mode's date attribute, from the record's values.
func dateOf(_ r: WorkloadRecord) -> Date { Date(timeIntervalSinceReferenceDate: r.d2 * 1_000_000) }

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

/// A context a timed workload used, kept so that the workload's timing ends it: the context's
/// end (its registry and every object it made released) is work of the workload, and without
/// this it runs on whichever thread lets go of the context last, often the context's queue after
/// the awaiting task has resumed and stopped the clock.
final class ContextEnd<Context: AnyObject>: @unchecked Sendable {
    // @unchecked: `context` is set once inside the workload's block, then read by the awaiting
    // task only after that block returned.
    private var context: Context?

    /// Keeps `context` (call it from the workload's block).
    func keep(_ context: Context) { self.context = context }

    /// Waits until this is the context's last holder (the queue that ran the block let go of
    /// it), then lets it go here, ending it on the caller's thread.
    func end() async {
        guard context != nil else { return }
        while !isKnownUniquelyReferenced(&context) { await Task.yield() }
        context = nil
    }
}
