// strata-sqlite-probe: a second process for StrataSQLiteTests.
//
//   strata-sqlite-probe write PATH COUNT TAG
//       COUNT saves into the store at PATH, each inserting one Entry (tag TAG) and incrementing
//       the Counter object (key 1) with optimistic locking, retrying on conflict. Prints "done".
//   strata-sqlite-probe open PATH readonly|readwrite
//       Drops root privileges (to uid/gid 65534) when it has them, opens the store and prints
//       "opened N" (N Entries) or "error CODE". Lets permission tests run as root too.
//   strata-sqlite-probe fill PATH BYTES
//       Limits this process's file size to BYTES (RLIMIT_FSIZE, SIGXFSZ ignored), then tries to
//       save 20,000 large Entries in one save. Prints the error code, e.g. "error io".
//
// The model is `ProbeModels.sqlite()` (StrataTestSupport), which the tests open the stores with.

import Foundation
import StrataCore
import StrataSQLite
import StrataTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count >= 4 else { fail("usage: strata-sqlite-probe write PATH COUNT TAG | open PATH MODE | fill PATH BYTES") }
let url = StoreURL(scheme: "sqlite", location: arguments[2])

do {
    let model = try ProbeModels.sqlite()
    switch arguments[1] {
    case "write":
        guard arguments.count == 5, let count = Int(arguments[3]) else { fail("usage: write PATH COUNT TAG") }
        let store = try SQLiteBackend().open(url, model: model, options: StoreOptions(options: ["busyTimeout": "20000"]))
        let counterID = ObjectID(entityName: "Counter", storeIdentifier: store.identifier, primaryKey: 1)
        for serial in 0..<count {
            let id = try store.obtainPermanentIDs(for: "Entry", count: 1)[0]
            while true {
                let counter = try store.fetch(FetchRequest(entityName: "Counter", objectIDs: [counterID])).snapshots()[0]
                guard case .integer(let value) = counter.attributes[0] else { fail("counter is not an integer") }
                var next = counter
                next.attributes[0] = .integer(value + 1)
                let entry = Snapshot(objectID: id, version: 0, attributes: [.string(arguments[4]), .integer(Int64(serial)), .null], relationships: [])
                do {
                    try store.save(SaveRequest(inserts: [entry], updates: [.init(next, expectedVersion: counter.version)]))
                    break
                } catch let error as StrataError where error.code == .conflict {
                    continue
                }
            }
        }
        try store.close()
        print("done")
    case "open":
        if getuid() == 0 {
            guard setgid(65534) == 0, setuid(65534) == 0 else { fail("cannot drop privileges") }
        }
        do {
            let store = try SQLiteBackend().open(url, model: model, options: StoreOptions(isReadOnly: arguments[3] == "readonly", createsIfMissing: false))
            let count = try store.fetch(FetchRequest(entityName: "Entry")).snapshots().count
            try store.close()
            print("opened \(count)")
        } catch let error as StrataError {
            print("error \(error.code) \(error.location["path"] ?? "")")
        }
    case "fill":
        guard let bytes = UInt64(arguments[3]) else { fail("usage: fill PATH BYTES") }
        let store = try SQLiteBackend().open(url, model: model, options: StoreOptions())
        let ids = try store.obtainPermanentIDs(for: "Entry", count: 20_000)
        signal(SIGXFSZ, SIG_IGN)
        var limit = rlimit(rlim_cur: rlim_t(bytes), rlim_max: rlim_t(bytes))
        guard setrlimit(fileSizeResource, &limit) == 0 else { fail("setrlimit failed") }
        let payload = String(repeating: "x", count: 1000)
        let inserts = ids.enumerated().map { i, id in
            Snapshot(objectID: id, version: 0, attributes: [.string("fill"), .integer(Int64(i)), .string(payload)], relationships: [])
        }
        do {
            try store.save(SaveRequest(inserts: inserts))
            print("saved")
        } catch let error as StrataError {
            print("error \(error.code) \(error.location["path"] ?? "")")
        }
    default:
        fail("unknown mode \(arguments[1])")
    }
} catch {
    fail("probe failed: \(error)")
}
