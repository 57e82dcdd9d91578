import BenchmarkSupport
import Dispatch
import Strata

/// How the background import reaches the three-tier stack (private writer root, main-queue view
/// context, private worker).
enum ImportShape: String, CaseIterable {
    /// Control, no main-queue context at all: one root context, used directly by the importing
    /// thread (no GCD queue involved).
    case directRoot = "control: one root context on the import thread"
    /// Control, no main-queue context at all: one private-queue root context, through `perform`.
    case privateRoot = "control: one private root context"

    /// The worker is a child of the writer, a sibling of the view context, which merges every
    /// save into the writer by itself (`automaticallyMergesChangesFromParent`), as an app with a
    /// `viewContext` and background contexts does. Each chunk: the worker saves into the writer,
    /// the writer saves to the store.
    case siblingWorker = "worker -> writer, view merges"
    /// The worker is a child of the view context (`ContextStack.newWorkerContext`, MagicalRecord's
    /// stack). Each chunk: the worker saves into the view context, the view context (on the main
    /// queue) into the writer, the writer to the store.
    case childOfView = "worker -> view -> writer"
}

/// Runs `body` on `context`'s queue with `perform` and waits for it (the caller is a background
/// thread, never the main queue).
func onQueue(_ context: ObjectContext, _ body: @escaping @Sendable () throws -> Void) {
    let done = DispatchSemaphore(value: 0)
    let failure = Locked<String?>(nil)
    context.perform {
        do { try body() } catch { failure.withLock { $0 = "\(error)" } }
        done.signal()
    }
    done.wait()
    if let message = failure.withLock({ $0 }) { fatalError("\(context.name ?? "context"): \(message)") }
}

/// The model of the workload record.
let recordNames = ["i1", "i2", "i3", "d1", "d2", "d3", "s1", "s2", "s3"]
let recordModel = try! Model(
    versionIdentifier: "bench",
    entities: [
        Entity(
            "Record",
            attributes:
                recordNames.map {
                    Attribute($0, $0.hasPrefix("i") ? .integer64 : $0.hasPrefix("d") ? .double : .string)
                })
    ])

/// The record's values, in `recordNames` order.
func values(_ r: WorkloadRecord) -> [Value] {
    [
        .integer(r.i1), .integer(r.i2), .integer(r.i3), .double(r.d1), .double(r.d2), .double(r.d3), .string(r.s1),
        .string(r.s2), .string(r.s3),
    ]
}

/// Imports `records` through a three-tier stack on `storeURL`, `chunk` records per save.
/// Returns the coordinator, for checking the result after the measurement.
func strataImport(_ records: [WorkloadRecord], chunk: Int, storeURL: String, shape: ImportShape) -> StoreCoordinator {
    let coordinator = StoreCoordinator(model: recordModel)
    try! coordinator.addStore(BuiltInBackends.registry.open(storeURL, model: recordModel))
    let stack = ContextStack.threeTier(coordinator: coordinator)
    let view = stack.viewContext
    let writer = stack.root
    let worker: ObjectContext
    switch shape {
    case .directRoot:
        let context = ObjectContext(coordinator: coordinator, name: "import")
        for start in stride(from: 0, to: records.count, by: chunk) {
            for r in records[start..<min(start + chunk, records.count)] {
                let object = try! context.insert("Record")
                for (i, value) in values(r).enumerated() { try! object.set(value, for: recordNames[i]) }
            }
            try! context.save()
        }
        return coordinator
    case .privateRoot:
        worker = ObjectContext(coordinator: coordinator, name: "import")
    case .siblingWorker:
        worker = ObjectContext(parent: writer, name: "import")
        view.automaticallyMergesChangesFromParent = true
    case .childOfView:
        worker = stack.newWorkerContext(name: "import")
    }
    for start in stride(from: 0, to: records.count, by: chunk) {
        let slice = Array(records[start..<min(start + chunk, records.count)])
        onQueue(worker) {
            for r in slice {
                let object = try worker.insert("Record")
                for (i, value) in values(r).enumerated() { try object.set(value, for: recordNames[i]) }
            }
            try worker.save()
        }
        if shape == .childOfView { onQueue(view) { try view.save() } }
        if shape != .privateRoot { onQueue(writer) { try writer.save() } }
    }
    return coordinator
}

/// How many records the store behind `coordinator` holds (read by a root context, after the
/// measurement: a count through the view context fetches through the writer).
func storedCount(_ coordinator: StoreCoordinator) -> Int {
    try! ObjectContext(coordinator: coordinator, name: "check").count(FetchRequest(entityName: "Record"))
}
