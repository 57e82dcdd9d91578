import BenchmarkSupport
import Foundation
import StrataCore

/// `LMDBBenchmarks durability [saves] [runs]`: what the `durability` option costs. Per run and
/// setting (`normal`, `full`, alternating which goes first), a fresh store takes `saves` saves of
/// one inserted record each (a user's save after each edit: obtaining its ID and saving it, two
/// commits, as a context's save of a new object makes), then one save of 100,000 records; prints
/// the median ms per one-record save and of the large save.
func runDurabilityBenchmark(saves: Int, runs: Int) throws {
    let workload = Workload()
    let settings = ["normal", "full"]
    var small: [String: [Double]] = [:]
    var large: [String: [Double]] = [:]
    for run in 0..<runs {
        for setting in run % 2 == 0 ? settings : settings.reversed() {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent(
                "strata-lmdb-bench-\(UUID().uuidString)-durability"
            ).path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let strata = try StrataLMDBRuns(path: path, options: ["mapSize": String(1 << 30), "durability": setting])
            let records = Array(workload.records.prefix(saves))
            small[setting, default: []].append(
                try milliseconds { for record in records { try strata.insertAll([record]) } } / Double(saves))
            large[setting, default: []].append(try milliseconds { try strata.insertAll(workload.records) })
        }
    }
    print("LMDB durability: \(saves) one-record saves, then one save of \(workload.records.count); \(runs) runs")
    print("\n| durability | ms per one-record save | ms for the 100,000-record save |")
    print("|---|---:|---:|")
    for setting in settings {
        print("| \(setting) | \(format(median(small[setting]!))) | \(format(median(large[setting]!))) |")
    }
}
