// S of ../shared/design/performance.md: the longest main-queue stall while a background import
// of N records runs through the three-tier stack (private writer root, main-queue view context,
// private worker), on SQLite and on the in-memory store, against the same import done raw (the
// raw stall is the machine's own noise). A 1 ms main-queue timer ticks throughout; the stall is
// the longest gap between ticks minus the period.
//
//   swift run -c release --package-path Benchmarks StallBenchmarks [runs] [count] [chunk]
//
// `live` first: a live list of `count` records (a fetched-results controller on the view
// context) while `count` more are imported (chunks of 5,000 by default), beside the same
// import with no list (LiveListImport.swift).
//
//   swift run -c release --package-path Benchmarks StallBenchmarks live [runs] [count] [chunk] [pause]
import BenchmarkSupport
import Dispatch
import Foundation
import Strata

let liveList = CommandLine.arguments.dropFirst().first == "live"
let arguments = CommandLine.arguments.dropFirst(liveList ? 2 : 1).map { Int($0) }
let runs = (arguments.first ?? nil) ?? 5
let count = (arguments.dropFirst().first ?? nil) ?? 100_000
let chunk = (arguments.dropFirst(2).first ?? nil) ?? (liveList ? 5_000 : 1_000)
let records = liveList ? [] : Array(Workload(count: count).records)
let directory = NSTemporaryDirectory() + "strata-stall-bench-\(getpid())"

/// One row: every run's stall and import time.
struct StallRow {
    var name: String
    var stalls: [Double] = []
    var works: [Double] = []
    var times: [Double] = []
}

Thread.detachNewThread {
    try! FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    if liveList {
        let pause = (arguments.dropFirst(3).first ?? nil) ?? 0
        runLiveListBenchmark(runs: runs, count: count, chunk: chunk, pause: pause, directory: directory)
        try? FileManager.default.removeItem(atPath: directory)
        exit(0)
    }
    var rows: [StallRow] = [StallRow(name: "idle (nothing running)")]
    for shape in ImportShape.allCases { rows.append(StallRow(name: "Strata SQLite, \(shape.rawValue)")) }
    rows.append(StallRow(name: "raw SQLite"))
    for shape in ImportShape.allCases { rows.append(StallRow(name: "Strata in-memory, \(shape.rawValue)")) }
    rows.append(StallRow(name: "raw Dictionary"))
    var sink = 0
    for run in 0..<runs {
        var index = 0
        func record(_ result: (stall: Double, work: Double, elapsed: Double)) {
            rows[index].stalls.append(result.stall)
            rows[index].works.append(result.work)
            rows[index].times.append(result.elapsed)
            index += 1
        }
        // Idle for as long as a Strata import takes, so that the machine's noise has as much
        // time to show as during the imports.
        let idle = rows.first { $0.name.hasPrefix("Strata") && !$0.times.isEmpty }.map { median($0.times) } ?? 1_000
        record(measureStall { Thread.sleep(forTimeInterval: idle / 1_000) })
        for shape in ImportShape.allCases {
            var coordinator: StoreCoordinator?
            record(
                measureStall {
                    coordinator = strataImport(
                        records, chunk: chunk, storeURL: "sqlite:\(directory)/strata-\(run)-\(shape).sqlite",
                        shape: shape)
                })
            precondition(storedCount(coordinator!) == records.count, "the import stored every record")
        }
        record(measureStall { RawImports.sqlite(records, chunk: chunk, path: "\(directory)/raw-\(run).sqlite") })
        for shape in ImportShape.allCases {
            var coordinator: StoreCoordinator?
            record(
                measureStall { coordinator = strataImport(records, chunk: chunk, storeURL: "memory:", shape: shape) })
            precondition(storedCount(coordinator!) == records.count, "the import stored every record")
        }
        record(measureStall { sink &+= RawImports.dictionary(records, chunk: chunk) })
        print(
            "run \(run + 1)/\(runs): "
                + rows.map { "\($0.name) \(format($0.stalls.last ?? 0)) ms" }.joined(separator: "; "))
    }
    print("\n### Main-queue stall (N = \(count), chunks of \(chunk), median of \(runs) runs, ms)\n")
    print(
        "| import | longest stall (median) | longest stall (max) | longest main-queue work (median) | import time | target | met |"
    )
    print("|---|---:|---:|---:|---:|---:|---|")
    for row in rows {
        let stall = median(row.stalls)
        let isStrata = row.name.hasPrefix("Strata")
        print(
            "| \(row.name) | \(format(stall)) | \(format(row.stalls.max() ?? 0)) | \(format(median(row.works))) | \(format(median(row.times))) | \(isStrata ? "< 16.00" : "") | \(isStrata ? (stall < 16 ? "yes" : "NO") : "") |"
        )
    }
    print("peak RSS \(format(peakResidentMiB())) MiB (checksum \(sink & 0xff))")
    exit(0)
}
dispatchMain()
