// The object graph against what a user would pick instead: Strata's typed objects and access by
// name (through PersistentContainer and background contexts: typed under the writer of a
// three-tier stack, by name on the coordinator of a two-tier one, the stack of the `model` side's
// `@ModelActor`), GRDB's Codable records and its statement API, and the raw SQLite C API,
// alternating in one process, on fresh files each run.
//
//   swift run -c release --package-path Benchmarks ObjectGraphBenchmarks \
//       [--runs 5] [--count 100000] [--updates 10000] [--store sqlite[,lmdb,memory,lmdb?durability=full]] [--sides ...]
//   (sides: raw, grdb, grdb-statements, typed, typed-2tier, byname, model; model is StrataData's @Model;
//   typed-2tier is typed on a context straight on the coordinator)
//   swift run -c release --package-path Benchmarks ObjectGraphBenchmarks scale [--counts 10000,100000,1000000]
//
// See Benchmarks/README.md ("Typed objects against GRDB and the raw C API").

import BenchmarkSupport
import Foundation
import ObjectGraphWorkload

/// `--name value` from the command line.
func option(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: "--\(name)"), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

if CommandLine.arguments.count > 1 && CommandLine.arguments[1] == "scale" {
    try await runScale()
    exit(0)
}
if CommandLine.arguments.count > 1 && CommandLine.arguments[1] == "scale-child" {
    try await runScaleChild()
    exit(0)
}

let runs = Int(option("runs") ?? "") ?? 5
let count = Int(option("count") ?? "") ?? 100_000
let workload = Workload(count: count)
let updates = min(Int(option("updates") ?? "") ?? workload.updateKeys.count, workload.updateKeys.count)
let stores = (option("store") ?? "sqlite").split(separator: ",").map(String.init)
let sideNames = (option("sides") ?? "raw,grdb,grdb-statements,typed,byname").split(separator: ",").map(String.init)
let input = RunInput(
    records: workload.records, lookupIDs: workload.lookupKeys,
    updateIDs: Array(shuffled(workload.updateKeys, seed: 1).prefix(updates)),
    deleteIDs: shuffled(workload.deleteKeys, seed: 2))

var sides: [any Side] = []
for name in sideNames {
    switch name {
    case "raw": sides.append(RawSide())
    case "grdb": sides.append(GRDBCodableSide())
    case "grdb-statements": sides.append(GRDBStatementSide())
    case "typed": sides += stores.map { StrataTypedSide(scheme: $0) }
    case "typed-2tier": sides += stores.map { StrataTypedSide(scheme: $0, stack: .twoTier) }
    case "byname": sides += stores.map { StrataByNameSide(scheme: $0) }
    case "model": sides += stores.map { StrataModelSide(scheme: $0) }
    default: fatalError("unknown side \(name): raw, grdb, grdb-statements, typed, typed-2tier, byname, model")
    }
}
func label(_ side: any Side) -> String {
    if let typed = side as? StrataTypedSide, stores.count > 1 || typed.scheme != "sqlite" {
        return "\(side.name) (\(typed.scheme))"
    }
    if let byName = side as? StrataByNameSide, stores.count > 1 || byName.scheme != "sqlite" {
        return "\(side.name) (\(byName.scheme))"
    }
    if let model = side as? StrataModelSide, stores.count > 1 || model.scheme != "sqlite" {
        return "\(side.name) (\(model.scheme))"
    }
    return side.name
}

let root = NSTemporaryDirectory() + "strata-objectgraph-bench-\(getpid())"
try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: root) }

print(
    "Object graph benchmarks: \(count) records, \(input.lookupIDs.count) lookups, \(updates) updates, "
        + "\(input.deleteIDs.count) deletes, \(runs) runs, Strata on \(stores.joined(separator: ", ")); "
        + "load average \(loadAverage())")
/// times[side][run][workload]
var times = [[RunTimes]](repeating: [], count: sides.count)
var checksum = 0
for run in 0..<runs {
    // Rotate the order of the sides each run.
    for offset in 0..<sides.count {
        let index = (offset + run) % sides.count
        let directory = "\(root)/run\(run)-side\(index)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let (sideTimes, sum) = try await sides[index].run(input, directory: directory)
        times[index].append(sideTimes)
        checksum &+= sum
        try? FileManager.default.removeItem(atPath: directory)
    }
    print("run \(run + 1):")
    for (index, side) in sides.enumerated() {
        print("  \(label(side)): " + times[index][run].map { format($0) }.joined(separator: " / "))
    }
}

/// The median over runs of side `a`'s time divided by side `b`'s in the same run.
@MainActor func pairedRatio(_ a: Int, _ b: Int, _ workload: Int) -> Double {
    median((0..<runs).map { times[a][$0][workload] / times[b][$0][workload] })
}
let rawIndex = sides.firstIndex { $0 is RawSide }
let grdbIndex = sides.firstIndex { $0 is GRDBCodableSide }
let typedIndex = sides.firstIndex { ($0 as? StrataTypedSide)?.scheme == stores[0] }
let rawTargets = [2.5, 3.0, 2.5, 4.0, 5.0, 2.0]

print("\n### Median ms of \(runs) runs (x raw: median of the per-run ratios)\n")
print("| workload | " + sides.map(label).joined(separator: " | ") + " |")
print("|---|" + sides.map { _ in "---:|" }.joined())
for (w, name) in workloadNames.enumerated() {
    let cells = sides.indices.map { s -> String in
        let ms = format(median(times[s].map { $0[w] }))
        guard let rawIndex, s != rawIndex else { return ms }
        return "\(ms) (\(format(pairedRatio(s, rawIndex, w)))x)"
    }
    print("| \(name) | " + cells.joined(separator: " | ") + " |")
}
if let rawIndex, let grdbIndex, let typedIndex {
    print("\n### Targets: Strata typed (\(stores[0])) against raw and GRDB Codable (paired median ratios)\n")
    print("| workload | x raw | target | met | x GRDB Codable | target | met |")
    print("|---|---:|---:|---|---:|---:|---|")
    for (w, name) in workloadNames.enumerated() {
        let raw = pairedRatio(typedIndex, rawIndex, w)
        let grdb = pairedRatio(typedIndex, grdbIndex, w)
        print(
            "| \(name) | \(format(raw))x | <= \(format(rawTargets[w]))x | \(raw <= rawTargets[w] ? "yes" : "NO") | "
                + "\(format(grdb))x | <= 0.80x | \(grdb <= 0.8 ? "yes" : "NO") |")
    }
}
if stores.count > 1 {
    // Each Strata side on another store against the same side on the first store.
    var pairs: [(String, Int, Int)] = []
    for (s, side) in sides.enumerated() {
        if let typed = side as? StrataTypedSide, typed.scheme != stores[0],
            let base = sides.firstIndex(where: { ($0 as? StrataTypedSide)?.scheme == stores[0] })
        {
            pairs.append((label(side), s, base))
        }
        if let byName = side as? StrataByNameSide, byName.scheme != stores[0],
            let base = sides.firstIndex(where: { ($0 as? StrataByNameSide)?.scheme == stores[0] })
        {
            pairs.append((label(side), s, base))
        }
    }
    if !pairs.isEmpty {
        print("\n### Against the same side on \(stores[0]) (paired median ratios; below 1 is faster)\n")
        print("| workload | " + pairs.map(\.0).joined(separator: " | ") + " |")
        print("|---|" + pairs.map { _ in "---:|" }.joined())
        for (w, name) in workloadNames.enumerated() {
            print(
                "| \(name) | " + pairs.map { "\(format(pairedRatio($0.1, $0.2, w)))x" }.joined(separator: " | ") + " |")
        }
    }
}
print("\npeak RSS of the process: \(format(peakResidentMiB())) MiB (checksum \(checksum))")
