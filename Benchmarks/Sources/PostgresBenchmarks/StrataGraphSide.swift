import BenchmarkSupport
import Foundation
import ObjectGraphWorkload
import Strata

/// The record as a Strata user declares it (as ObjectGraphBenchmarks does): a `ManagedObject`
/// subclass whose key attribute is unique (so indexed).
@Managed
final class Item: ManagedObject {
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
    override class var uniqueConstraints: [[String]] { [["key"]] }

    var checksum: Int {
        graphChecksum(key: key, i1: i1, i2: i2, i3: i3, d1: d1, d2: d2, d3: d3, s1: s1, s2: s2, s3: s3)
    }

    /// Sets every value from a workload record.
    func fill(_ r: WorkloadRecord) {
        key = keyOf(r.id)
        i1 = r.i1
        i2 = r.i2
        i3 = r.i3
        d1 = r.d1
        d2 = r.d2
        d3 = r.d3
        s1 = r.s1
        s2 = r.s2
        s3 = r.s3
    }
}

let itemModel = try! Model(versionIdentifier: "bench", classes: [Item.self])

/// A container on the PostgreSQL store at `url`, loaded, as the documentation shows.
func loadedContainer(_ url: String) async throws -> PersistentContainer {
    let container = PersistentContainer(
        name: "Bench", model: itemModel, storeDescriptions: [try StoreDescription(url)], environment: [:])
    try await container.loadPersistentStores()
    return container
}

/// Strata with typed objects: `insert(Item.self)`, `fetch(Item.self, where:limit:)`,
/// `existingObject(with:)`, properties, `delete`, each workload in one `performBackgroundTask`
/// (a new background context, saved to the store before the call returns). With
/// `batchDelete`, the delete workload is one `coordinator.batchDelete(ids)` instead; without
/// `history`, the store records no persistent history (as Fluent keeps none).
struct StrataGraphSide: GraphSide {
    let server: BenchmarkServer
    var batchDelete = false
    /// Whether the store records persistent history (the default; Fluent keeps none).
    var history = true
    var name: String { "Strata typed" }

    func run(_ input: GraphInput, schema: String) async throws -> [Double] {
        let container = try await loadedContainer(
            server.storeURL(schema: schema, storeOptions: history ? [] : ["history=off"]))
        let records = input.records
        var times: [Double] = []
        times.append(
            try await asyncMilliseconds {
                try await container.performBackgroundTask { context in
                    for r in records { context.insert(Item.self).fill(r) }
                    try context.save()
                }
            }.0)
        let ids = try await objectIDs(container, count: records.count)
        func timed(_ body: @escaping @Sendable (ObjectContext) throws -> Int) async throws -> Int {
            let (ms, value) = try await asyncMilliseconds { try await container.performBackgroundTask(body) }
            times.append(ms)
            return value
        }
        let all = try await timed { context in
            var sum = 0
            var count = 0
            for item in try context.fetch(Item.self) {
                sum &+= item.checksum
                count += 1
            }
            return count == records.count ? sum : -1
        }
        check("Strata fetch all", all == input.all, "checksum \(all)")
        let lookupIDs = input.lookupIDs
        let byID = try await timed { context in
            var sum = 0
            for id in lookupIDs { sum &+= (try context.existingObject(with: ids[Int(id - 1)]) as! Item).checksum }
            return sum
        }
        check("Strata lookups by ID", byID == input.lookups, "checksum \(byID)")
        let byKey = try await timed { context in
            var sum = 0
            for id in lookupIDs {
                sum &+= try context.fetch(Item.self, where: .key("key") == keyOf(id), limit: 1)[0].checksum
            }
            return sum
        }
        check("Strata lookups by key", byKey == input.lookups, "checksum \(byKey)")
        let updateIDs = input.updateIDs
        _ = try await timed { context in
            for id in updateIDs {
                let item = try context.fetch(Item.self, where: .key("key") == keyOf(id), limit: 1)[0]
                item.i1 += 1
                item.d1 += 0.5
                item.s1 = changedS1(item.s1)
            }
            try context.save()
            return 0
        }
        let (afterUpdate, _) = try await storeChecksum(container)
        check("Strata update", afterUpdate == input.afterUpdate, "checksum \(afterUpdate)")
        let deleteIDs = input.deleteIDs
        if batchDelete {
            let doomed = deleteIDs.map { ids[Int($0 - 1)] }
            let (ms, result) = try await asyncMilliseconds { try container.coordinator.batchDelete(doomed) }
            times.append(ms)
            check("Strata batch delete", result.objectIDs.count == doomed.count, "\(result.objectIDs.count) deleted")
        } else {
            _ = try await timed { context in
                for id in deleteIDs { context.delete(context.object(with: ids[Int(id - 1)])) }
                try context.save()
                return 0
            }
        }
        let (afterDelete, remaining) = try await storeChecksum(container)
        check(
            "Strata delete", afterDelete == input.afterDelete && remaining == records.count - deleteIDs.count,
            "\(remaining) objects, checksum \(afterDelete)")
        try container.closeStores()
        return times
    }

    /// The checksum and count of every object in the store, read in a fresh context (untimed).
    private func storeChecksum(_ container: PersistentContainer) async throws -> (Int, Int) {
        try await container.performBackgroundTask { context in
            let items = try context.fetch(Item.self)
            return (items.reduce(0) { $0 &+ $1.checksum }, items.count)
        }
    }

    /// The object IDs of the records, indexed by workload ID - 1 (untimed): the IDs sorted by key,
    /// matched with the workload IDs sorted by key.
    private func objectIDs(_ container: PersistentContainer, count: Int) async throws -> [ObjectID] {
        let sorted = try await container.performBackgroundTask { context in
            try context.fetchObjectIDs(FetchRequest(entityName: "Item", sorts: [Sort("key")]))
        }
        check("Strata insert", sorted.count == count, "\(sorted.count) objects")
        var ids = [ObjectID?](repeating: nil, count: count)
        for (id, objectID) in zip((1...Int64(count)).sorted { keyOf($0) < keyOf($1) }, sorted) {
            ids[Int(id - 1)] = objectID
        }
        return ids.map { $0! }
    }
}
