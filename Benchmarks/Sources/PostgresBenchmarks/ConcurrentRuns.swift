import BenchmarkSupport
import FluentKit
import Foundation
import ObjectGraphWorkload
import Strata

/// `workers` concurrent contexts, each doing short read-modify-save transactions for a fixed
/// time (fetch one object by its key, change it, save), through Strata (`pool=` connections)
/// and through Fluent (the same number of connections over its event loops): saves per second
/// and p50/p99 latency. Each side checks afterwards that the store holds every save it counted
/// (the sum of the changed field grew by the number of saves) and reports the updates it lost.
struct ConcurrentRuns {
    let server: BenchmarkServer
    let records: [WorkloadRecord]
    let workers: Int
    let connections: Int
    let seconds: Double
    let stack: ContainerStackStyle
    /// The sides to run (`strata`, `fluent`): both but for debugging one.
    let sides: Set<String>

    /// What one side did in one run.
    struct Outcome {
        var saves = 0
        /// Transactions that failed (a conflict or a busy store), not counted as saves.
        var failures = 0
        /// Saves whose change the store does not hold (another save overwrote it).
        var lostUpdates = 0
        /// Every successful transaction's latency, in ns.
        var latencies: [UInt64] = []
        var elapsed: Double = 0

        var perSecond: Double { Double(saves) / elapsed }

        func percentile(_ p: Double) -> Double {
            guard !latencies.isEmpty else { return 0 }
            let sorted = latencies.sorted()
            return Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1e6
        }
    }

    /// The key a worker's `n`th transaction changes: seeded, spread over every record.
    static func keys(worker: Int, count: Int) -> AsyncKeys {
        AsyncKeys(rng: SplitMix64(seed: 0x636F_6E63 &+ UInt64(worker)), count: count)
    }

    struct AsyncKeys {
        var rng: SplitMix64
        let count: Int
        mutating func next() -> Int64 { keyOf(Int64(1 + rng.next() % UInt64(count))) }
    }

    /// The sum of `i1` over all records before any change.
    var initialSum: Int64 { records.reduce(0) { $0 &+ $1.i1 } }

    func runStrata(schema: String) async throws -> Outcome {
        let container = PersistentContainer(
            name: "Bench", model: itemModel,
            storeDescriptions: [try StoreDescription(server.storeURL(schema: schema, pool: connections))],
            stack: stack, environment: [:])
        try await container.loadPersistentStores()
        let records = self.records
        try await container.performBackgroundTask { context in
            for r in records { context.insert(Item.self).fill(r) }
            try context.save()
        }
        let deadline = monotonicNanoseconds() + UInt64(seconds * 1e9)
        let start = monotonicNanoseconds()
        var outcome = try await withThrowingTaskGroup(of: Outcome.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    var keys = Self.keys(worker: worker, count: records.count)
                    var outcome = Outcome()
                    while monotonicNanoseconds() < deadline {
                        let key = keys.next()
                        let begin = monotonicNanoseconds()
                        do {
                            try await container.performBackgroundTask { context in
                                let item = try context.fetch(Item.self, where: .key("key") == key, limit: 1)[0]
                                item.i1 += 1
                                try context.save()
                            }
                            outcome.latencies.append(monotonicNanoseconds() - begin)
                            outcome.saves += 1
                        } catch let error as StrataError where error.code == .conflict || error.code == .storeBusy {
                            outcome.failures += 1
                        }
                    }
                    return outcome
                }
            }
            var total = Outcome()
            for try await outcome in group {
                total.saves += outcome.saves
                total.failures += outcome.failures
                total.latencies += outcome.latencies
            }
            return total
        }
        outcome.elapsed = Double(monotonicNanoseconds() - start) / 1e9
        let sum = try await container.performBackgroundTask { context in
            try context.fetch(Item.self).reduce(Int64(0)) { $0 &+ $1.i1 }
        }
        outcome.lostUpdates = outcome.saves - Int(sum - initialSum)
        check("Strata concurrent saves", outcome.lostUpdates == 0, "\(outcome.lostUpdates) updates lost")
        try container.closeStores()
        return outcome
    }

    func runFluent(schema: String) async throws -> Outcome {
        server.createSchema(schema)
        let perLoop = max(1, connections / FluentDatabases.eventLoopCount)
        let fluent = try FluentDatabases(server: server, schema: schema, connectionsPerEventLoop: perLoop)
        try await fluent.createTable()
        let records = self.records
        try await fluent.database().transaction { db in
            for start in stride(from: 0, to: records.count, by: FluentGraphSide.createBatch) {
                let batch = records[start..<min(start + FluentGraphSide.createBatch, records.count)]
                try await batch.map(FluentRecord.init).create(on: db)
            }
        }
        let deadline = monotonicNanoseconds() + UInt64(seconds * 1e9)
        let start = monotonicNanoseconds()
        var outcome = try await withThrowingTaskGroup(of: Outcome.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    var keys = Self.keys(worker: worker, count: records.count)
                    var outcome = Outcome()
                    // A request's database handle, as Vapor hands each request one (`req.db`).
                    let db = fluent.database()
                    while monotonicNanoseconds() < deadline {
                        let key = keys.next()
                        let begin = monotonicNanoseconds()
                        try await db.transaction { db in
                            let record = try await FluentRecord.query(on: db).filter(\.$key == key).first()!
                            record.i1 += 1
                            try await record.save(on: db)
                        }
                        outcome.latencies.append(monotonicNanoseconds() - begin)
                        outcome.saves += 1
                    }
                    return outcome
                }
            }
            var total = Outcome()
            for try await outcome in group {
                total.saves += outcome.saves
                total.failures += outcome.failures
                total.latencies += outcome.latencies
            }
            return total
        }
        outcome.elapsed = Double(monotonicNanoseconds() - start) / 1e9
        let sum = try await FluentRecord.query(on: fluent.database()).all().reduce(Int64(0)) { $0 &+ $1.i1 }
        outcome.lostUpdates = outcome.saves - Int(sum - initialSum)
        // Fluent reads and writes without a version check: concurrent changes of one row can
        // overwrite each other. Reported, not hidden; more than a few means a broken run.
        check("Fluent concurrent saves", outcome.lostUpdates * 100 <= outcome.saves, "\(outcome.lostUpdates) lost")
        await fluent.shutdown()
        return outcome
    }

    func run(runs: Int) async throws {
        print(
            "PostgreSQL concurrency: \(workers) workers, \(connections) connections, \(records.count) records, "
                + "\(format(seconds)) s per side, \(runs) runs, Strata \(stack == .threeTier ? "three" : "two")-tier; "
                + "load average \(loadAverage())")
        var strata: [Outcome] = []
        var fluent: [Outcome] = []
        for run in 0..<runs {
            for offset in 0..<2 {
                let schema = server.schemaName("concurrent_\(run)_\(offset)")
                defer { server.dropSchema(schema) }
                if (offset + run) % 2 == 0 {
                    if sides.contains("strata") { strata.append(try await runStrata(schema: schema)) }
                } else {
                    if sides.contains("fluent") { fluent.append(try await runFluent(schema: schema)) }
                }
            }
            for (name, outcome) in [("Strata", strata.last), ("Fluent", fluent.last)] {
                guard let outcome else { continue }
                print(
                    "run \(run + 1) \(name): \(outcome.saves) saves, \(format(outcome.perSecond))/s, "
                        + "p50 \(format(outcome.percentile(0.5))) ms, p99 \(format(outcome.percentile(0.99))) ms, "
                        + "\(outcome.failures) failed, \(outcome.lostUpdates) lost")
            }
        }
        guard !strata.isEmpty, !fluent.isEmpty else { return }
        print(
            "\n### PostgreSQL: \(workers) concurrent read-modify-save transactions, \(connections) connections "
                + "(median of \(runs) runs)\n")
        print("| side | saves/s | p50 ms | p99 ms | failed | lost updates |")
        print("|---|---:|---:|---:|---:|---:|")
        for (name, outcomes) in [("Strata", strata), ("Fluent", fluent)] {
            print(
                "| \(name) | \(format(median(outcomes.map(\.perSecond)))) | "
                    + "\(format(median(outcomes.map { $0.percentile(0.5) }))) | "
                    + "\(format(median(outcomes.map { $0.percentile(0.99) }))) | "
                    + "\(outcomes.map(\.failures).reduce(0, +)) | \(outcomes.map(\.lostUpdates).reduce(0, +)) |")
        }
        let ratio = median(strata.map(\.perSecond)) / median(fluent.map(\.perSecond))
        print(
            "\nthroughput x Fluent: \(format(ratio))x (target >= 1.00x: \(ratio >= 1 ? "met" : "NOT met")); "
                + "load average \(loadAverage())")
    }
}
