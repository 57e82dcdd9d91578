// strata-lmdb-probe: a second process for the LMDB store's tests.
//
//   strata-lmdb-probe insert PATH COUNT BATCHES [MAPSIZE]   obtain IDs and insert COUNT items per save, BATCHES saves; prints "ok KEYS..."
//   strata-lmdb-probe count PATH                            prints "ok N"
//   strata-lmdb-probe open PATH [--as-nobody] [--file-size-limit BYTES]
//                                                           opens (creating) the store; prints "ok" or "error CODE MESSAGE";
//                                                           --file-size-limit sets RLIMIT_FSIZE first (SIGXFSZ ignored)
//   strata-lmdb-probe create PATH [START-FILE]              prints "opening", waits until START-FILE exists (so that several
//                                                           probes start at once), opens (creating) the store, prints
//                                                           "created IDENTIFIER"
//   strata-lmdb-probe read PATH [--as-nobody]               opens the store read-only; prints "ok N" (N items)
//
// The model is `ProbeModels.lmdb()` (StrataTestSupport): Item (name: string, n: integer64, unique name).
// Errors are printed, never crashed on: the line starts with "error", then the StrataError code.

import Foundation
import StrataCore
import StrataLMDB
import StrataTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

func report(_ error: any Error) -> Never {
    print(probeErrorLine(error))
    exit(2)
}

/// Drops root for the `nobody` user, whose permission bits are checked (root's are not).
func becomeNobody() {
    guard setgid(65534) == 0, setuid(65534) == 0 else {
        print("error setuid \(String(cString: strerror(errno)))")
        exit(3)
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    print("usage: strata-lmdb-probe insert|count|open|create|read PATH ...")
    exit(64)
}
let command = arguments[1]
let url = StoreURL(scheme: "lmdb", location: arguments[2])

do {
    let model = try ProbeModels.lmdb()
    switch command {
    case "insert":
        guard arguments.count >= 5, let count = Int(arguments[3]), let batches = Int(arguments[4]) else { exit(64) }
        var options = StoreOptions()
        if arguments.count >= 6 { options["mapSize"] = arguments[5] }
        let store = try LMDBBackend().openStore(url, model: model, options: options)
        var keys: [Int64] = []
        let pid = getpid()
        for batch in 0..<batches {
            let ids = try store.obtainPermanentIDs(for: "Item", count: count)
            let inserts = ids.map { id in
                Snapshot(
                    objectID: id, version: 0,
                    attributes: [.string("p\(pid)-b\(batch)-\(id.primaryKey!)"), .integer(id.primaryKey!)],
                    relationships: [])
            }
            try store.save(SaveRequest(inserts: inserts))
            keys += ids.compactMap(\.primaryKey)
        }
        try store.close()
        print("ok " + keys.map(String.init).joined(separator: " "))
    case "count":
        let store = try LMDBBackend().openStore(url, model: model)
        let count = try store.fetch(FetchRequest(entityName: "Item", resultType: .count)).count()
        try store.close()
        print("ok \(count)")
    case "open":
        let options = Array(arguments.dropFirst(3))
        if options.contains("--as-nobody") { becomeNobody() }
        if let flag = options.firstIndex(of: "--file-size-limit") {
            guard flag + 1 < options.count, let bytes = UInt64(options[flag + 1]) else { exit(64) }
            signal(SIGXFSZ, SIG_IGN)
            var limit = rlimit(rlim_cur: rlim_t(bytes), rlim_max: rlim_t(bytes))
            guard setrlimit(fileSizeResource, &limit) == 0 else {
                print("error setrlimit \(String(cString: strerror(errno)))")
                exit(3)
            }
        }
        let store = try LMDBBackend().openStore(url, model: model)
        try store.close()
        print("ok")
    case "create":
        print("opening")
        fflush(nil)
        if arguments.count >= 4 {
            while access(arguments[3], F_OK) != 0 { usleep(200) }
        }
        let store = try LMDBBackend().openStore(url, model: model)
        print("created \(store.identifier)")
        try store.close()
    case "read":
        if arguments.dropFirst(3).contains("--as-nobody") { becomeNobody() }
        let store = try LMDBBackend().openStore(url, model: model, options: StoreOptions(isReadOnly: true))
        let count = try store.fetch(FetchRequest(entityName: "Item", resultType: .count)).count()
        try store.close()
        print("ok \(count)")
    default:
        print("unknown command \(command)")
        exit(64)
    }
} catch {
    report(error)
}
