// strata-lmdb-probe: a second process for the LMDB store's tests.
//
//   strata-lmdb-probe insert PATH COUNT BATCHES [MAPSIZE]   obtain IDs and insert COUNT items per save, BATCHES saves; prints "ok KEYS..."
//   strata-lmdb-probe count PATH                            prints "ok N"
//   strata-lmdb-probe open PATH [--as-nobody]               opens the store; prints "ok" or "error CODE MESSAGE"
//
// The model is the tests' probe model: entity Item (name: string, n: integer64, unique name).
// Errors are printed, never crashed on: the line starts with "error", then the StrataError code.

import Foundation
import StrataCore
import StrataLMDB
#if canImport(Glibc)
import Glibc
#endif

func probeModel() throws -> Model {
    try Model(versionIdentifier: "probe", entities: [
        Entity("Item", attributes: [Attribute("name", .string), Attribute("n", .integer64)], uniqueConstraints: [["name"]]),
    ])
}

func report(_ error: any Error) -> Never {
    if let error = error as? StrataError {
        print("error \(error.code) \(error.description.replacingOccurrences(of: "\n", with: " "))")
    } else {
        print("error unknown \(error)")
    }
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    print("usage: strata-lmdb-probe insert|count|open PATH ...")
    exit(64)
}
let command = arguments[1]
let url = StoreURL(scheme: "lmdb", location: arguments[2])

do {
    let model = try probeModel()
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
                Snapshot(objectID: id, version: 0, attributes: [.string("p\(pid)-b\(batch)-\(id.primaryKey!)"), .integer(id.primaryKey!)], relationships: [])
            }
            try store.save(SaveRequest(inserts: inserts))
            keys += ids.compactMap(\.primaryKey)
        }
        try store.close()
        print("ok " + keys.map(String.init).joined(separator: " "))
    case "count":
        let store = try LMDBBackend().openStore(url, model: model)
        let count = try store.execute(FetchRequest(entityName: "Item", resultType: .count)).count()
        try store.close()
        print("ok \(count)")
    case "open":
        if arguments.dropFirst(3).contains("--as-nobody") {
            guard setgid(65534) == 0, setuid(65534) == 0 else {
                print("error setuid \(String(cString: strerror(errno)))")
                exit(3)
            }
        }
        let store = try LMDBBackend().openStore(url, model: model)
        try store.close()
        print("ok")
    default:
        print("unknown command \(command)")
        exit(64)
    }
} catch {
    report(error)
}
