import StrataCore
import StrataTestSupport

/// One process of the contention test: increments the store's counters with optimistic locking,
/// inserting one `Entry` per increment in the same save, and reads between saves.
///
/// A conflict (another process changed the counter first) is retried after reading the counter
/// again; `storeBusy` (the lock was held past the timeout, or, for the XML store, another
/// process replaced the file) is retried after reopening the store. Any other error ends the
/// run. So when every worker finishes, the counters' sum and the number of entries both equal
/// the number of increments, unless an update was lost or torn.
public struct ContentionWorker {
    /// What one worker did.
    public struct Report: Sendable, Hashable, CustomStringConvertible {
        /// Increments saved.
        public var increments = 0
        /// Saves refused with `conflict` and retried.
        public var conflicts = 0
        /// Operations refused with `storeBusy` and retried.
        public var busy = 0
        /// Reads checked (entry counts never go down).
        public var reads = 0

        /// Creates an empty report.
        public init() {}

        /// `increments=… conflicts=… busy=… reads=…`
        public var description: String { "increments=\(increments) conflicts=\(conflicts) busy=\(busy) reads=\(reads)" }
    }

    /// The store's URL.
    public let url: StoreURL
    /// This worker's number (stored in each of its entries).
    public let worker: Int
    /// The number of increments to make.
    public let operations: Int
    /// The seed choosing which counter each increment goes to.
    public let seed: UInt64

    /// Creates a worker.
    public init(url: StoreURL, worker: Int, operations: Int, seed: UInt64) {
        self.url = url
        self.worker = worker
        self.operations = operations
        self.seed = seed
    }

    /// Runs every increment.
    ///
    /// - Throws: the first error that is not `conflict` or `storeBusy`, or
    ///   ``StrataError/Code/internalInconsistency`` when a read goes back in time.
    public func run() throws -> Report {
        var report = Report()
        var random = SeededGenerator(seed: seed, step: worker)
        var store = try TortureStores.open(url)
        defer { try? store.close() }
        var lastCount = 0
        for serial in 0..<operations {
            let slot = Int.random(in: 0..<TortureModel.counterCount, using: &random)
            while true {
                do {
                    let count = try store.fetch(FetchRequest(entityName: "Entry", resultType: .count)).count()
                    report.reads += 1
                    guard count >= lastCount else {
                        throw StrataError(
                            .internalInconsistency,
                            "worker \(worker) read \(count) entries after having read \(lastCount)",
                            location: ["path": url.location])
                    }
                    lastCount = count
                    let counters = try store.fetch(FetchRequest(entityName: "Counter")).snapshots()
                    guard let counter = counters.first(where: { $0.attributes[0] == .integer(Int64(slot)) }),
                        case .integer(let value) = counter.attributes[1]
                    else {
                        throw StrataError(
                            .internalInconsistency, "counter \(slot) is missing or malformed",
                            location: ["path": url.location])
                    }
                    var next = counter
                    next.attributes[1] = .integer(value + 1)
                    next.version = counter.version + 1
                    let id = try store.obtainPermanentIDs(for: "Entry", count: 1)[0]
                    let entry = Snapshot(
                        objectID: id, version: 0, attributes: [.integer(Int64(worker)), .integer(Int64(serial))],
                        relationships: [])
                    try store.save(
                        SaveRequest(inserts: [entry], updates: [.init(next, expectedVersion: counter.version)]))
                    report.increments += 1
                    break
                } catch let error as StrataError where error.code == .conflict {
                    report.conflicts += 1
                } catch let error as StrataError where error.code == .storeBusy {
                    report.busy += 1
                    try store.close()
                    store = try TortureStores.open(url)
                }
            }
        }
        return report
    }
}
