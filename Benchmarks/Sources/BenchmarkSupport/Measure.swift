#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Monotonic time in nanoseconds.
public func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Milliseconds taken by `body` (setup belongs outside).
public func milliseconds(_ body: () throws -> Void) rethrows -> Double {
    let start = monotonicNanoseconds()
    try body()
    return Double(monotonicNanoseconds() - start) / 1e6
}

/// CPU time of the calling thread in nanoseconds: unlike wall time, it does not grow when other
/// processes share the cores.
public func threadCPUNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Wall-clock and CPU milliseconds taken by `body` on the calling thread.
public func wallAndCPUMilliseconds(_ body: () throws -> Void) rethrows -> (wall: Double, cpu: Double) {
    let start = monotonicNanoseconds()
    let cpuStart = threadCPUNanoseconds()
    try body()
    return (Double(monotonicNanoseconds() - start) / 1e6, Double(threadCPUNanoseconds() - cpuStart) / 1e6)
}

/// The median of `values` (0 for none).
public func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    let mid = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/// Peak resident set size of this process so far, in MiB (`getrusage`).
public func peakResidentMiB() -> Double {
    var usage = rusage()
    #if canImport(Darwin)
        getrusage(RUSAGE_SELF, &usage)
    #else
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    #endif
    #if canImport(Darwin)
        return Double(usage.ru_maxrss) / 1_048_576
    #else
        return Double(usage.ru_maxrss) / 1024
    #endif
}

/// One row of a comparison: a workload measured through Strata and through the raw engine.
public struct ComparisonRow: Sendable {
    /// The workload id (`W1`).
    public var workload: String
    /// Every run through Strata, in ms.
    public var strata: [Double] = []
    /// Every run through the raw engine, in ms.
    public var raw: [Double] = []
    /// The target ratio.
    public var target: Double

    /// Creates an empty row.
    public init(workload: String, target: Double) {
        self.workload = workload
        self.target = target
    }

    /// median(strata) / median(raw).
    public var ratio: Double { median(raw) > 0 ? median(strata) / median(raw) : .infinity }
}

/// Prints a Markdown table of `rows`, ready for `Benchmarks/README.md`; `subjectName` heads
/// the column of the measured side (Strata unless a table measures something else).
public func printTable(title: String, rawName: String, rows: [ComparisonRow], runs: Int, subjectName: String = "Strata")
{
    print("\n### \(title) (median of \(runs) runs, ms)\n")
    print("| workload | \(subjectName) | \(rawName) | ratio | target | met |")
    print("|---|---:|---:|---:|---:|---|")
    for row in rows {
        let s = median(row.strata)
        let r = median(row.raw)
        print(
            "| \(row.workload) | \(format(s)) | \(format(r)) | \(format(row.ratio))x | <= \(format(row.target))x | \(row.ratio <= row.target ? "yes" : "NO") |"
        )
    }
}

/// `value` with two decimals.
public func format(_ value: Double) -> String {
    let scaled = (value * 100).rounded() / 100
    var text = String(scaled)
    if let dot = text.firstIndex(of: ".") {
        let decimals = text.distance(from: dot, to: text.endIndex) - 1
        if decimals < 2 { text += String(repeating: "0", count: 2 - decimals) }
    }
    return text
}
