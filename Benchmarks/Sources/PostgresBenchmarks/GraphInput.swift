import BenchmarkSupport
import Foundation
import ObjectGraphWorkload

/// The object-graph workloads of ObjectGraphBenchmarks, in order (W3 split into lookups by ID
/// and by the indexed key attribute).
let graphWorkloadNames = [
    "insert + save", "fetch all", "lookups by ID", "lookups by indexed key attribute",
    "update 10% (fetch by key + change, save)", "delete 10%",
]

/// What one object-graph side needs for one run, and the checksums it must find.
struct GraphInput: Sendable {
    let records: [WorkloadRecord]
    /// Workload IDs (1...N) looked up by ID and by key.
    let lookupIDs: [Int64]
    /// Workload IDs updated (fetched by key, changed), in random order.
    let updateIDs: [Int64]
    /// Workload IDs deleted, in random order.
    let deleteIDs: [Int64]
    /// Checksum of every record, of the lookups, of the store after the updates and after the deletes.
    let all: Int
    let lookups: Int
    let afterUpdate: Int
    let afterDelete: Int

    init(workload: Workload, lookups: Int, updates: Int) {
        records = workload.records
        lookupIDs = Array(workload.lookupKeys.prefix(lookups))
        updateIDs = Array(shuffled(workload.updateKeys, seed: 1).prefix(updates))
        deleteIDs = shuffled(workload.deleteKeys, seed: 2)
        let records = workload.records
        all = records.reduce(0) { $0 &+ graphChecksum($1) }
        self.lookups = lookupIDs.reduce(0) { $0 &+ graphChecksum(records[Int($1 - 1)]) }
        var afterUpdate = all
        for id in updateIDs {
            afterUpdate =
                afterUpdate &- graphChecksum(records[Int(id - 1)]) &+ graphChecksum(updated(records[Int(id - 1)]))
        }
        self.afterUpdate = afterUpdate
        let updatedIDs = Set(updateIDs)
        var afterDelete = afterUpdate
        for id in deleteIDs {
            let record = records[Int(id - 1)]
            afterDelete = afterDelete &- graphChecksum(updatedIDs.contains(id) ? updated(record) : record)
        }
        self.afterDelete = afterDelete
    }
}

/// The update workload's change: every side makes the same three changes.
func updated(_ r: WorkloadRecord) -> WorkloadRecord {
    var r = r
    r.i1 += 1
    r.d1 += 0.5
    r.s1 = changedS1(r.s1)
    return r
}

/// The checksum of an object read back, from its key attribute and values.
func graphChecksum(
    key: Int64, i1: Int64, i2: Int64, i3: Int64, d1: Double, d2: Double, d3: Double, s1: String, s2: String, s3: String
) -> Int {
    checksumOf(id: key, i1: i1, i2: i2, i3: i3, d1: d1, d2: d2, d3: d3, s1: s1, s2: s2, s3: s3)
}

/// The checksum a side must find for workload record `r`.
func graphChecksum(_ r: WorkloadRecord) -> Int {
    graphChecksum(
        key: keyOf(r.id), i1: r.i1, i2: r.i2, i3: r.i3, d1: r.d1, d2: r.d2, d3: r.d3, s1: r.s1, s2: r.s2, s3: r.s3)
}

/// Milliseconds taken by an async `body`, and its result.
func asyncMilliseconds<T>(_ body: () async throws -> T) async rethrows -> (Double, T) {
    let start = monotonicNanoseconds()
    let result = try await body()
    return (Double(monotonicNanoseconds() - start) / 1e6, result)
}

/// A side of the object-graph comparison.
protocol GraphSide: Sendable {
    /// Its name in the table.
    var name: String { get }
    /// Runs every workload on a fresh schema, checking each result; returns the times in ms.
    func run(_ input: GraphInput, schema: String) async throws -> [Double]
}
