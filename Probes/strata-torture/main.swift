// strata-torture: the helper process of the reliability tests (Tests/StrataReliabilityTests).
//
//   strata-torture crash URL SEED
//       Opens the crash-test store at URL (made by the test), prints "ready N" (N: the last save
//       it holds), then saves N+1, N+2, ... forever, printing "committed K" after the store
//       reported save K committed. The test kills it with SIGKILL at a random moment.
//   strata-torture create URL
//       Prints "opening", creates the store at URL with its initial graph (one save), prints
//       "created". The test kills it while it creates the store.
//   strata-torture create-limited URL BYTES
//       Limits this process's file size to BYTES (RLIMIT_FSIZE, SIGXFSZ ignored: a full disk
//       where no small filesystem can be mounted), then creates the store at URL with its initial
//       graph; prints "created" or "error CODE ...".
//   strata-torture contend URL WORKER OPERATIONS SEED [START-FILE]
//       One contention worker (ContentionWorker). Opens the store, prints "ready", waits until
//       START-FILE exists (so that every worker starts at once), then prints
//       "done increments=… conflicts=… …".
//   strata-torture modes DIRECTORY
//       With umask 0, creates an SQLite, an LMDB and an XML store in DIRECTORY, saves once, and
//       prints "mode OCTAL PATH" for every file in DIRECTORY while the stores are open.
//   strata-torture xml-first-use DIRECTORY
//       Eight threads create an XML store each at the same moment, as this process's first use
//       of libxml2; prints "ok". (libxml2 initialises its globals lazily; see XMLLibrary.)
//   strata-torture read URL
//       Opens the store at URL without creating it, reads every object; prints "ok N" or
//       "error CODE". Corrupt LMDB files are read in this child, since liblmdb trusts its pages.
//   strata-torture lmdb-fill DIRECTORY BYTES
//       Limits this process's file size to BYTES (RLIMIT_FSIZE, SIGXFSZ ignored), then tries to
//       save 2,000 items with 3 KB payloads in one save into the LMDB store; prints "saved" or
//       "error CODE".
//
// Every error is printed as "error CODE MESSAGE" (exit status 2); a crash is a failed test.

import Foundation
import StrataCore
import StrataTestSupport
import StrataTortureKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func report(_ error: any Error) -> Never {
    emit(probeErrorLine(error))
    exit(2)
}

func usage() -> Never {
    emit(
        "usage: strata-torture crash URL SEED | create URL | create-limited URL BYTES | contend URL WORKER OPERATIONS SEED | modes DIRECTORY | read URL | lmdb-fill DIRECTORY BYTES"
    )
    exit(64)
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else { usage() }
// Torture runs in the background of the test suite: at nice +10 it leaves the CPU to the tests
// running beside it (the container's loader thread runs at nice +10 too, and starved behind
// hundreds of nice-0 torture processes on a 2-core machine).
_ = nice(10)

do {
    switch arguments[1] {
    case "crash":
        guard arguments.count == 4, let seed = UInt64(arguments[3]) else { usage() }
        let store = try TortureStores.open(StoreURL.parse(arguments[2]), options: StoreOptions(createsIfMissing: false))
        let driver = try TortureDriver.load(from: store, seed: seed)
        emit("ready \(driver.state.lastSave)")
        while true {
            emit("committed \(try driver.saveNext())")
        }
    case "create":
        emit("opening")
        let store = try TortureStores.open(StoreURL.parse(arguments[2]))
        _ = try TortureDriver.create(in: store, seed: 1)
        try store.close()
        emit("created")
    case "create-limited":
        guard arguments.count == 4, let bytes = UInt64(arguments[3]) else { usage() }
        signal(SIGXFSZ, SIG_IGN)
        var limit = rlimit(rlim_cur: rlim_t(bytes), rlim_max: rlim_t(bytes))
        guard setrlimit(fileSizeResource, &limit) == 0 else {
            emit("error setrlimit")
            exit(2)
        }
        let store = try TortureStores.open(StoreURL.parse(arguments[2]))
        _ = try TortureDriver.create(in: store, seed: 1)
        try store.close()
        emit("created")
    case "contend":
        guard arguments.count == 6 || arguments.count == 7, let worker = Int(arguments[3]),
            let operations = Int(arguments[4]), let seed = UInt64(arguments[5])
        else { usage() }
        emit("ready")
        if arguments.count == 7 {
            while access(arguments[6], F_OK) != 0 { usleep(500) }
        }
        let result = try ContentionWorker(
            url: StoreURL.parse(arguments[2]), worker: worker, operations: operations, seed: seed
        ).run()
        emit("done \(result)")
    case "modes":
        umask(0)
        let directory = arguments[2]
        var stores: [any PersistentStore] = []
        for (scheme, name) in [("sqlite", "store.sqlite"), ("lmdb", "store-lmdb"), ("xml", "store.xml")] {
            let store = try TortureStores.open(StoreURL(scheme: scheme, location: directory + "/" + name))
            _ = try TortureDriver.create(in: store, seed: 1).saveNext()
            stores.append(store)
        }
        var paths: [String] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: directory).sorted() {
            let path = directory + "/" + name
            paths.append(path)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                paths += try FileManager.default.contentsOfDirectory(atPath: path).sorted().map { path + "/" + $0 }
            }
        }
        for path in paths {
            var info = stat()
            guard stat(path, &info) == 0 else { continue }
            emit("mode \(String(info.st_mode & 0o777, radix: 8)) \(path)")
        }
        for store in stores { try store.close() }
    case "xml-first-use":
        let directory = arguments[2]
        let start = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        let failures = Locked<[String]>([])
        for thread in 0..<8 {
            group.enter()
            Thread.detachNewThread {
                start.wait()
                do {
                    try TortureStores.open(StoreURL(scheme: "xml", location: "\(directory)/first-\(thread).xml"))
                        .close()
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
                group.leave()
            }
        }
        for _ in 0..<8 { start.signal() }
        group.wait()
        let failed = failures.withLock { $0 }
        emit(failed.isEmpty ? "ok" : "error \(failed)")
    case "read":
        let url = try StoreURL.parse(arguments[2])
        let store = try TortureStores.open(url, options: StoreOptions(createsIfMissing: false))
        var count = 0
        for entity in store.model.entities {
            count += try store.fetch(FetchRequest(entityName: entity.name)).snapshots().count
        }
        _ = try TortureDriver.load(from: store, seed: 0)
        try store.close()
        emit("ok \(count)")
    case "lmdb-fill":
        guard arguments.count == 4, let bytes = UInt64(arguments[3]) else { usage() }
        let store = try TortureStores.open(
            StoreURL(scheme: "lmdb", location: arguments[2]), options: StoreOptions(createsIfMissing: false))
        _ = try TortureDriver.load(from: store, seed: 0)
        let ids = try store.obtainPermanentIDs(for: "Item", count: 2_000)
        signal(SIGXFSZ, SIG_IGN)
        var limit = rlimit(rlim_cur: rlim_t(bytes), rlim_max: rlim_t(bytes))
        guard setrlimit(fileSizeResource, &limit) == 0 else {
            emit("error setrlimit")
            exit(2)
        }
        let payload = String(repeating: "x", count: 3_000)
        let inserts = ids.enumerated().map { index, id in
            Snapshot(
                objectID: id, version: 0,
                attributes: [.integer(Int64(1_000 + index)), .integer(0), .string("fill"), .string(payload)],
                relationships: [.toOne(nil)])
        }
        do {
            try store.save(SaveRequest(inserts: inserts))
            emit("saved")
        } catch let error as StrataError {
            emit("error \(error.code) \(error.description.replacingOccurrences(of: "\n", with: " "))")
        }
    default:
        usage()
    }
} catch {
    report(error)
}
