import BenchmarkSupport
import Foundation
import StrataCore
import StrataLMDB

/// `LMDBBenchmarks indexed none|fetch|lookup|delete [repeats]`: the store calls that the
/// object graph makes for three workloads of `ObjectGraphBenchmarks`, synchronously, on one
/// `LMDBStore` whose entity has a unique (so indexed) `key` attribute, for
/// `valgrind --tool=callgrind` (which cannot run the async benchmark). After an insert of the
/// workload's 100,000 records (the whole of `none`): `fetch` fetches every snapshot of the entity
/// (a context's fetch of faults); `lookup` reads the workload's 100,000 lookup IDs one
/// `snapshots(of:among:)` call each (a fault fired through the coordinator); `delete` deletes
/// the workload's 10,000 delete keys, shuffled, with expected versions, in one save. Subtract the
/// instruction count of `none` from the others'.
func runIndexedProfile(_ arguments: [String]) throws {
    let kinds = ["none", "fetch", "lookup", "delete"]
    guard let kind = arguments.first, kinds.contains(kind) else {
        print("usage: LMDBBenchmarks indexed none|fetch|lookup|delete [repeats]")
        exit(2)
    }
    let repeats = arguments.count > 1 ? Int(arguments[1]) ?? 1 : 1
    let names = ["i1", "i2", "i3", "d1", "d2", "d3", "s1", "s2", "s3"]
    let model = try Model(
        versionIdentifier: "bench",
        entities: [
            Entity(
                "Item",
                attributes: [Attribute("key", .integer64)]
                    + names.map {
                        Attribute($0, $0.hasPrefix("i") ? .integer64 : $0.hasPrefix("d") ? .double : .string)
                    },
                uniqueConstraints: [["key"]])
        ])
    let workload = Workload()
    let count = Int64(workload.records.count)
    for _ in 0..<repeats {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "strata-lmdb-indexed-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try LMDBBackend().open(
            StoreURL(scheme: "lmdb", location: path), model: model,
            options: StoreOptions(options: ["mapSize": String(1 << 30)]))
        defer { try? store.close() }
        let ids = try store.obtainPermanentIDs(for: "Item", count: workload.records.count)
        let inserts = zip(workload.records, ids).map { r, id in
            Snapshot(
                objectID: id, version: 0,
                attributes: [
                    .integer((r.id &* 7919) % count), .integer(r.i1), .integer(r.i2), .integer(r.i3), .double(r.d1),
                    .double(r.d2), .double(r.d3), .string(r.s1), .string(r.s2), .string(r.s3),
                ],
                relationships: [])
        }
        try store.save(SaveRequest(inserts: inserts))
        var sum = 0
        let elapsed = try milliseconds {
            switch kind {
            case "fetch":
                sum = try store.fetch(FetchRequest(entityName: "Item")).snapshots().count
            case "lookup":
                for key in workload.lookupKeys {
                    sum &+= try store.snapshots(of: "Item", among: [ids[Int(key - 1)]]).count
                }
            case "delete":
                var keys = workload.deleteKeys
                var state: UInt64 = 42
                for i in keys.indices.reversed() where i > 0 {
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    keys.swapAt(i, Int((state >> 33) % UInt64(i + 1)))
                }
                try store.save(
                    SaveRequest(deletes: keys.map { SaveRequest.Delete(ids[Int($0 - 1)], expectedVersion: 1) }))
                sum = keys.count
            default:
                break
            }
        }
        print("\(kind): \(format(elapsed)) ms (\(sum))")
    }
}
