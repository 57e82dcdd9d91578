// LMDBBenchmarks: W1–W5 of shared/design/performance.md through Strata's LMDB store (the store
// protocol) and through the raw LMDB C API, in the same process, alternating which goes first,
// on fresh environments each run. Prints medians and ratios (target <= 2.5x).
//
//   swift run -c release --package-path Benchmarks LMDBBenchmarks [runs]
//   swift run -c release --package-path Benchmarks LMDBBenchmarks open-check [runs]   (OpenCheckBenchmark.swift)
//   swift run -c release --package-path Benchmarks LMDBBenchmarks in-list [runs]      (InListBenchmark.swift)
//   swift run -c release --package-path Benchmarks LMDBBenchmarks indexed KIND [repeats] (IndexedProfile.swift)
//   swift run -c release --package-path Benchmarks LMDBBenchmarks durability [saves] [runs] (DurabilityBenchmark.swift)

import BenchmarkSupport
import Foundation

if CommandLine.arguments.count > 1 && CommandLine.arguments[1] == "open-check" {
    try runOpenCheckBenchmark(runs: CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2]) ?? 5 : 5)
    exit(0)
}
if CommandLine.arguments.count > 1 && CommandLine.arguments[1] == "in-list" {
    try runInListBenchmark(runs: CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2]) ?? 5 : 5)
    exit(0)
}

if CommandLine.arguments.count > 1 && CommandLine.arguments[1] == "durability" {
    let values = CommandLine.arguments.dropFirst(2).compactMap { Int($0) }
    try runDurabilityBenchmark(saves: values.first ?? 200, runs: values.dropFirst().first ?? 3)
    exit(0)
}

if CommandLine.arguments.count > 1 && CommandLine.arguments[1] == "indexed" {
    try runIndexedProfile(Array(CommandLine.arguments.dropFirst(2)))
    exit(0)
}

let runs = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 5 : 5
let workload = Workload()
let n = workload.records.count
let keys = workload.lookupKeys
var rows = ["W1", "W2", "W3", "W4", "W5"].map { ComparisonRow(workload: $0, target: 2.5) }

func scratch(_ name: String) -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
        "strata-lmdb-bench-\(UUID().uuidString)-\(name)"
    ).path
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

for run in 0..<runs {
    let strataPath = scratch("strata")
    let rawPath = scratch("raw")
    defer {
        try? FileManager.default.removeItem(atPath: strataPath)
        try? FileManager.default.removeItem(atPath: rawPath)
    }
    let strata = try StrataLMDBRuns(path: strataPath)
    let raw = RawLMDB(path: rawPath)
    let strataFirst = run % 2 == 0
    func measure(_ row: Int, strataBody: () throws -> Void, rawBody: () -> Void) throws {
        if strataFirst {
            rows[row].strata.append(try milliseconds(strataBody))
            rows[row].raw.append(milliseconds(rawBody))
        } else {
            rows[row].raw.append(milliseconds(rawBody))
            rows[row].strata.append(try milliseconds(strataBody))
        }
    }
    try measure(0, strataBody: { try strata.insertAll(workload.records) }, rawBody: { raw.insertAll(workload.records) })
    var counts = (0, 0)
    try measure(1, strataBody: { counts.0 = try strata.fetchAll() }, rawBody: { counts.1 = raw.fetchAll().count })
    precondition(counts.0 == n && counts.1 == n, "W2 fetched \(counts)")
    let ids = strata.objectIDs(keys)
    var sums: (Int64, Int64) = (0, 0)
    try measure(2, strataBody: { sums.0 = try strata.lookup(ids) }, rawBody: { sums.1 = raw.lookup(keys) })
    precondition(sums.0 == sums.1, "W3 sums differ: \(sums)")
    try measure(3, strataBody: { try strata.update(workload.updateKeys) }, rawBody: { raw.update(workload.updateKeys) })
    try measure(4, strataBody: { try strata.delete(workload.deleteKeys) }, rawBody: { raw.delete(workload.deleteKeys) })
    print(
        "run \(run + 1)/\(runs): "
            + rows.map { "\($0.workload) \(format($0.strata.last!))/\(format($0.raw.last!))" }.joined(separator: "  "))
}

printTable(title: "LMDB store vs raw LMDB C API, N = \(n)", rawName: "raw LMDB", rows: rows, runs: runs)
print("\npeak RSS: \(format(peakResidentMiB())) MiB")
