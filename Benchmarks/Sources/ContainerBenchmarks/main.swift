// B of the performance note: how long the calling thread is blocked while a persistent container
// opens (and migrates) a 1,000,000-object SQLite store, against opening it on the calling thread.
//
//   swift run -c release --package-path Benchmarks ContainerBenchmarks [runs] [records]
import BenchmarkSupport
import Foundation
import Strata

let runs = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 3
let records = Int(CommandLine.arguments.dropFirst(2).first ?? "") ?? 1_000_000
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-container-benchmark")
try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
let url = StoreURL(scheme: "sqlite", location: directory.appendingPathComponent("records-\(records).sqlite").path)

/// Loads the store through a new container (`migrating`: a v2 container, which migrates the v1
/// store with its default migrator, StrataMigrations' `StoreMigrator`).
func containerLoad(migrating: Bool) -> (CallerObservation, Error?) {
    let container =
        migrating
        ? PersistentContainer(
            name: "bench", versionedModel: try! VersionedModel(name: "bench", versions: [BigStore.v1, BigStore.v2]),
            storeDescriptions: [StoreDescription(url: url)], environment: [:])
        : PersistentContainer(
            name: "bench", model: BigStore.v1, storeDescriptions: [StoreDescription(url: url)], environment: [:])
    let observed = observeCaller { done in container.loadPersistentStores { error in done(error) } }
    try? container.closeStores()
    return observed
}

/// Opens the store on the calling thread and counts its records (what seed 003's app did).
func openOnCaller() -> (CallerObservation, Error?) {
    observeCaller { done in
        do {
            let store = try BuiltInBackends.registry.open(
                url, model: BigStore.v1, options: StoreOptions(createsIfMissing: false))
            _ = try store.fetch(FetchRequest(entityName: "Record", resultType: .count)).count()
            try store.close()
            done(nil)
        } catch {
            done(error)
        }
    }
}

/// No load at all: the caller ticks for 300 ms while another thread sleeps (the scheduling floor).
func idle() -> (CallerObservation, Error?) {
    observeCaller { done in DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(300)) { done(nil) } }
}

var table: [(name: String, observations: [CallerObservation])] = [
    ("idle caller, no load (scheduling floor)", []),
    ("open on the caller's thread (SQLite open + count)", []),
    ("container: open in the background (same version)", []),
    ("container: open + migrate v1 to v2 in the background", []),
]
for run in 1...runs {
    try! BigStore.ensure(at: url, count: records)
    let measured = [idle(), openOnCaller(), containerLoad(migrating: false), containerLoad(migrating: true)]
    for (i, (observation, error)) in measured.enumerated() {
        if let error { fatalError("\(table[i].name): \(error)") }
        table[i].observations.append(observation)
    }
    // The migration moved the store to v2; the next run rebuilds v1.
    try? BuiltInBackends.registry.backend(for: "sqlite").destroyStore(at: url)
    print("run \(run) of \(runs) done")
}

print("\n### Container load (B): \(records) records, median of \(runs) runs\n")
print("| run | call returns (µs) | caller CPU in the call (µs) | longest caller gap (ms) | caller ticks | load (ms) |")
print("|---|---:|---:|---:|---:|---:|")
for row in table {
    let call = median(row.observations.map(\.startCallMicroseconds))
    let cpu = median(row.observations.map(\.startCallCPUMicroseconds))
    let gap = median(row.observations.map(\.longestGapMilliseconds))
    let load = median(row.observations.map(\.loadMilliseconds))
    let ticks = median(row.observations.map { Double($0.ticks) })
    print("| \(row.name) | \(format(call)) | \(format(cpu)) | \(format(gap)) | \(Int(ticks)) | \(format(load)) |")
}
print("\nevery run (call µs / caller CPU µs / longest gap ms / load ms), the first run first:")
for row in table {
    print(
        "  \(row.name): "
            + row.observations.map {
                "\(format($0.startCallMicroseconds))/\(format($0.startCallCPUMicroseconds))/\(format($0.longestGapMilliseconds))/\(format($0.loadMilliseconds))"
            }.joined(separator: ", "))
}
print("peak RSS \(format(peakResidentMiB())) MiB")
