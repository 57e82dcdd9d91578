import BenchmarkSupport
import Foundation
import StrataCore

/// `LMDBBenchmarks in-list [runs]`: a fetch whose predicate is `i1 IN {k constants}` over the
/// 100,000 workload records in an `LMDBStore` (no index on i1: every record is evaluated), for
/// lists of 10, 1,000 and 10,000 values; the work per record should not depend on the list's length.
func runInListBenchmark(runs: Int) throws {
    let workload = Workload()
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
        "strata-lmdb-bench-\(UUID().uuidString)-in-list"
    ).path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let strata = try StrataLMDBRuns(path: path)
    try strata.insertAll(workload.records)
    print("LMDB IN-list fetch: \(workload.records.count) records, \(runs) runs")
    print("\n| list length | matched | median ms | min ms |")
    print("|---:|---:|---:|---:|")
    for length in [10, 1_000, 10_000] {
        let values = workload.lookupKeys.prefix(length).map { workload.records[Int($0 - 1)].i1 }
        let request = FetchRequest(entityName: "Record", predicate: .key("i1").in(values))
        var times: [Double] = []
        var matched = 0
        for _ in 0..<runs {
            times.append(try milliseconds { matched = try strata.store.fetch(request).snapshots().count })
        }
        precondition(matched >= Set(values).count)
        print("| \(length) | \(matched) | \(format(median(times))) | \(format(times.min()!)) |")
    }
}
