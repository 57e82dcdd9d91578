// How Strata's costs grow with the number of objects, on the SQLite store (the record of the
// performance note: 10 columns). Each mode runs in its own process, so peak RSS is its own.
//
//   swift build -c release --package-path Benchmarks --product ScaleBenchmarks
//   ScaleBenchmarks fetch N        fetch all (default options) then read every object; filled fetch; raw
//   ScaleBenchmarks stack N [runs] [sqlite|lmdb]
//                                  fetch all by name, then typed (`@Managed`), in a background context
//                                  of the three-tier stack, reading every property (ObjectGraphBenchmarks'
//                                  paths, synchronous: callgrind counts `stackFetchAll` and
//                                  `stackTypedFetchAll`)
//   ScaleBenchmarks versus N [runs] [typed,grdb,raw]
//                                  the typed fetch all beside GRDB's Codable records and the raw C API
//                                  (see Versus.swift)
//   ScaleBenchmarks make N PATH    write a store of N records at PATH, for `rss`
//   ScaleBenchmarks rss MODE PATH  peak RSS of fetching all of PATH: MODE = faults | filled | raw
//                                  (records, as SQLiteBenchmarks) | raw-values ([Value] rows)
//   ScaleBenchmarks insert N       insert N objects in a context, then save
//   ScaleBenchmarks saves K N      K successive saves of N new objects into one store
//   ScaleBenchmarks bytes N        heap bytes per unsaved object beyond its values

import BenchmarkSupport
import CScaleSupport
import CStrataSQLite
import Foundation
import Strata

let names = ["i1", "i2", "i3", "d1", "d2", "d3", "s1", "s2", "s3"]
let model = try! Model(
    versionIdentifier: "bench",
    entities: [
        Entity(
            "Record",
            attributes:
                names.map { Attribute($0, $0.hasPrefix("i") ? .integer64 : $0.hasPrefix("d") ? .double : .string) })
    ])

func values(_ r: WorkloadRecord) -> [Value] {
    [
        .integer(r.i1), .integer(r.i2), .integer(r.i3), .double(r.d1), .double(r.d2), .double(r.d3), .string(r.s1),
        .string(r.s2), .string(r.s3),
    ]
}

let directory = NSTemporaryDirectory() + "strata-scale-bench-\(getpid())"
try! FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: directory) }
nonisolated(unsafe) var fileNumber = 0
func freshPath() -> String {
    fileNumber += 1
    return "\(directory)/store-\(fileNumber).sqlite"
}

func openContext(_ path: String) -> ObjectContext {
    let coordinator = StoreCoordinator(model: model)
    try! coordinator.addStore(BuiltInBackends.registry.open("sqlite:\(path)", model: model))
    return ObjectContext(coordinator: coordinator, name: "bench")
}

/// Inserts `records` in `context` and saves them in one save.
func insertAndSave(_ records: ArraySlice<WorkloadRecord>, into context: ObjectContext) {
    for r in records {
        let object = try! context.insert("Record")
        for (name, value) in zip(names, values(r)) { try! object.set(value, for: name) }
    }
    try! context.save()
}

/// A store of `count` records, written by the store itself (fast), at a fresh path.
func filledStore(_ count: Int, at path: String = freshPath()) -> String {
    let workload = Workload(count: count)
    let store = try! BuiltInBackends.registry.open("sqlite:\(path)", model: model)
    let ids = try! store.obtainPermanentIDs(for: "Record", count: count)
    var inserts: [Snapshot] = []
    inserts.reserveCapacity(count)
    for (id, r) in zip(ids, workload.records) {
        inserts.append(Snapshot(objectID: id, version: 0, attributes: values(r), relationships: []))
    }
    try! store.save(SaveRequest(inserts: inserts))
    return path
}

nonisolated(unsafe) var sink = 0

/// Reads every attribute of every object, as a user touching each result does.
func touch(_ objects: some Sequence<ManagedObject>) {
    for object in objects {
        if case .integer(let v) = object["i1"] { sink &+= Int(v) }
        if case .string(let s) = object["s3"] { sink &+= s.utf8.count }
    }
}

func fetchAll(_ path: String, faults: Bool) {
    let context = openContext(path)
    let objects = try! context.fetch(
        FetchRequest(entityName: "Record"), options: FetchOptions(returnsObjectsAsFaults: faults))
    touch(objects)
}

/// Reads every row through the C API into Swift values (the raw baseline).
func rawFetch(_ path: String) -> [[Value]] {
    var db: OpaquePointer?
    guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else { fatalError(path) }
    defer { sqlite3_close_v2(db) }
    var statement: OpaquePointer?
    let sql = "SELECT * FROM " + tableName(db)
    guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { fatalError(sql) }
    defer { sqlite3_finalize(statement) }
    var rows: [[Value]] = []
    let columns = sqlite3_column_count(statement)
    while sqlite3_step(statement) == SQLITE_ROW {
        var row: [Value] = []
        row.reserveCapacity(Int(columns))
        for c in 0..<columns {
            switch sqlite3_column_type(statement, c) {
            case SQLITE_INTEGER: row.append(.integer(sqlite3_column_int64(statement, c)))
            case SQLITE_FLOAT: row.append(.double(sqlite3_column_double(statement, c)))
            case SQLITE_TEXT:
                row.append(
                    .string(
                        String(
                            decoding: UnsafeBufferPointer(
                                start: sqlite3_column_text(statement, c), count: Int(sqlite3_column_bytes(statement, c))
                            ),
                            as: UTF8.self)))
            default: row.append(.null)
            }
        }
        rows.append(row)
    }
    return rows
}

/// A record as the raw SQLite baseline of `SQLiteBenchmarks` reads it.
struct RawRecord {
    var id: Int64
    var i1: Int64, i2: Int64, i3: Int64
    var d1: Double, d2: Double, d3: Double
    var s1: String, s2: String, s3: String
}

/// Reads every row through the C API into records (the W2 baseline of `SQLiteBenchmarks`).
func rawRecords(_ path: String) -> [RawRecord] {
    var db: OpaquePointer?
    guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else { fatalError(path) }
    defer { sqlite3_close_v2(db) }
    var statement: OpaquePointer?
    let sql = "SELECT _pk, i1, i2, i3, d1, d2, d3, s1, s2, s3 FROM " + tableName(db) + " ORDER BY _pk"
    guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { fatalError(sql) }
    defer { sqlite3_finalize(statement) }
    func text(_ c: Int32) -> String {
        String(
            decoding: UnsafeBufferPointer(
                start: sqlite3_column_text(statement, c), count: Int(sqlite3_column_bytes(statement, c))),
            as: UTF8.self)
    }
    var records: [RawRecord] = []
    while sqlite3_step(statement) == SQLITE_ROW {
        records.append(
            RawRecord(
                id: sqlite3_column_int64(statement, 0), i1: sqlite3_column_int64(statement, 1),
                i2: sqlite3_column_int64(statement, 2), i3: sqlite3_column_int64(statement, 3),
                d1: sqlite3_column_double(statement, 4), d2: sqlite3_column_double(statement, 5),
                d3: sqlite3_column_double(statement, 6), s1: text(7), s2: text(8), s3: text(9)))
    }
    return records
}

/// The table the store keeps the records in.
func tableName(_ db: OpaquePointer) -> String {
    var statement: OpaquePointer?
    let sql = "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%record%' COLLATE NOCASE"
    guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { fatalError(sql) }
    defer { sqlite3_finalize(statement) }
    guard sqlite3_step(statement) == SQLITE_ROW else { fatalError("no record table") }
    return "\"" + String(cString: sqlite3_column_text(statement, 0)) + "\""
}

/// A writer context on a fresh store with `count` records inserted through a background child
/// and saved down to the store, as `performBackgroundTask` does in ObjectGraphBenchmarks; then the
/// object IDs fetched sorted, as it does before its fetch all.
func filledStack(_ count: Int, scheme: String = "sqlite") -> ObjectContext {
    let coordinator = StoreCoordinator(model: model)
    try! coordinator.addStore(BuiltInBackends.registry.open("\(scheme):\(freshPath())", model: model))
    let writer = ObjectContext(coordinator: coordinator, name: "writer")
    let importer = ObjectContext(parent: writer, name: "background")
    importer.performAndWait { insertAndSave(Workload(count: count).records[...], into: importer) }
    writer.performAndWait { try! writer.save() }
    let reader = ObjectContext(parent: writer, name: "background")
    let ids = reader.performAndWait {
        try! reader.fetchObjectIDs(FetchRequest(entityName: "Record", sorts: [Sort("i1")]))
    }
    precondition(ids.count == count)
    return writer
}

/// ObjectGraphBenchmarks' typed record: a unique (so indexed) key and the nine values.
@Managed
final class StackItem: ManagedObject {
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

    /// Every value read once, as ObjectGraphBenchmarks reads a fetched object.
    var touched: Int {
        Int(key &+ i1 &+ i2 &+ i3) &+ Int(d1 + d2 + d3) &+ s1.utf8.count &+ s2.utf8.count &+ s3.utf8.count
    }
}

let typedModel = try! Model(versionIdentifier: "bench-typed", classes: [StackItem.self])

/// ``filledStack(_:)`` for typed objects: `count` `StackItem`s inserted through a background
/// child and saved down to the store (of `scheme`), then their IDs fetched sorted by key.
func filledTypedStack(_ count: Int, scheme: String = "sqlite") -> ObjectContext {
    let coordinator = StoreCoordinator(model: typedModel)
    try! coordinator.addStore(BuiltInBackends.registry.open("\(scheme):\(freshPath())", model: typedModel))
    let writer = ObjectContext(coordinator: coordinator, name: "writer")
    let importer = ObjectContext(parent: writer, name: "background")
    importer.performAndWait {
        for r in Workload(count: count).records {
            let item = importer.insert(StackItem.self)
            item.key = r.id
            item.i1 = r.i1
            item.i2 = r.i2
            item.i3 = r.i3
            item.d1 = r.d1
            item.d2 = r.d2
            item.d3 = r.d3
            item.s1 = r.s1
            item.s2 = r.s2
            item.s3 = r.s3
        }
        try! importer.save()
    }
    writer.performAndWait { try! writer.save() }
    let reader = ObjectContext(parent: writer, name: "background")
    let ids = reader.performAndWait {
        try! reader.fetchObjectIDs(FetchRequest(entityName: "StackItem", sorts: [Sort("key")]))
    }
    precondition(ids.count == count)
    return writer
}

/// Fetches every `StackItem` with default options in a new background child of `writer` and
/// reads every property, as ObjectGraphBenchmarks' typed fetch all does.
@inline(never) func stackTypedFetchAll(_ writer: ObjectContext) -> Int {
    let context = ObjectContext(parent: writer, name: "background")
    return context.performAndWait {
        var sum = 0
        for item in try! context.fetch(StackItem.self) { sum &+= item.touched }
        return sum
    }
}

/// Fetches every record with default options in a new background child of `writer` and reads
/// every property by name.
@inline(never) func stackFetchAll(_ writer: ObjectContext) -> Int {
    let context = ObjectContext(parent: writer, name: "background")
    return context.performAndWait {
        var sum = 0
        for object in try! context.fetch(FetchRequest(entityName: "Record")) {
            sum &+=
                Int(try! object.value(for: "i1", as: Int64.self)) &+ Int(try! object.value(for: "i2", as: Int64.self))
            sum &+= Int(try! object.value(for: "i3", as: Int64.self))
            sum &+= Int(try! object.value(for: "d1", as: Double.self) + object.value(for: "d2", as: Double.self))
            sum &+= Int(try! object.value(for: "d3", as: Double.self))
            sum &+= try! object.value(for: "s1", as: String.self).utf8.count
            sum &+= try! object.value(for: "s2", as: String.self).utf8.count
            sum &+= try! object.value(for: "s3", as: String.self).utf8.count
        }
        return sum
    }
}

func peakRSSMegabytes() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}

/// Bytes in use on the C heap (every Swift allocation goes there).
func heapInUse() -> Int { Int(cscale_heap_in_use()) }

func microsecondsPerItem(_ count: Int, _ body: () -> Void) -> Double {
    milliseconds(body) * 1000 / Double(count)
}

let arguments = Array(CommandLine.arguments.dropFirst())
let mode = arguments.first ?? ""
func argument(_ i: Int, _ fallback: Int) -> Int { arguments.count > i ? Int(arguments[i]) ?? fallback : fallback }

switch mode {
case "fetch":
    let count = argument(1, 100_000)
    let runs = argument(2, 3)
    let path = filledStore(count)
    var faulted: [Double] = []
    var filled: [Double] = []
    var raw: [Double] = []
    for _ in 0..<runs {
        faulted.append(microsecondsPerItem(count) { fetchAll(path, faults: true) })
        filled.append(microsecondsPerItem(count) { fetchAll(path, faults: false) })
        raw.append(microsecondsPerItem(count) { sink &+= rawFetch(path).count })
    }
    print(
        "fetch \(count): default (faults) \(format(median(faulted))) us/row, filled \(format(median(filled))) us/row, raw \(format(median(raw))) us/row, faults/filled \(format(median(faulted) / median(filled)))x"
    )
case "stack":
    let count = argument(1, 100_000)
    let runs = argument(2, 3)
    let scheme = arguments.count > 3 ? arguments[3] : "sqlite"
    var times: [Double] = []
    var typedTimes: [Double] = []
    for _ in 0..<runs {
        let writer = filledStack(count, scheme: scheme)
        times.append(microsecondsPerItem(count) { sink &+= stackFetchAll(writer) })
        let typedWriter = filledTypedStack(count, scheme: scheme)
        typedTimes.append(microsecondsPerItem(count) { sink &+= stackTypedFetchAll(typedWriter) })
    }
    print("stack fetch all by name \(count) (\(scheme)): \(format(median(times))) us/row")
    print("stack fetch all typed \(count) (\(scheme)): \(format(median(typedTimes))) us/row")
case "versus":
    let sides = arguments.count > 3 ? arguments[3].split(separator: ",").map(String.init) : ["typed", "grdb", "raw"]
    runVersus(count: argument(1, 100_000), runs: argument(2, 3), sides: sides)
case "make":
    // A store to measure `rss` on, written by this process (whose own peak is not measured).
    let count = argument(1, 1_000_000)
    let target = arguments.count > 2 ? arguments[2] : "scale-\(count).sqlite"
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: target + suffix) }
    _ = filledStore(count, at: target)
    print("wrote \(count) records to \(target)")
case "rss":
    let kind = arguments.count > 1 ? arguments[1] : "faults"
    let path = arguments.count > 2 ? arguments[2] : "scale-1000000.sqlite"
    let baseline = peakRSSMegabytes()
    switch kind {
    case "raw":
        let rows = rawRecords(path)
        sink &+= rows.count
        print("rss raw records \(rows.count): peak \(format(peakRSSMegabytes())) MB (start \(format(baseline)) MB)")
    case "raw-values":
        let rows = rawFetch(path)
        sink &+= rows.count
        print("rss raw values \(rows.count): peak \(format(peakRSSMegabytes())) MB (start \(format(baseline)) MB)")
    default:
        let context = openContext(path)
        let objects = try! context.fetch(
            FetchRequest(entityName: "Record"), options: FetchOptions(returnsObjectsAsFaults: kind == "faults"))
        touch(objects)
        print("rss \(kind) \(objects.count): peak \(format(peakRSSMegabytes())) MB (start \(format(baseline)) MB)")
        withExtendedLifetime(objects) {}
    }
case "insert":
    let count = argument(1, 100_000)
    let runs = argument(2, 3)
    let workload = Workload(count: count)
    var times: [Double] = []
    for _ in 0..<runs {
        let context = openContext(freshPath())
        times.append(microsecondsPerItem(count) { insertAndSave(workload.records[...], into: context) })
    }
    print("insert+save \(count): \(format(median(times))) us/object")
case "saves":
    let saves = argument(1, 10)
    let count = argument(2, 100_000)
    let workload = Workload(count: count)
    let context = openContext(freshPath())
    var line: [String] = []
    for _ in 0..<saves {
        let ms = milliseconds { insertAndSave(workload.records[...], into: context) }
        line.append(format(ms / 1000))
    }
    print("\(saves) saves of \(count) (s): " + line.joined(separator: " "))
case "bytes":
    let count = argument(1, 100_000)
    let workload = Workload(count: count)
    let context = openContext(freshPath())
    // Warm up: one object of the entity, so the context's per-entity state exists.
    _ = try! context.insert("Record")
    let before = heapInUse()
    for r in workload.records {
        let object = try! context.insert("Record")
        for (name, value) in zip(names, values(r)) { try! object.set(value, for: name) }
    }
    let objectBytes = heapInUse() - before
    var kept: [[Value]] = []
    kept.reserveCapacity(count)
    let start = heapInUse()
    for r in workload.records { kept.append(values(r)) }
    let valuesBytes = heapInUse() - start
    withExtendedLifetime(kept) {}
    print(
        "bytes per unsaved object (\(count)): \(objectBytes / count) total, values \(valuesBytes / count), beyond values \((objectBytes - valuesBytes) / count); MemoryLayout<Value>.stride \(MemoryLayout<Value>.stride)"
    )
default:
    print(
        "usage: ScaleBenchmarks fetch N [runs] | stack N [runs] [sqlite|lmdb] | versus N [runs] [sides] | make N PATH | rss faults|filled|raw|raw-values PATH | insert N [runs] | saves K N | bytes N"
    )
    exit(2)
}
if sink == 42 { print(sink) }
