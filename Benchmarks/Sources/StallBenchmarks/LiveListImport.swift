import BenchmarkSupport
import Dispatch
import Foundation
import Strata

/// The delegate of the live list: counts the changes and times each batch of them (the diff a
/// table view would apply), on the main queue.
final class ListDelegate: FetchedResultsControllerDelegate, @unchecked Sendable {
    var batches = 0
    var changes = 0
    var longestBatch: UInt64 = 0
    private var batchStart: UInt64 = 0

    func controllerWillChangeContent(_ controller: FetchedResultsController) { batchStart = monotonicNanoseconds() }

    func controller(
        _ controller: FetchedResultsController, didChange objectID: ObjectID, at index: Int?,
        for type: FetchedResultsChangeType, newIndex: Int?
    ) { changes += 1 }

    func controllerDidChangeContent(_ controller: FetchedResultsController) {
        batches += 1
        longestBatch = max(longestBatch, monotonicNanoseconds() - batchStart)
    }
}

/// Holds the main-queue controller between hops to the main queue (only touched there).
final class ListHolder: @unchecked Sendable {
    var controller: FetchedResultsController?
    let delegate = ListDelegate()
}

/// What one live-list import showed, besides the stall: the rows the list held at the end, the
/// batches and changes its delegate got, the longest batch in ms, and the view context's
/// refetches and changed objects decided without one.
struct LiveListOutcome {
    var rows = 0
    var batches = 0
    var changes = 0
    var longestBatch = 0.0
    var refetches = 0
    var localDecisions = 0
}

/// The list-during-import case: a store on `storeURL` holding `listed` records, a three-tier
/// stack whose main-queue view context merges every save of its sibling worker
/// (`automaticallyMergesChangesFromParent`), and, with `live`, a fetched-results controller on
/// the view context listing every record sorted by `i1`. Then `imported` records arrive
/// through the worker, `chunk` a save, each save also written to the store by the writer.
/// `measure` wraps the import alone (the list is filled before it).
func liveListImport(
    listed: [WorkloadRecord], imported: [WorkloadRecord], chunk: Int, storeURL: String, live: Bool, pause: Int,
    measure: (() -> Void) -> Void
) -> LiveListOutcome {
    let coordinator = StoreCoordinator(model: recordModel)
    try! coordinator.addStore(BuiltInBackends.registry.open(storeURL, model: recordModel))
    let seeding = ObjectContext(coordinator: coordinator, name: "seed")
    for r in listed {
        let object = try! seeding.insert("Record")
        for (i, value) in values(r).enumerated() { try! object.set(value, for: recordNames[i]) }
    }
    try! seeding.save()

    let stack = ContextStack.threeTier(coordinator: coordinator)
    let view = stack.viewContext
    let writer = stack.root
    view.automaticallyMergesChangesFromParent = true
    let worker = ObjectContext(parent: writer, name: "import")
    let holder = ListHolder()
    if live {
        onQueue(view) {
            let controller = FetchedResultsController(
                fetchRequest: FetchRequest(entityName: "Record", sorts: [Sort("i1")]), context: view)
            controller.delegate = holder.delegate
            try controller.performFetch()
            precondition(controller.fetchedObjectIDs.count == listed.count, "the list starts with every record")
            holder.controller = controller
        }
    }
    measure {
        for start in stride(from: 0, to: imported.count, by: chunk) {
            let slice = Array(imported[start..<min(start + chunk, imported.count)])
            onQueue(worker) {
                for r in slice {
                    let object = try worker.insert("Record")
                    for (i, value) in values(r).enumerated() { try object.set(value, for: recordNames[i]) }
                }
                try worker.save()
            }
            onQueue(writer) { try writer.save() }
            if pause > 0 { Thread.sleep(forTimeInterval: Double(pause) / 1_000) }
        }
        // Everything the view context was sent is merged before the measurement ends.
        onQueue(writer) {}
        onQueue(view) {}
    }
    let outcome = Locked(LiveListOutcome())
    onQueue(view) {
        let statistics = view.liveQueryStatistics
        outcome.withLock {
            $0.rows = holder.controller?.fetchedObjectIDs.count ?? 0
            $0.batches = holder.delegate.batches
            $0.changes = holder.delegate.changes
            $0.longestBatch = Double(holder.delegate.longestBatch) / 1e6
            $0.refetches = statistics.refetches
            $0.localDecisions = statistics.localDecisions
        }
        holder.controller = nil
    }
    let result = outcome.withLock { $0 }
    let expected = listed.count + imported.count
    let stored = storedCount(coordinator)
    if stored != expected || (live && result.rows != expected) {
        fatalError("live list import: \(stored) stored, \(result.rows) listed, \(expected) expected")
    }
    return result
}

/// `StallBenchmarks live [runs] [count] [chunk] [pause]`: `count` records listed live on the
/// main queue while `count` more are imported in the background, `chunk` a save (and `pause`
/// ms after each), on SQLite; beside the same import with no live list. Prints a Markdown
/// table.
func runLiveListBenchmark(runs: Int, count: Int, chunk: Int, pause: Int, directory: String) {
    let records = Array(Workload(count: 2 * count).records)
    let listed = Array(records[..<count])
    let imported = Array(records[count...])
    var stalls: [Bool: [Double]] = [:]
    var works: [Bool: [Double]] = [:]
    var times: [Bool: [Double]] = [:]
    var outcomes: [Bool: [LiveListOutcome]] = [:]
    for run in 0..<runs {
        for live in [false, true] {
            var measured = (stall: 0.0, work: 0.0, elapsed: 0.0)
            let outcome = liveListImport(
                listed: listed, imported: imported, chunk: chunk,
                storeURL: "sqlite:\(directory)/live-\(run)-\(live).sqlite", live: live, pause: pause
            ) { body in measured = measureStall(body) }
            stalls[live, default: []].append(measured.stall)
            works[live, default: []].append(measured.work)
            times[live, default: []].append(measured.elapsed)
            outcomes[live, default: []].append(outcome)
            print(
                "run \(run + 1)/\(runs), \(live ? "live list" : "no list"): stall \(format(measured.stall)) ms, "
                    + "main-queue work \(format(measured.work)) ms, longest batch \(format(outcome.longestBatch)) ms, "
                    + "\(outcome.batches) batches, \(outcome.changes) changes, \(outcome.refetches) refetches")
        }
    }
    print(
        "\n### A live list of \(count) records during a background import of \(count) (SQLite, chunks of \(chunk), \(pause) ms between, median of \(runs) runs, ms)\n"
    )
    print(
        "| main queue | longest stall (median) | (max) | longest main-queue work (median) | longest diff batch (median) | batches | refetches | import time | target | met |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for live in [false, true] {
        let stall = median(stalls[live]!)
        let batch = median(outcomes[live]!.map(\.longestBatch))
        let last = outcomes[live]!.last!
        print(
            "| \(live ? "view context with the live list" : "view context, no list") | \(format(stall)) | \(format(stalls[live]!.max()!)) | \(format(median(works[live]!))) | \(live ? format(batch) : "") | \(last.batches) | \(last.refetches) | \(format(median(times[live]!))) | \(live ? "<= 16.00" : "") | \(live ? (median(works[live]!) <= 16 ? "yes" : "NO") : "") |"
        )
    }
}
