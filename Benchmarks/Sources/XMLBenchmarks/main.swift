// X of ../shared/design/performance.md: the XML store saves and loads 100,000 workload records,
// against the same file written with xmlTextWriter directly and parsed with a plain SAX2 parse.
//
//   swift run -c release --package-path Benchmarks XMLBenchmarks [runs]
//
// Peak memory is measured in child processes (this executable with `memory-load PATH` or
// `memory-save`), so each measurement starts from a clean baseline. Profiling modes
// (`profile-save`, `profile-open`): see Profiling.swift.

import BenchmarkSupport
import Foundation
import StrataCore
import StrataXML

let arguments = CommandLine.arguments
if try runProfilingMode(arguments) {
    exit(0)
}
if arguments.count >= 2 && arguments[1].hasPrefix("memory-") {
    runMemoryChild(arguments)
    exit(0)
}

let runs = arguments.count >= 2 ? Int(arguments[1]) ?? 7 : 7
let workload = Workload()
let model = benchmarkModel
let directory = NSTemporaryDirectory() + "strata-xml-bench-\(getpid())"
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: directory) }

var save = ComparisonRow(workload: "X save 100k", target: 1.5)
var load = ComparisonRow(workload: "X load 100k", target: 1.5)
// The same runs in CPU time of this thread (no waiting for the disk or for other processes).
var saveCPU = ComparisonRow(workload: "X save 100k (CPU)", target: 1.5)
var loadCPU = ComparisonRow(workload: "X load 100k (CPU)", target: 1.5)
let storePath = directory + "/store.xml"
let rawPath = directory + "/raw.xml"
var identical = true
// Not a comparison: fetching every record as snapshots from the store just loaded (a loaded
// table keeps columns, so each fetch makes the snapshots' values and strings).
var fetchAll: [Double] = []

for run in 1...runs {
    // Save: a fresh store each run, the request built beforehand.
    try? XMLBackend().destroyStore(at: StoreURL(scheme: "xml", location: storePath))
    let store = try XMLBackend().openStore(StoreURL(scheme: "xml", location: storePath), model: model)
    let request = try insertRequest(workload.records, store: store)
    let header = (model.versionHash, model.versionIdentifier, store.identifier)
    let strataFirst = run % 2 == 1
    func rawSave() { timed(&save.raw, &saveCPU.raw) { RawXML.write(workload.records, to: rawPath, header: header) } }
    if !strataFirst { rawSave() }
    try timed(&save.strata, &saveCPU.strata) { try store.save(request) }
    if strataFirst { rawSave() }
    try store.close()
    if run == 1 { identical = FileManager.default.contentsEqual(atPath: storePath, andPath: rawPath) }

    // Load: the same file, through XMLStore and through a plain SAX2 parse.
    var loaded = 0
    var parsed = 0
    func rawLoad() { timed(&load.raw, &loadCPU.raw) { parsed = RawXML.parse(storePath) } }
    if !strataFirst { rawLoad() }
    var opened: XMLStore?
    try timed(&load.strata, &loadCPU.strata) {
        opened = try XMLBackend().openStore(StoreURL(scheme: "xml", location: storePath), model: model)
    }
    loaded = try opened!.fetch(FetchRequest(entityName: "Record", resultType: .count)).count()
    var fetched = 0
    fetchAll.append(
        try milliseconds { fetched = try opened!.fetch(FetchRequest(entityName: "Record")).snapshots().count })
    precondition(fetched == loaded)
    try opened!.close()
    opened = nil
    if strataFirst { rawLoad() }
    precondition(loaded == workload.records.count && parsed == workload.records.count + 2)
}

let fileBytes = (try FileManager.default.attributesOfItem(atPath: storePath)[.size] as? Int) ?? 0
printTable(
    title:
        "XML: X, \(workload.records.count) records, \(String(format: "%.1f", Double(fileBytes) / 1_048_576)) MiB file",
    rawName: "libxml2 (xmlTextWriter / SAX2)", rows: [save, load], runs: runs)
printTable(
    title: "The same runs, CPU time of the measuring thread", rawName: "libxml2 (xmlTextWriter / SAX2)",
    rows: [saveCPU, loadCPU], runs: runs)
print("\nThe file XMLStore wrote is byte-identical to the raw xmlTextWriter one: \(identical ? "yes" : "NO")")
print(
    "Fetching all \(workload.records.count) records as snapshots from the loaded store: \(format(median(fetchAll))) ms (median)"
)

let loadMemory = measureInChild(["memory-load", storePath])
let saveMemory = measureInChild(["memory-save", directory + "/memory-save.xml"])
let fileMiB = Double(fileBytes) / 1_048_576
print("\n| peak memory above baseline | MiB | x file size | target |")
print("|---|---:|---:|---|")
print("| load (open) | \(format(loadMemory)) | \(format(loadMemory / fileMiB))x | < 3x |")
print("| save (request built before the baseline) | \(format(saveMemory)) | \(format(saveMemory / fileMiB))x | < 3x |")
