// Persistent history: how fast it reads, and how soon another process's save reaches a view
// context.
//
//   HistoryBenchmarks read [sqlite|lmdb|xml|memory] [saves] [updatesPerSave]
//   HistoryBenchmarks remote [sqlite|lmdb] [saves] [microsecondsBetweenSaves]
//   HistoryBenchmarks follow [sqlite|lmdb] [lmdb|sqlite] [seconds] [savesPerSecond]
//
// `read` fills a store with 10,000 records, then makes `saves` saves (default 1,000) that each
// change three attributes of `updatesPerSave` records (default 100) through a context, so the
// history holds update changes with old and new values; then reads the whole history five times
// (all at once, and in pages of 500 transactions) and prints the median changes per second.
//
// `remote` starts this program again as a writer process on the same store, which makes
// `saves` saves (default 1,000), one every `microsecondsBetweenSaves` (default 2,000), each
// changing one record. This process holds the store in a `PersistentContainer` whose view
// context merges remote changes; for every transaction it prints the time from the
// transaction's commit (its history timestamp) to the end of the view context's merge of it:
// p50, p99 and the largest, in milliseconds.
//
// `follow FROM TO` fills a FROM store with 10,000 records, then starts this program again as a
// follower process that copies it into a TO store and follows it with `StoreFollower`, as
// `strata copy FROM TO --follow` does (same batch size and poll interval). Once the copy is made,
// this process writes: for `seconds` (default 10) it makes `savesPerSecond` saves per second
// (default 1,000), paced to a steady rate, each changing three attributes of 10 records through a
// context; it notes when each save returned (committed). The follower notes when each of its
// saves returned and how far in FROM's history it then was. The lag of a save is the time from
// its commit to the end of the follower's save that applied it: p50, p99 and the largest, in
// milliseconds; the rate reached; the p99 of the last second's saves (a lag that grows over the
// run shows there); and whether the follower kept up (applied every save, lag p99 <= 1 s).
import BenchmarkSupport
import Foundation
import Strata

let arguments = Array(CommandLine.arguments.dropFirst())
let mode = arguments.first ?? "read"

let model = try! Model(
    versionIdentifier: "history-bench",
    entities: [
        Entity(
            "Record",
            attributes: [
                Attribute("key", .integer64), Attribute("i1", .integer64), Attribute("d1", .double),
                Attribute("s1", .string), Attribute("stamp", .integer64, defaultValue: .integer(0)),
            ],
            uniqueConstraints: [["key"]])
    ])

func storeURL(_ scheme: String, in directory: String) -> StoreURL {
    switch scheme {
    case "sqlite": StoreURL(scheme: "sqlite", location: "\(directory)/history.sqlite")
    case "lmdb": StoreURL(scheme: "lmdb", location: "\(directory)/history.lmdb")
    case "xml": StoreURL(scheme: "xml", location: "\(directory)/history.xml")
    default: StoreURL(scheme: "memory", location: "history-\(getpid())")
    }
}

/// The 1-minute load average, as `uptime` prints it.
func loadAverage() -> String {
    (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first.map(String.init)
        ?? "unknown"
}

/// Percentile `p` (0...1) of `values`, sorted.
func percentile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
}

/// A coordinator with a context on the store at `url`.
func openContext(_ url: StoreURL) throws -> ObjectContext {
    let coordinator = StoreCoordinator(model: model)
    try coordinator.addStore(BuiltInBackends.registry.open(url, model: model))
    return ObjectContext(coordinator: coordinator, name: "bench")
}

func insertRecords(_ context: ObjectContext, count: Int) throws -> [ManagedObject] {
    var objects: [ManagedObject] = []
    for key in 0..<count {
        let object = try context.insert("Record")
        object["key"] = .integer(Int64(key))
        object["i1"] = .integer(Int64(key))
        object["d1"] = .double(Double(key))
        object["s1"] = .string("record \(key)")
        objects.append(object)
    }
    try context.save()
    return objects
}

func runRead() throws {
    let scheme = arguments.count > 1 ? arguments[1] : "sqlite"
    let saves = arguments.count > 2 ? Int(arguments[2]) ?? 1_000 : 1_000
    let perSave = arguments.count > 3 ? Int(arguments[3]) ?? 100 : 100
    let directory = NSTemporaryDirectory() + "strata-history-read-\(getpid())"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let url = storeURL(scheme, in: directory)
    let context = try openContext(url)
    let objects = try insertRecords(context, count: 10_000)
    var generator = SystemRandomNumberGenerator()
    for save in 0..<saves {
        for _ in 0..<perSave {
            let object = objects[Int.random(in: 0..<objects.count, using: &generator)]
            object["i1"] = .integer(Int64(save))
            object["d1"] = .double(Double(save) / 3)
            object["s1"] = .string("saved \(save)")
        }
        try context.save()
    }
    let coordinator = context.coordinator
    var changes = 0
    var whole: [Double] = []
    var paged: [Double] = []
    for _ in 0..<5 {
        whole.append(
            try milliseconds {
                changes = try coordinator.fetchHistory(HistoryRequest()).reduce(0) { $0 + $1.changes.count }
            })
        paged.append(
            try milliseconds {
                var after: HistoryToken?
                var count = 0
                while true {
                    let page = try coordinator.fetchHistory(HistoryRequest(after: after, limit: 500))
                    guard let last = page.last else { break }
                    count += page.reduce(0) { $0 + $1.changes.count }
                    after = last.token
                }
                precondition(count == changes)
            })
    }
    print(
        "History reading on \(scheme): \(saves + 1) transactions, \(changes) changes; load average \(loadAverage())")
    print("| read | median ms | changes per second |")
    print("|---|---:|---:|")
    for (name, times) in [("all at once", whole), ("pages of 500", paged)] {
        let ms = median(times)
        print("| \(name) | \(String(format: "%.1f", ms)) | \(Int(Double(changes) / ms * 1000)) |")
    }
}

/// Wall-clock time now, in seconds since 1970 (history timestamps are wall-clock times).
func wallClock() -> Double { Date().timeIntervalSince1970 }

func runWriter() throws {
    let url = StoreURL(arguments[1])!
    let saves = Int(arguments[2])!
    let pause = UInt32(arguments[3])!
    let context = try openContext(url)
    let record = try context.fetch(FetchRequest(entityName: "Record", limit: 1))[0]
    for save in 0..<saves {
        record["stamp"] = .integer(Int64(save + 1))
        try context.save()
        usleep(pause)
    }
}

/// The commit times of the transactions the container has heard of but the view context has not
/// merged yet, and the latencies measured so far.
final class LatencyLog: @unchecked Sendable {
    private let lock = NSLock()
    private var pending: [Double] = []
    private var latencies: [Double] = []

    func heard(_ change: RemoteChange) {
        lock.withLock { pending += change.transactions.map { $0.timestamp.timeIntervalSince1970 } }
    }

    func merged() {
        let now = wallClock()
        lock.withLock {
            latencies += pending.map { (now - $0) * 1000 }
            pending.removeAll()
        }
    }

    var measured: [Double] { lock.withLock { latencies } }
}

func runRemote() async throws {
    let scheme = arguments.count > 1 ? arguments[1] : "sqlite"
    let saves = arguments.count > 2 ? Int(arguments[2]) ?? 1_000 : 1_000
    let pause = arguments.count > 3 ? Int(arguments[3]) ?? 2_000 : 2_000
    let directory = NSTemporaryDirectory() + "strata-history-remote-\(getpid())"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let url = storeURL(scheme, in: directory)
    do {
        let context = try openContext(url)
        _ = try insertRecords(context, count: 1)
        for store in context.coordinator.stores { try store.close() }
    }
    let container = PersistentContainer(
        name: "Bench", model: model, storeDescriptions: [StoreDescription(url: url)], environment: [:])
    try await container.loadPersistentStores()
    let view = container.viewContext
    let log = LatencyLog()
    let held = try await view.perform { () -> ObjectID in
        view.automaticallyMergesRemoteChanges = true
        let record = try view.fetch(FetchRequest(entityName: "Record", limit: 1))[0]
        _ = record["stamp"] // loaded, so each merge refreshes it and says so
        return record.objectID
    }
    let heard = NotificationCenter.default.addObserver(
        forName: PersistentContainer.remoteChangeNotification, object: container, queue: nil
    ) { notification in
        if let change = notification.userInfo?[PersistentContainer.remoteChangeKey] as? RemoteChange {
            log.heard(change)
        }
    }
    let merged = NotificationCenter.default.addObserver(
        forName: ObjectContext.objectsDidChangeNotification, object: view, queue: nil
    ) { notification in
        log.merged()
        // Read the merged state on the view context's queue (observers run there), which keeps
        // the record loaded for the next merge.
        _ = (notification.object as? ObjectContext)?.object(with: held)["stamp"]
    }
    defer {
        NotificationCenter.default.removeObserver(heard)
        NotificationCenter.default.removeObserver(merged)
    }
    let writer = Process()
    writer.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    writer.arguments = ["writer", url.description, String(saves), String(pause)]
    try writer.run()
    while writer.isRunning { try await Task.sleep(for: .milliseconds(20)) }
    let deadline = ContinuousClock.now + .seconds(10)
    while log.measured.count < saves && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
    let stamp = try await view.perform { view.object(with: held)["stamp"] }
    let latencies = log.measured
    print(
        "Remote changes on \(scheme): \(saves) saves by another process, one every \(pause) us; "
            + "\(latencies.count) merged (last stamp \(stamp)); load average \(loadAverage())")
    print("| commit to merged in the view context | p50 ms | p99 ms | max ms |")
    print("|---|---:|---:|---:|")
    print(
        "| \(scheme) | \(String(format: "%.2f", percentile(latencies, 0.5))) | "
            + "\(String(format: "%.2f", percentile(latencies, 0.99))) | "
            + "\(String(format: "%.2f", latencies.max() ?? 0)) |")
    try container.closeStores()
}

/// The follower process: copies `from` into `to`, says so on standard output, then follows until
/// it has applied transaction `until` (or `seconds` passed), and writes to `log` a line
/// `sequence time` after each of its saves.
func runFollower() throws {
    let from = StoreURL(arguments[1])!
    let to = StoreURL(arguments[2])!
    let until = Int64(arguments[3])!
    let seconds = Double(arguments[4])!
    let logPath = arguments[5]
    let source = try BuiltInBackends.registry.open(from, model: model)
    defer { try? source.close() }
    let follower = StoreFollower()
    let start = try follower.start(from: source, to: to, backend: BuiltInBackends.registry.backend(for: to.scheme))
    defer { try? start.store.close() }
    FileHandle.standardOutput.write(Data("following \(start.position)\n".utf8))
    var applied: [(sequence: Int64, time: Double)] = []
    applied.reserveCapacity(100_000)
    let deadline = wallClock() + seconds
    var done = false
    try follower.follow(
        from: source, to: start.store, isCancelled: { done || wallClock() > deadline },
        applied: { progress in
            applied.append((progress.position.sequence, wallClock()))
            done = progress.position.sequence >= until
        })
    let lines = applied.map { "\($0.sequence) \($0.time)" }.joined(separator: "\n")
    try lines.write(toFile: logPath, atomically: true, encoding: .utf8)
}

func runFollow() throws {
    let fromScheme = arguments.count > 1 ? arguments[1] : "sqlite"
    let toScheme = arguments.count > 2 ? arguments[2] : (fromScheme == "sqlite" ? "lmdb" : "sqlite")
    let seconds = arguments.count > 3 ? Double(arguments[3]) ?? 10 : 10
    let rate = arguments.count > 4 ? Double(arguments[4]) ?? 1_000 : 1_000
    let directory = NSTemporaryDirectory() + "strata-history-follow-\(getpid())"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let from = storeURL(fromScheme, in: directory + "/from")
    let to = storeURL(toScheme, in: directory + "/to")
    for path in ["/from", "/to"] {
        try FileManager.default.createDirectory(atPath: directory + path, withIntermediateDirectories: true)
    }
    let context = try openContext(from)
    let objects = try insertRecords(context, count: 10_000)
    let base = try context.coordinator.lastHistoryToken()?.sequence ?? 0
    let saves = Int(seconds * rate)

    let logPath = directory + "/follower.log"
    let follower = Process()
    follower.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    follower.arguments = [
        // The follower stops once it has applied the last save; it gives up long after a writer
        // slower than asked (an LMDB store flushes at each commit) would have finished.
        "follower", from.description, to.description, String(base + Int64(saves)), String(seconds * 20 + 60),
        logPath,
    ]
    let output = Pipe()
    follower.standardOutput = output
    try follower.run()
    // The first line says the copy is made and following begins.
    var line = Data()
    while !line.contains(UInt8(ascii: "\n")), let byte = try output.fileHandleForReading.read(upToCount: 1),
        !byte.isEmpty
    {
        line.append(byte)
    }
    precondition(String(decoding: line, as: UTF8.self).hasPrefix("following"), "the follower did not start")

    var commits: [Double] = []
    commits.reserveCapacity(saves)
    let started = wallClock()
    for save in 0..<saves {
        let due = started + Double(save) / rate
        let early = due - wallClock()
        if early > 0 { usleep(UInt32(early * 1_000_000)) }
        for index in 0..<10 {
            let object = objects[(save * 10 + index) % objects.count]
            object["i1"] = .integer(Int64(save))
            object["d1"] = .double(Double(save) / 3)
            object["s1"] = .string("saved \(save)")
        }
        try context.save()
        commits.append(wallClock())
    }
    let writing = wallClock() - started
    let last = try context.coordinator.lastHistoryToken()?.sequence ?? 0
    precondition(last == base + Int64(saves), "another process wrote the store")
    follower.waitUntilExit()

    // The lag of each save: from its commit to the end of the first follower save at or past it.
    let applied = try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n").map { line in
        let parts = line.split(separator: " ")
        return (sequence: Int64(parts[0])!, time: Double(parts[1])!)
    }
    var lags: [Double] = []
    var lastSecond: [Double] = []
    var next = 0
    for (index, commit) in commits.enumerated() {
        let sequence = base + Int64(index) + 1
        while next < applied.count && applied[next].sequence < sequence { next += 1 }
        guard next < applied.count else { break }
        let lag = (applied[next].time - commit) * 1000
        lags.append(lag)
        if commit >= started + writing - 1 { lastSecond.append(lag) }
    }
    let reached = Double(saves) / writing
    let keptUp = lags.count == saves && percentile(lags, 0.99) <= 1_000
    print(
        "Following \(fromScheme) into \(toScheme): \(saves) saves of 10 objects in \(String(format: "%.2f", writing)) s "
            + "(\(Int(reached)) saves/s, asked \(Int(rate))); follower saves \(applied.count), "
            + "\(lags.count) of \(saves) saves applied; load average \(loadAverage())")
    print("| from -> to | saves/s reached | lag p50 ms | lag p99 ms | lag max ms | last second p99 ms | kept up |")
    print("|---|---:|---:|---:|---:|---:|---|")
    print(
        "| \(fromScheme) -> \(toScheme) | \(Int(reached)) | \(String(format: "%.1f", percentile(lags, 0.5))) | "
            + "\(String(format: "%.1f", percentile(lags, 0.99))) | \(String(format: "%.1f", lags.max() ?? 0)) | "
            + "\(String(format: "%.1f", percentile(lastSecond, 0.99))) | \(keptUp ? "yes" : "no") |")
}

switch mode {
case "read": try runRead()
case "writer": try runWriter()
case "remote": try await runRemote()
case "follower": try runFollower()
case "follow": try runFollow()
default: fatalError("usage: HistoryBenchmarks read|remote|follow [scheme] ...")
}
