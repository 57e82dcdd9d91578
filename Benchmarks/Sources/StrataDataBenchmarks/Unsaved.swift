import BenchmarkSupport
import Foundation
import MallocStats
import ObjectGraphWorkload
import Strata
import StrataData

/// The `unsaved` mode: malloc'd bytes per unsaved inserted object, `@Model` or by name.
func measureUnsaved(_ arguments: [String]) {
    let count = arguments.first.flatMap { Int($0) } ?? 100_000
    let side = arguments.count > 1 ? arguments[1] : "model"
    let records = Workload(count: count).records
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-data-unsaved-\(getpid())")
    try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let insert: (WorkloadRecord) -> Void
    let inserted: () -> Int
    switch side {
    case "model":
        let container = try! ModelContainer(
            for: ModelRecord.self,
            configurations: ModelConfiguration(url: directory.appendingPathComponent("model.store")))
        let context = ModelContext(container)
        insert = { context.insert(ModelRecord($0)) }
        inserted = { context.insertedModelsArray.count }
    case "byname":
        let coordinator = StoreCoordinator(model: recordModel)
        try! coordinator.addStore(
            BuiltInBackends.registry.open(
                "sqlite:\(directory.appendingPathComponent("byname.sqlite").path)", model: recordModel))
        let context = ObjectContext(coordinator: coordinator)
        insert = { r in
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
        inserted = { context.insertedObjects.count }
    default:
        print("usage: StrataDataBenchmarks unsaved [count] [model|byname]")
        exit(2)
    }
    // One object first, so that per-class and per-context setup is not counted.
    insert(records[0])
    let before = Int(bench_malloced_bytes())
    for r in records.dropFirst() { insert(r) }
    let after = Int(bench_malloced_bytes())
    precondition(inserted() == count)
    print("unsaved \(side): \(count) objects, \((after - before) / (count - 1)) malloc'd bytes per object")
}
