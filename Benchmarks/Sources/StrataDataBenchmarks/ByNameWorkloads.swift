import BenchmarkSupport
import Foundation
import ObjectGraphWorkload
import Strata

/// The same entity for access by name (as ObjectGraphBenchmarks' `byname` side declares it).
let recordModel = try! Model(
    versionIdentifier: "bench",
    entities: [
        Entity(
            "Record",
            attributes: [Attribute("key", .integer64)]
                + ["i1", "i2", "i3"].map { Attribute($0, .integer64) }
                + ["d1", "d2", "d3"].map { Attribute($0, .double) }
                + ["s1", "s2", "s3"].map { Attribute($0, .string) },
            uniqueConstraints: [["key"]])
    ])

/// The `byname` side of ObjectGraphBenchmarks, synchronous, on a context directly on the
/// coordinator (as a `ModelContext` is): a new context per workload.
struct ByNameWorkloads {
    let coordinator: StoreCoordinator

    func run() -> [Double] {
        var times: [Double] = []
        times.append(milliseconds { byNameInsert() })
        let ids = identifiers()
        times.append(milliseconds { byNameFetchAll() })
        times.append(milliseconds { byNameLookupsByID(ids) })
        times.append(milliseconds { byNameLookupsByKey() })
        times.append(milliseconds { byNameUpdate() })
        times.append(milliseconds { byNameDelete(ids) })
        let remaining = try! ObjectContext(coordinator: coordinator).count(FetchRequest(entityName: "Record"))
        precondition(remaining == workload.records.count - deleteIDs.count)
        return times
    }

    static func touched(_ object: ManagedObject) -> Int {
        touch(
            key: try! object.value(for: "key", as: Int64.self), i1: try! object.value(for: "i1", as: Int64.self),
            i2: try! object.value(for: "i2", as: Int64.self), i3: try! object.value(for: "i3", as: Int64.self),
            d1: try! object.value(for: "d1", as: Double.self), d2: try! object.value(for: "d2", as: Double.self),
            d3: try! object.value(for: "d3", as: Double.self), s1: try! object.value(for: "s1", as: String.self),
            s2: try! object.value(for: "s2", as: String.self), s3: try! object.value(for: "s3", as: String.self))
    }

    static func byKey(_ key: Int64) -> FetchRequest {
        FetchRequest(entityName: "Record", predicate: .key("key") == key, limit: 1)
    }

    @inline(never) func byNameInsert() {
        let context = ObjectContext(coordinator: coordinator)
        for r in workload.records {
            let object = try! context.insert("Record")
            try! object.set(keyOf(r.id), for: "key")
            try! object.set(r.i1, for: "i1")
            try! object.set(r.i2, for: "i2")
            try! object.set(r.i3, for: "i3")
            try! object.set(r.d1, for: "d1")
            try! object.set(r.d2, for: "d2")
            try! object.set(r.d3, for: "d3")
            try! object.set(r.s1, for: "s1")
            try! object.set(r.s2, for: "s2")
            try! object.set(r.s3, for: "s3")
        }
        try! context.save()
    }

    @inline(never) func byNameFetchAll() {
        let context = ObjectContext(coordinator: coordinator)
        for object in try! context.fetch(FetchRequest(entityName: "Record")) { sink &+= Self.touched(object) }
    }

    @inline(never) func byNameLookupsByID(_ ids: [ObjectID]) {
        let context = ObjectContext(coordinator: coordinator)
        for id in lookupIDs { sink &+= Self.touched(try! context.existingObject(with: ids[Int(id - 1)])) }
    }

    @inline(never) func byNameLookupsByKey() {
        let context = ObjectContext(coordinator: coordinator)
        for id in lookupIDs { sink &+= Self.touched(try! context.fetch(Self.byKey(keyOf(id)))[0]) }
    }

    @inline(never) func byNameUpdate() {
        let context = ObjectContext(coordinator: coordinator)
        for id in updateIDs {
            let object = try! context.fetch(Self.byKey(keyOf(id)))[0]
            try! object.set(try! object.value(for: "i1", as: Int64.self) + 1, for: "i1")
            try! object.set(try! object.value(for: "d1", as: Double.self) + 0.5, for: "d1")
            try! object.set(changedS1(try! object.value(for: "s1", as: String.self)), for: "s1")
        }
        try! context.save()
    }

    @inline(never) func byNameDelete(_ ids: [ObjectID]) {
        let context = ObjectContext(coordinator: coordinator)
        for id in deleteIDs { context.delete(context.object(with: ids[Int(id - 1)])) }
        try! context.save()
    }

    /// The object IDs of the records, indexed by workload ID - 1 (untimed).
    private func identifiers() -> [ObjectID] {
        let sorted = try! ObjectContext(coordinator: coordinator).fetchObjectIDs(
            FetchRequest(entityName: "Record", sorts: [Sort("key")]))
        var ids = [ObjectID?](repeating: nil, count: sorted.count)
        for (id, objectID) in zip((1...Int64(sorted.count)).sorted { keyOf($0) < keyOf($1) }, sorted) {
            ids[Int(id - 1)] = objectID
        }
        return ids.map { $0! }
    }
}
