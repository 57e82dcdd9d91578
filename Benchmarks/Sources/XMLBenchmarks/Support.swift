import BenchmarkSupport
import Foundation
import StrataCore
import StrataXML

/// The workload record as an entity: 3 integers, 3 doubles, 3 strings (the key is the primary key).
let benchmarkModel: Model = try! Model(
    versionIdentifier: "bench",
    entities: [
        Entity(
            "Record",
            attributes: [
                Attribute("i1", .integer64), Attribute("i2", .integer64), Attribute("i3", .integer64),
                Attribute("d1", .double), Attribute("d2", .double), Attribute("d3", .double),
                Attribute("s1", .string), Attribute("s2", .string), Attribute("s3", .string),
            ])
    ])

/// One save request inserting every record under its own key.
func insertRequest(_ records: [WorkloadRecord], store: XMLStore) throws -> SaveRequest {
    let ids = try store.obtainPermanentIDs(for: "Record", count: records.count)
    return SaveRequest(
        inserts: zip(ids, records).map { id, r in
            precondition(id.primaryKey == r.id)
            return Snapshot(
                objectID: id, version: 0,
                attributes: [
                    .integer(r.i1), .integer(r.i2), .integer(r.i3), .double(r.d1), .double(r.d2), .double(r.d3),
                    .string(r.s1), .string(r.s2), .string(r.s3),
                ], relationships: [])
        })
}

/// A line of /proc/self/status in MiB (`VmRSS`, `VmHWM`).
func procStatusMiB(_ field: String) -> Double {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
        let kB =
            line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Double($0) } ?? 0
        return kB / 1024
    }
    return 0
}

/// In a child process: the peak resident set above the resident set just before the measured
/// operation, printed in MiB.
func runMemoryChild(_ arguments: [String]) {
    do {
        switch arguments[1] {
        case "memory-load":
            let url = StoreURL(scheme: "xml", location: arguments[2])
            let baseline = procStatusMiB("VmRSS")
            let store = try XMLBackend().openStore(url, model: benchmarkModel, options: StoreOptions(isReadOnly: true))
            let peak = procStatusMiB("VmHWM")
            withExtendedLifetime(store) { print(peak - baseline) }
        case "memory-save":
            let url = StoreURL(scheme: "xml", location: arguments[2])
            let store = try XMLBackend().openStore(url, model: benchmarkModel)
            let request = try insertRequest(Workload().records, store: store)
            let baseline = procStatusMiB("VmRSS")
            try store.save(request)
            let peak = procStatusMiB("VmHWM")
            print(max(0, peak - baseline))
        case "memory-profile-load":
            // Not a memory measurement: saves the workload to PATH once, then opens it 10 times,
            // for `perf record`.
            let url = StoreURL(scheme: "xml", location: arguments[2])
            let store = try XMLBackend().openStore(url, model: benchmarkModel)
            try store.save(try insertRequest(Workload().records, store: store))
            try store.close()
            var times: [Double] = []
            var raw: [Double] = []
            for _ in 0..<10 {
                var opened: XMLStore?
                times.append(
                    try milliseconds {
                        opened = try XMLBackend().openStore(
                            url, model: benchmarkModel, options: StoreOptions(isReadOnly: true))
                    })
                withExtendedLifetime(opened) { opened = nil }
                raw.append(milliseconds { _ = RawXML.parse(arguments[2]) })
            }
            print("open \(median(times)) ms, SAX2 \(median(raw)) ms")
        default:
            print(-1)
        }
    } catch {
        print(-1)
    }
}

/// Runs this executable with `arguments` and returns the number it prints.
func measureInChild(_ arguments: [String]) -> Double {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    try? process.run()
    process.waitUntilExit()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    return Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
}

/// CPU time of the calling thread, in nanoseconds.
func threadCPUNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Runs `body` once, appending its wall-clock time to `wall` and its CPU time to `cpu`, in ms.
func timed(_ wall: inout [Double], _ cpu: inout [Double], _ body: () throws -> Void) rethrows {
    let cpuStart = threadCPUNanoseconds()
    wall.append(try milliseconds(body))
    cpu.append(Double(threadCPUNanoseconds() - cpuStart) / 1e6)
}
