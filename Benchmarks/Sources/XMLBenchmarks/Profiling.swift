import BenchmarkSupport
import Foundation
import StrataCore
import StrataXML

// Modes for profiling one side at a time (`perf record`, `valgrind --tool=callgrind`), each
// alternating the Strata operation and its raw baseline and printing medians:
//
//   XMLBenchmarks profile-save DIR [N]   N saves of the workload into DIR/profile-save.xml
//   XMLBenchmarks profile-open PATH [N]  N opens of the store file PATH (for example the file
//                                        profile-save leaves)
//   XMLBenchmarks open-only PATH [N]     N opens only, no raw parse (for `perf stat`: page faults,
//                                        system time)
//   XMLBenchmarks parse-only PATH [N]    N raw SAX2 parses only

/// Runs a profiling mode when `arguments` name one; returns whether it did.
func runProfilingMode(_ arguments: [String]) throws -> Bool {
    guard arguments.count >= 3 else { return false }
    let count = arguments.count >= 4 ? Int(arguments[3]) : nil
    switch arguments[1] {
    case "profile-save": try profileSave(directory: arguments[2], count: count ?? 10)
    case "profile-open": try profileOpen(path: arguments[2], count: count ?? 20)
    case "open-only": try profileOpen(path: arguments[2], count: count ?? 20, raw: false)
    case "parse-only": try profileOpen(path: arguments[2], count: count ?? 20, strata: false)
    default: return false
    }
    return true
}

/// `count` saves of the workload into a fresh store, each followed by the raw xmlTextWriter
/// write of the same records.
func profileSave(directory: String, count: Int) throws {
    let records = Workload().records
    let url = StoreURL(scheme: "xml", location: directory + "/profile-save.xml")
    var wall: [Double] = []
    var cpu: [Double] = []
    var rawWall: [Double] = []
    var rawCPU: [Double] = []
    for _ in 0..<count {
        try? XMLBackend().destroyStore(at: url)
        let store = try XMLBackend().openStore(url, model: benchmarkModel)
        let request = try insertRequest(records, store: store)
        try timed(&wall, &cpu) { try store.save(request) }
        try store.close()
        let header = (benchmarkModel.versionHash, benchmarkModel.versionIdentifier, store.identifier)
        timed(&rawWall, &rawCPU) { RawXML.write(records, to: directory + "/profile-save-raw.xml", header: header) }
    }
    printMedians("save", wall, cpu, rawWall, rawCPU)
}

/// `count` read-only opens of the store at `path`, each followed by the raw SAX2 parse of it
/// (one side only when `strata` or `raw` is `false`).
func profileOpen(path: String, count: Int, strata: Bool = true, raw: Bool = true) throws {
    let url = StoreURL(scheme: "xml", location: path)
    var wall: [Double] = []
    var cpu: [Double] = []
    var rawWall: [Double] = []
    var rawCPU: [Double] = []
    for _ in 0..<count {
        if strata {
            var opened: XMLStore?
            try timed(&wall, &cpu) {
                opened = try XMLBackend().openStore(url, model: benchmarkModel, options: StoreOptions(isReadOnly: true))
            }
            withExtendedLifetime(opened) { opened = nil }
        }
        if raw { timed(&rawWall, &rawCPU) { _ = RawXML.parse(path) } }
    }
    if strata && raw {
        printMedians("open", wall, cpu, rawWall, rawCPU)
    } else {
        let (w, c) = strata ? (wall, cpu) : (rawWall, rawCPU)
        print("\(strata ? "open" : "parse"): \(format(median(w))) ms (CPU \(format(median(c))))")
    }
}

/// One line of medians: Strata and raw, wall and CPU, and the CPU ratio.
func printMedians(_ what: String, _ wall: [Double], _ cpu: [Double], _ rawWall: [Double], _ rawCPU: [Double]) {
    print(
        "\(what): Strata \(format(median(wall))) ms (CPU \(format(median(cpu)))), raw \(format(median(rawWall))) ms (CPU \(format(median(rawCPU)))), CPU ratio \(format(median(cpu) / median(rawCPU)))x"
    )
}
