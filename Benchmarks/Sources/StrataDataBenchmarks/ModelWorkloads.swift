import BenchmarkSupport
import Foundation
import ObjectGraphWorkload
import StrataData

/// The `model` side of ObjectGraphBenchmarks, synchronous: a new `ModelContext` per workload.
struct ModelWorkloads {
    let container: ModelContainer

    func run() -> [Double] {
        var times: [Double] = []
        times.append(milliseconds { modelInsert() })
        let ids = identifiers()
        times.append(milliseconds { modelFetchAll() })
        times.append(milliseconds { modelLookupsByID(ids) })
        times.append(milliseconds { modelLookupsByKey() })
        times.append(milliseconds { modelUpdate() })
        times.append(milliseconds { modelDelete(ids) })
        let remaining = try! ModelContext(container).fetchCount(FetchDescriptor<ModelRecord>())
        precondition(remaining == workload.records.count - deleteIDs.count)
        return times
    }

    @inline(never) func modelInsert() {
        let context = ModelContext(container)
        for r in workload.records { context.insert(ModelRecord(r)) }
        try! context.save()
    }

    @inline(never) func modelFetchAll() {
        let context = ModelContext(container)
        for record in try! context.fetch(FetchDescriptor<ModelRecord>()) { sink &+= record.touched }
    }

    @inline(never) func modelLookupsByID(_ ids: [PersistentIdentifier]) {
        let context = ModelContext(container)
        for id in lookupIDs { sink &+= (context.model(for: ids[Int(id - 1)]) as! ModelRecord).touched }
    }

    @inline(never) func modelLookupsByKey() {
        let context = ModelContext(container)
        for id in lookupIDs { sink &+= try! context.fetch(Self.byKey(keyOf(id)))[0].touched }
    }

    @inline(never) func modelUpdate() {
        let context = ModelContext(container)
        for id in updateIDs {
            let record = try! context.fetch(Self.byKey(keyOf(id)))[0]
            record.i1 += 1
            record.d1 += 0.5
            record.s1 = changedS1(record.s1)
        }
        try! context.save()
    }

    @inline(never) func modelDelete(_ ids: [PersistentIdentifier]) {
        let context = ModelContext(container)
        for id in deleteIDs { context.delete(context.model(for: ids[Int(id - 1)]) as! ModelRecord) }
        try! context.save()
    }

    static func byKey(_ key: Int64) -> FetchDescriptor<ModelRecord> {
        var descriptor = FetchDescriptor<ModelRecord>(predicate: #Predicate { $0.key == key })
        descriptor.fetchLimit = 1
        return descriptor
    }

    /// The identifiers of the records, indexed by workload ID - 1 (untimed).
    private func identifiers() -> [PersistentIdentifier] {
        let sorted = try! ModelContext(container).fetchIdentifiers(
            FetchDescriptor<ModelRecord>(sortBy: [SortDescriptor(\.key)]))
        var ids = [PersistentIdentifier?](repeating: nil, count: sorted.count)
        for (id, identifier) in zip((1...Int64(sorted.count)).sorted { keyOf($0) < keyOf($1) }, sorted) {
            ids[Int(id - 1)] = identifier
        }
        return ids.map { $0! }
    }
}
