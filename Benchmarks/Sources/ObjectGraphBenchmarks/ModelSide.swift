import BenchmarkSupport
import Foundation
import ObjectGraphWorkload
import StrataData

/// A bulk job as a StrataData user writes one: a model actor, whose context of its own is on the
/// container's coordinator and whose work runs on that context's queue.
@ModelActor actor ModelBulkJob {
    /// `body`'s value, run on the actor's context.
    func run<T: Sendable>(_ body: @Sendable (ModelContext) throws -> T) throws -> T { try body(modelContext) }
}

/// StrataData: `ModelContainer` on a store URL, and each workload in a new `@ModelActor` (a new
/// `ModelContext` on the container's coordinator, the work on its queue): `insert`,
/// `fetch(FetchDescriptor)` (by `#Predicate` on the key for lookups and updates),
/// `model(for:)` by identifier, properties, `delete`, `save`, timed with the context's end
/// (``ContextEnd``), as the other Strata sides are. The `byname` side runs on the same
/// stack: `performBackgroundTask` of a two-tier container, a new context on the coordinator.
struct StrataModelSide: Side {
    let scheme: String
    var name: String { "StrataData @Model" }

    func run(_ input: RunInput, directory: String) async throws -> (RunTimes, Int) {
        let url: URL
        switch scheme {
        case "sqlite": url = URL(fileURLWithPath: "\(directory)/model.store")
        case "lmdb": url = URL(string: "lmdb:\(directory)/model.lmdb")!
        default: url = URL(string: "memory:model-\(directory.split(separator: "/").last ?? "")")!
        }
        let container = try ModelContainer(for: ModelRecord.self, configurations: ModelConfiguration(url: url))
        let records = input.records
        var times: RunTimes = []
        var sum = 0
        func timed(_ body: @escaping @Sendable (ModelContext) throws -> Int) async throws {
            let end = ContextEnd<ModelContext>()
            let (ms, value) = try await asyncMilliseconds {
                let value = try await ModelBulkJob(modelContainer: container).run { context in
                    end.keep(context)
                    return try body(context)
                }
                await end.end()
                return value
            }
            times.append(ms)
            sum &+= value
        }
        try await timed { context in
            for r in records { context.insert(ModelRecord(r)) }
            try context.save()
            return 0
        }
        let ids = try await ModelBulkJob(modelContainer: container).run { context in
            try Self.identifiers(context, count: records.count)
        }
        try await timed { context in
            var sum = 0
            for record in try context.fetch(FetchDescriptor<ModelRecord>()) { sum &+= record.touched }
            return sum
        }
        let lookupIDs = input.lookupIDs
        try await timed { context in
            var sum = 0
            for id in lookupIDs { sum &+= (context.model(for: ids[Int(id - 1)]) as! ModelRecord).touched }
            return sum
        }
        try await timed { context in
            var sum = 0
            for id in lookupIDs { sum &+= try context.fetch(Self.byKey(keyOf(id)))[0].touched }
            return sum
        }
        let updateIDs = input.updateIDs
        try await timed { context in
            for id in updateIDs {
                let record = try context.fetch(Self.byKey(keyOf(id)))[0]
                record.i1 += 1
                record.d1 += 0.5
                record.s1 = changedS1(record.s1)
            }
            try context.save()
            return 0
        }
        let deleteIDs = input.deleteIDs
        try await timed { context in
            for id in deleteIDs { context.delete(context.model(for: ids[Int(id - 1)]) as! ModelRecord) }
            try context.save()
            return 0
        }
        let remaining = try await ModelBulkJob(modelContainer: container).run { context in
            try context.fetchCount(FetchDescriptor<ModelRecord>())
        }
        precondition(remaining == records.count - deleteIDs.count)
        return (times, sum)
    }

    static func byKey(_ key: Int64) -> FetchDescriptor<ModelRecord> {
        var descriptor = FetchDescriptor<ModelRecord>(predicate: #Predicate { $0.key == key })
        descriptor.fetchLimit = 1
        return descriptor
    }

    /// The identifiers of the records, indexed by workload ID - 1 (untimed), as `objectIDs` does.
    private static func identifiers(_ context: ModelContext, count: Int) throws -> [PersistentIdentifier] {
        let sorted = try context.fetchIdentifiers(
            FetchDescriptor<ModelRecord>(sortBy: [SortDescriptor(\.key)]))
        precondition(sorted.count == count)
        var ids = [PersistentIdentifier?](repeating: nil, count: count)
        for (id, identifier) in zip((1...Int64(count)).sorted { keyOf($0) < keyOf($1) }, sorted) {
            ids[Int(id - 1)] = identifier
        }
        return ids.map { $0! }
    }
}
