import BenchmarkSupport
import Foundation
import StrataCore
import StrataLMDB

/// W1–W5 through Strata's store protocol (`PersistentStore`) on an `LMDBStore`.
final class StrataLMDBRuns {
    static let model: Model = {
        let attributes = ["i1", "i2", "i3"].map { Attribute($0, .integer64) }
            + ["d1", "d2", "d3"].map { Attribute($0, .double) }
            + ["s1", "s2", "s3"].map { Attribute($0, .string) }
        return try! Model(versionIdentifier: "bench", entities: [Entity("Record", attributes: attributes)])
    }()

    let store: any PersistentStore
    private var fetched: [Snapshot] = []
    private var ids: [ObjectID] = []

    init(path: String, options: [String: String] = ["mapSize": String(1 << 30)]) throws {
        store = try LMDBBackend().open(StoreURL(scheme: "lmdb", location: path), model: Self.model, options: StoreOptions(options: options))
    }

    deinit { try? store.close() }

    /// W1: obtain N IDs, build N snapshots, save once.
    func insertAll(_ records: [WorkloadRecord]) throws {
        let ids = try store.obtainPermanentIDs(for: "Record", count: records.count)
        var inserts: [Snapshot] = []
        inserts.reserveCapacity(records.count)
        for (r, id) in zip(records, ids) {
            inserts.append(Snapshot(
                objectID: id, version: 0,
                attributes: [.integer(r.i1), .integer(r.i2), .integer(r.i3), .double(r.d1), .double(r.d2), .double(r.d3), .string(r.s1), .string(r.s2), .string(r.s3)],
                relationships: []))
        }
        try store.save(SaveRequest(inserts: inserts))
        self.ids = ids
    }

    /// W2: every object as a snapshot.
    func fetchAll() throws -> Int {
        fetched = try store.fetch(FetchRequest(entityName: "Record")).snapshots()
        return fetched.count
    }

    /// The IDs of `keys` (outside the timed part, as the raw run's keys are).
    func objectIDs(_ keys: [Int64]) -> [ObjectID] {
        keys.map { ObjectID(entityName: "Record", storeIdentifier: store.identifier, primaryKey: $0) }
    }

    /// W3: one fetch by ID per key.
    func lookup(_ ids: [ObjectID]) throws -> Int64 {
        var sum: Int64 = 0
        for id in ids {
            let snapshot = try store.fetch(FetchRequest(entityName: "Record", objectIDs: [id])).snapshots()[0]
            if case .integer(let v) = snapshot.attributes[0] { sum &+= v }
        }
        return sum
    }

    /// W4: change the fetched snapshots of `keys` and save once.
    func update(_ keys: [Int64]) throws {
        var updates: [SaveRequest.Update] = []
        updates.reserveCapacity(keys.count)
        for key in keys {
            var snapshot = fetched[Int(key) - 1]
            if case .integer(let v) = snapshot.attributes[0] { snapshot.attributes[0] = .integer(v + 1) }
            snapshot.attributes[6] = .string("updated")
            updates.append(SaveRequest.Update(snapshot, expectedVersion: snapshot.version))
        }
        try store.save(SaveRequest(updates: updates))
    }

    /// W5: delete `keys` (disjoint from W4's, so still at version 1) and save once.
    func delete(_ keys: [Int64]) throws {
        let deletes = keys.map { SaveRequest.Delete(ObjectID(entityName: "Record", storeIdentifier: store.identifier, primaryKey: $0), expectedVersion: 1) }
        try store.save(SaveRequest(deletes: deletes))
    }
}
