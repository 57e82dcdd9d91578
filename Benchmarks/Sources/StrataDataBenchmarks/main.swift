// StrataData `@Model` objects against the same objects by name, on one SQLite store each, both
// through a context directly on the coordinator (the stack a `ModelContainer` has): the six
// workloads of ObjectGraphBenchmarks, synchronous, each in a function of its own, so that one
// `valgrind --tool=callgrind` run gives each workload's instructions per side
// (`callgrind_annotate --inclusive=yes`).
//
//     StrataDataBenchmarks [count] [model|byname|both] [lookups]
//
// Both lookup workloads make the workload's 100,000 lookups whatever `count` is, or the first
// `lookups` of them (a callgrind run of every workload then takes minutes, not an hour; divide by
// the lookups made for a figure per lookup).
//
// `StrataDataBenchmarks unsaved [count] [model|byname]` inserts `count` objects with all ten
// values into one context without saving, and prints the malloc'd bytes per object (glibc's
// `mallinfo2().uordblks` before and after, the first object not counted).
import BenchmarkSupport
import Foundation
import MallocStats
import ObjectGraphWorkload
import Strata
import StrataData

if CommandLine.arguments.dropFirst().first == "unsaved" {
    measureUnsaved(Array(CommandLine.arguments.dropFirst(2)))
    exit(0)
}
let arguments = Array(CommandLine.arguments.dropFirst())
let count = arguments.first.flatMap { Int($0) } ?? 20_000
let sides = arguments.count > 1 ? arguments[1] : "both"
let lookupCount = arguments.count > 2 ? Int(arguments[2]) : 100_000
guard ["model", "byname", "both"].contains(sides), arguments.count <= 3, let lookupCount, lookupCount > 0 else {
    print("usage: StrataDataBenchmarks [count] [model|byname|both] [lookups]")
    exit(2)
}
let workload = Workload(count: count)
let lookupIDs = Array(workload.lookupKeys.prefix(lookupCount))
let updateIDs = shuffled(workload.updateKeys, seed: 1)
let deleteIDs = shuffled(workload.deleteKeys, seed: 2)
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-data-bench-\(getpid())")
try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
// What the workloads read, summed so that the reads are not optimized away; the program runs them
// one after another on one thread.
nonisolated(unsafe) var sink = 0

print(
    "StrataDataBenchmarks: \(count) records, \(lookupIDs.count) lookups, sides \(sides), load average \(loadAverage())")
if sides != "byname" {
    let container = try! ModelContainer(
        for: ModelRecord.self,
        configurations: ModelConfiguration(url: directory.appendingPathComponent("model.store")))
    let times = ModelWorkloads(container: container).run()
    report("StrataData @Model", times)
}
if sides != "model" {
    let coordinator = StoreCoordinator(model: recordModel)
    try! coordinator.addStore(
        BuiltInBackends.registry.open(
            "sqlite:\(directory.appendingPathComponent("byname.sqlite").path)", model: recordModel))
    let times = ByNameWorkloads(coordinator: coordinator).run()
    report("Strata by name", times)
}
print("checksum \(sink)")

func report(_ side: String, _ times: [Double]) {
    print(side)
    for (name, ms) in zip(workloadNames, times) { print("  \(name): \(format(ms)) ms") }
}
