import BenchmarkSupport
import Foundation
import StrataCore
import StrataLMDB

/// `LMDBBenchmarks open-check [runs]`: what the page check costs when an LMDB store opens. For
/// stores of 100,000 and 1,000,000 objects (the W1 record, inserted through the store in saves of
/// 100,000), opens and closes the store with `pageCheck=full` (the default: every page in use is
/// checked) and with `pageCheck=off` (the meta pages only), alternating which goes first, and
/// prints the medians, their difference and their ratio. The file is in the page cache (it was
/// just written): a cold open also reads every page from the disk.
func runOpenCheckBenchmark(runs: Int) throws {
    let chunk = Workload(count: 100_000)
    print("| objects | data.mdb | pages | open + close, pageCheck=full | pageCheck=off | check cost | ratio |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for count in [100_000, 1_000_000] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-lmdb-open-check-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let url = StoreURL(scheme: "lmdb", location: path)
        let options = ["mapSize": String(1 << 32)]
        do {
            let store = try StrataLMDBRuns(path: path, options: options)
            for _ in 0..<(count / chunk.records.count) { try store.insertAll(chunk.records) }
        }
        func openAndClose(_ check: String) throws -> Double {
            try milliseconds {
                let store = try LMDBBackend().open(url, model: StrataLMDBRuns.model, options: StoreOptions(options: options.merging(["pageCheck": check]) { $1 }))
                try store.close()
            }
        }
        var full: [Double] = [], off: [Double] = []
        _ = try openAndClose("full")
        for run in 0..<runs {
            if run % 2 == 0 {
                full.append(try openAndClose("full"))
                off.append(try openAndClose("off"))
            } else {
                off.append(try openAndClose("off"))
                full.append(try openAndClose("full"))
            }
        }
        let bytes = (try FileManager.default.attributesOfItem(atPath: path + "/data.mdb")[.size] as? Int) ?? 0
        let checked = median(full), plain = median(off)
        print("| \(count) | \(format(Double(bytes) / 1_048_576)) MiB | \(bytes / 4096) | \(format(checked)) ms | \(format(plain)) ms | \(format(checked - plain)) ms | \(format(checked / plain))x |")
    }
    print("\nmedians of \(runs) runs; peak RSS: \(format(peakResidentMiB())) MiB")
}
