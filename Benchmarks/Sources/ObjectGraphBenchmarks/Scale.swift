import BenchmarkSupport
import CStrataSQLite
import Foundation
import MallocStats
import ObjectGraphWorkload
import Strata
import StrataData

/// The scale mode's record: the workload record with a date, and an index on one attribute of
/// each type (integer, double, string, date) besides the unique key.
@Managed
final class Sample: ManagedObject {
    var key: Int64
    var i1: Int64
    var i2: Int64
    var i3: Int64
    var d1: Double
    var d2: Double
    var d3: Double
    var s1: String
    var s2: String
    var s3: String
    var dt: Date
    override class var uniqueConstraints: [[String]] { [["key"]] }
    override class var indexes: [Entity.Index] {
        ["i1", "d1", "s1", "dt"].map { Entity.Index(name: "by_\($0)", properties: [$0]) }
    }

    var touched: Int {
        touch(key: key, i1: i1, i2: i2, i3: i3, d1: d1, d2: d2, d3: d3, s1: s1, s2: s2, s3: s3)
            &+ Int(dt.timeIntervalSinceReferenceDate)
    }
}

let sampleModel = try! Model(versionIdentifier: "bench-scale", classes: [Sample.self])

/// Resident set size now, in bytes (`/proc/self/statm`).
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
}

/// Bytes allocated with malloc and not yet freed (glibc's `mallinfo2().uordblks`).
func mallocedBytes() -> Int {
    Int(bench_malloced_bytes())
}

/// One measurement of the scale mode, in a process of its own: `scale-child --side strata|raw
/// --phase insert|insert-indexed|fetch|first50|unsaved[-byname|-model] --count N --path P`.
/// Prints `RESULT` lines.
func runScaleChild() async throws {
    let side = option("side") ?? "strata"
    let phase = option("phase") ?? "insert"
    let count = Int(option("count") ?? "") ?? 100_000
    let path = option("path") ?? "/tmp/scale"
    let indexed = phase == "insert-indexed" || phase == "first50"
    func result(_ text: String) { print("RESULT \(text) rss=\(format(peakResidentMiB()))") }
    switch (side, phase) {
    case ("strata", "insert"), ("strata", "insert-indexed"):
        let records = Workload(count: count).records
        let container = try await loadedContainer(
            StoreURL(scheme: "sqlite", location: path), model: indexed ? sampleModel : itemModel)
        let (ms, _) = try await asyncMilliseconds {
            try await container.performBackgroundTask { context in
                for r in records {
                    if indexed {
                        let sample = context.insert(Sample.self)
                        sample.key = keyOf(r.id)
                        sample.i1 = r.i1
                        sample.i2 = r.i2
                        sample.i3 = r.i3
                        sample.d1 = r.d1
                        sample.d2 = r.d2
                        sample.d3 = r.d3
                        sample.s1 = r.s1
                        sample.s2 = r.s2
                        sample.s3 = r.s3
                        sample.dt = dateOf(r)
                    } else {
                        context.insert(Item.self).fill(r)
                    }
                }
                try context.save()
            }
        }
        try container.closeStores()
        result("ms=\(format(ms))")
    case ("raw", "insert"), ("raw", "insert-indexed"):
        let records = Workload(count: count).records
        let raw = RawSQLite(path: path, indexed: indexed)
        let ms = milliseconds { raw.insert(records, indexed: indexed) }
        result("ms=\(format(ms))")
    case ("strata", "fetch"):
        let container = try await loadedContainer(StoreURL(scheme: "sqlite", location: path), model: itemModel)
        let (ms, sum) = try await asyncMilliseconds {
            try await container.performBackgroundTask { context in
                var sum = 0
                for item in try context.fetch(Item.self) { sum &+= item.touched }
                return sum
            }
        }
        result("ms=\(format(ms)) sum=\(sum)")
    case ("raw", "fetch"):
        let raw = RawSQLite(path: path, create: false)
        var sum = 0
        let ms = milliseconds { for r in raw.fetchAll() { sum &+= r.touched } }
        result("ms=\(format(ms)) sum=\(sum)")
    case ("strata", "first50"):
        let container = try await loadedContainer(StoreURL(scheme: "sqlite", location: path), model: sampleModel)
        for attribute in ["i1", "d1", "s1", "dt"] {
            let samples = try await container.performBackgroundTask { context in
                var samples: [Double] = []
                for _ in 0..<11 {
                    var sum = 0
                    samples.append(
                        try milliseconds {
                            for sample in try context.fetch(
                                Sample.self, sortedBy: [Sort(PropertyPath(attribute))], limit: 50)
                            {
                                sum &+= sample.touched
                            }
                        })
                    precondition(sum != 0)
                }
                return samples
            }
            result(
                "attribute=\(attribute) cold=\(format(samples[0])) warm=\(format(median(Array(samples.dropFirst()))))")
        }
    case ("raw", "first50"):
        let raw = RawSQLite(path: path, create: false)
        for attribute in ["i1", "d1", "s1", "dt"] {
            var samples: [Double] = []
            for _ in 0..<11 {
                var sum = 0
                samples.append(milliseconds { sum &+= raw.first50(by: attribute) })
                precondition(sum != 0)
            }
            result(
                "attribute=\(attribute) cold=\(format(samples[0])) warm=\(format(median(Array(samples.dropFirst()))))")
        }
    case ("strata", "unsaved-model"):
        // StrataData: `@Model` objects inserted into one `ModelContext`, not saved.
        let records = Workload(count: count).records
        let container = try ModelContainer(
            for: ModelRecord.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
        let context = ModelContext(container)
        // One object first, so that per-class and per-context setup is not counted.
        context.insert(ModelRecord(records[0]))
        let mallocBefore = mallocedBytes()
        let residentBefore = residentBytes()
        for r in records.dropFirst() { context.insert(ModelRecord(r)) }
        let malloced = mallocedBytes() - mallocBefore
        let resident = residentBytes() - residentBefore
        precondition(context.insertedModelsArray.count == records.count)
        let objects = count - 1
        result(
            "malloc_per_object=\(malloced / objects) rss_per_object=\(resident / objects) "
                + "values_struct=\(MemoryLayout<WorkloadRecord>.stride)")
    case ("strata", "unsaved"), ("strata", "unsaved-byname"):
        // Run with MALLOC_ARENA_MAX=1 (the scale driver sets it): mallinfo2 counts only the
        // main arena, and the context's queue may allocate on another thread.
        let records = Workload(count: count).records
        let byName = phase == "unsaved-byname"
        let container = try await loadedContainer(
            StoreURL(scheme: "sqlite", location: path), model: byName ? recordModel : itemModel)
        let context = container.newBackgroundContext()
        func insert(_ r: WorkloadRecord) throws {
            if byName {
                let object = try context.insert("Record")
                try object.set(keyOf(r.id), for: "key")
                try object.set(r.i1, for: "i1")
                try object.set(r.i2, for: "i2")
                try object.set(r.i3, for: "i3")
                try object.set(r.d1, for: "d1")
                try object.set(r.d2, for: "d2")
                try object.set(r.d3, for: "d3")
                try object.set(r.s1, for: "s1")
                try object.set(r.s2, for: "s2")
                try object.set(r.s3, for: "s3")
            } else {
                context.insert(Item.self).fill(r)
            }
        }
        let (malloced, resident) = try context.performAndWait {
            // One object first, so that per-class and per-context setup is not counted.
            try insert(records[0])
            let mallocBefore = mallocedBytes()
            let residentBefore = residentBytes()
            for r in records.dropFirst() { try insert(r) }
            let malloced = mallocedBytes() - mallocBefore
            let resident = residentBytes() - residentBefore
            precondition(context.insertedObjects.count == records.count)
            return (malloced, resident)
        }
        let objects = count - 1
        result(
            "malloc_per_object=\(malloced / objects) rss_per_object=\(resident / objects) "
                + "values_struct=\(MemoryLayout<WorkloadRecord>.stride)")
    default:
        fatalError("unknown side/phase \(side)/\(phase)")
    }
}

/// Runs one child and returns its `RESULT` lines as dictionaries.
func child(_ arguments: [String], environment: [String: String] = [:]) throws -> [[String: String]] {
    let process = Process()
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = ["scale-child"] + arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { fatalError("child \(arguments) failed") }
    let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("RESULT ") }
    let results = lines.map { line in
        Dictionary(
            uniqueKeysWithValues: line.dropFirst(7).split(separator: " ").map {
                let parts = $0.split(separator: "=", maxSplits: 1)
                return (String(parts[0]), String(parts[1]))
            })
    }
    print("  \(arguments.joined(separator: " ")): \(results)")
    return results
}

/// The scale mode: a fresh process per side and measurement, so that each peak RSS is its own.
func runScale() async throws {
    if let only = option("only") {
        // One measurement alone: `scale --only unsaved`.
        precondition(only == "unsaved")
        for phase in ["unsaved", "unsaved-byname", "unsaved-model"] {
            _ = try child(
                [
                    "--side", "strata", "--phase", phase, "--count", "100000", "--path",
                    NSTemporaryDirectory() + "unsaved-\(getpid()).sqlite",
                ],
                environment: ["MALLOC_ARENA_MAX": "1"])
            try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "unsaved-\(getpid()).sqlite")
        }
        return
    }
    let counts = (option("counts") ?? "10000,100000,1000000").split(separator: ",").compactMap { Int($0) }
    let big = counts.max() ?? 1_000_000
    let directory = NSTemporaryDirectory() + "strata-objectgraph-scale-\(getpid())"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    print("Scale: counts \(counts), load average \(loadAverage())")

    var insertRows: [(Int, Double, Double, Double, Double)] = []
    for count in counts {
        let strata = try child([
            "--side", "strata", "--phase", "insert", "--count", "\(count)", "--path",
            "\(directory)/strata-\(count).sqlite",
        ])[0]
        let raw = try child([
            "--side", "raw", "--phase", "insert", "--count", "\(count)", "--path", "\(directory)/raw-\(count).sqlite",
        ])[0]
        insertRows.append(
            (count, Double(strata["ms"]!)!, Double(raw["ms"]!)!, Double(strata["rss"]!)!, Double(raw["rss"]!)!))
        if count != big {
            try? FileManager.default.removeItem(atPath: "\(directory)/strata-\(count).sqlite")
            try? FileManager.default.removeItem(atPath: "\(directory)/raw-\(count).sqlite")
        }
    }
    let strataFetch = try child(["--side", "strata", "--phase", "fetch", "--path", "\(directory)/strata-\(big).sqlite"]
    )[0]
    let rawFetch = try child(["--side", "raw", "--phase", "fetch", "--path", "\(directory)/raw-\(big).sqlite"])[0]
    let indexedStrata = try child([
        "--side", "strata", "--phase", "insert-indexed", "--count", "\(big)", "--path",
        "\(directory)/strata-indexed.sqlite",
    ])[0]
    let indexedRaw = try child([
        "--side", "raw", "--phase", "insert-indexed", "--count", "\(big)", "--path", "\(directory)/raw-indexed.sqlite",
    ])[0]
    let strataFirst = try child([
        "--side", "strata", "--phase", "first50", "--path", "\(directory)/strata-indexed.sqlite",
    ])
    let rawFirst = try child(["--side", "raw", "--phase", "first50", "--path", "\(directory)/raw-indexed.sqlite"])
    let unsaved = try child([
        "--side", "strata", "--phase", "unsaved", "--count", "100000", "--path", "\(directory)/unsaved.sqlite",
    ])[0]

    print("\n### Insert + save, per object (one save; Strata typed through performBackgroundTask)\n")
    print(
        "| objects | Strata ms | Strata us/object | raw ms | raw us/object | x raw | Strata peak RSS MiB | raw peak RSS MiB |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for (count, strata, raw, strataRSS, rawRSS) in insertRows {
        print(
            "| \(count) | \(format(strata)) | \(format(strata * 1000 / Double(count))) | \(format(raw)) | "
                + "\(format(raw * 1000 / Double(count))) | \(format(strata / raw))x | \(format(strataRSS)) | \(format(rawRSS)) |"
        )
    }
    print("\n### Fetch all of \(big) objects, touching every property (fresh process per side)\n")
    print("| side | ms | peak RSS MiB |")
    print("|---|---:|---:|")
    print("| Strata typed | \(strataFetch["ms"]!) | \(strataFetch["rss"]!) |")
    print("| raw SQLite C API | \(rawFetch["ms"]!) | \(rawFetch["rss"]!) |")
    print("\nRSS ratio: \(format(Double(strataFetch["rss"]!)! / Double(rawFetch["rss"]!)!))x")
    print(
        "\n### First 50 sorted by an indexed attribute, \(big)-object store (indexed insert: Strata \(indexedStrata["ms"]!) ms, raw \(indexedRaw["ms"]!) ms)\n"
    )
    print("| attribute | Strata warm ms | Strata first ms | raw warm ms | raw first ms |")
    print("|---|---:|---:|---:|---:|")
    for (s, r) in zip(strataFirst, rawFirst) {
        print("| \(s["attribute"]!) | \(s["warm"]!) | \(s["cold"]!) | \(r["warm"]!) | \(r["cold"]!) |")
    }
    print("\n### Unsaved inserted objects (100,000 typed objects with all values set, one context)\n")
    print(
        "malloc'd bytes per object \(unsaved["malloc_per_object"]!), RSS growth per object \(unsaved["rss_per_object"]!); "
            + "a plain struct of the same values is \(unsaved["values_struct"]!) bytes (strings shared with the source)"
    )
}
