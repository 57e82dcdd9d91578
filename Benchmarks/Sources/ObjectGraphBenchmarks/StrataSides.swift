import BenchmarkSupport
import Foundation
import ObjectGraphWorkload
import Strata

/// The record as a Strata user declares it: a `ManagedObject` subclass whose key attribute is
/// unique (so indexed).
@Managed
final class Item: ManagedObject {
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

    var touched: Int { touch(key: key, i1: i1, i2: i2, i3: i3, d1: d1, d2: d2, d3: d3, s1: s1, s2: s2, s3: s3) }

    /// Sets every value from a workload record.
    func fill(_ r: WorkloadRecord) {
        key = keyOf(r.id)
        i1 = r.i1
        i2 = r.i2
        i3 = r.i3
        d1 = r.d1
        d2 = r.d2
        d3 = r.d3
        s1 = r.s1
        s2 = r.s2
        s3 = r.s3
    }
}

let itemModel = try! Model(versionIdentifier: "bench", classes: [Item.self])

/// The same entity for access by name, in a model of its own (as loaded from a file).
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

/// The store URL for `name` in `directory` on the backend of `store` (a fresh file per run).
/// `store` is a scheme, optionally followed by backend options: `lmdb?durability=full`.
func storeURL(scheme store: String, directory: String, name: String) -> StoreURL {
    let scheme = String(store.prefix { $0 != "?" })
    return switch scheme {
    case "sqlite": StoreURL(scheme: "sqlite", location: "\(directory)/\(name).sqlite")
    case "lmdb": StoreURL(scheme: "lmdb", location: "\(directory)/\(name).lmdb")
    default: StoreURL(scheme: scheme, location: "\(name)-\(directory.split(separator: "/").last ?? "")")
    }
}

/// The backend options after `?` in `store` (`lmdb?durability=full&mapSize=1048576`).
func storeOptions(_ store: String) -> [String: String] {
    guard let mark = store.firstIndex(of: "?") else { return [:] }
    var options: [String: String] = [:]
    for pair in store[store.index(after: mark)...].split(separator: "&") {
        let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
        options[parts[0]] = parts.count > 1 ? parts[1] : ""
    }
    return options
}

/// A container on one store, loaded, as the documentation shows (by default the three-tier
/// stack).
func loadedContainer(
    _ url: StoreURL, model: Model, options: [String: String] = [:], stack: ContainerStackStyle = .threeTier
) async throws -> PersistentContainer {
    let container = PersistentContainer(
        name: "Bench", model: model, storeDescriptions: [StoreDescription(url: url, options: options)],
        stack: stack, environment: [:])
    try await container.loadPersistentStores()
    return container
}

/// The object IDs of the records, indexed by workload ID - 1 (untimed): the IDs sorted by key,
/// matched with the workload IDs sorted by key.
func objectIDs(_ container: PersistentContainer, entityName: String, count: Int) async throws -> [ObjectID] {
    let sorted = try await container.performBackgroundTask { context in
        try context.fetchObjectIDs(FetchRequest(entityName: entityName, sorts: [Sort("key")]))
    }
    precondition(sorted.count == count)
    var ids = [ObjectID?](repeating: nil, count: count)
    for (id, objectID) in zip((1...Int64(count)).sorted { keyOf($0) < keyOf($1) }, sorted) {
        ids[Int(id - 1)] = objectID
    }
    return ids.map { $0! }
}

extension PersistentContainer {
    /// Milliseconds taken by `performBackgroundTask(body)` and the end of its context (see
    /// ``ContextEnd``), and the block's value.
    func timedBackgroundTask(_ body: @escaping @Sendable (ObjectContext) throws -> Int) async throws -> (Double, Int) {
        let end = ContextEnd<ObjectContext>()
        return try await asyncMilliseconds {
            let value = try await performBackgroundTask { context in
                end.keep(context)
                return try body(context)
            }
            await end.end()
            return value
        }
    }
}

/// Strata with typed objects: `insert(Item.self)`, `fetch(Item.self, where:limit:)`,
/// `existingObject(with:)`, properties, `delete`, each workload in one
/// `performBackgroundTask` (a new background context, saved into the writer, which saves to the
/// store before the call returns), timed with the context's end (``ContextEnd``). With `stack: .twoTier` (side `typed-2tier`), the same on a
/// context straight on the coordinator, the stack of the `byname` and `model` sides.
struct StrataTypedSide: Side {
    let scheme: String
    var stack: ContainerStackStyle = .threeTier
    var name: String { stack == .threeTier ? "Strata typed" : "Strata typed 2-tier" }

    func run(_ input: RunInput, directory: String) async throws -> (RunTimes, Int) {
        let container = try await loadedContainer(
            storeURL(scheme: scheme, directory: directory, name: "typed"), model: itemModel,
            options: storeOptions(scheme), stack: stack)
        let records = input.records
        var times: RunTimes = []
        var sum = 0
        func timed(_ body: @escaping @Sendable (ObjectContext) throws -> Int) async throws {
            let (ms, value) = try await container.timedBackgroundTask(body)
            times.append(ms)
            sum &+= value
        }
        try await timed { context in
            for r in records { context.insert(Item.self).fill(r) }
            try context.save()
            return 0
        }
        let ids = try await objectIDs(container, entityName: "Item", count: records.count)
        try await timed { context in
            var sum = 0
            for item in try context.fetch(Item.self) { sum &+= item.touched }
            return sum
        }
        let lookupIDs = input.lookupIDs
        try await timed { context in
            var sum = 0
            for id in lookupIDs { sum &+= (try context.existingObject(with: ids[Int(id - 1)]) as! Item).touched }
            return sum
        }
        try await timed { context in
            var sum = 0
            for id in lookupIDs {
                sum &+= try context.fetch(Item.self, where: .key("key") == keyOf(id), limit: 1)[0].touched
            }
            return sum
        }
        let updateIDs = input.updateIDs
        try await timed { context in
            for id in updateIDs {
                let item = try context.fetch(Item.self, where: .key("key") == keyOf(id), limit: 1)[0]
                item.i1 += 1
                item.d1 += 0.5
                item.s1 = changedS1(item.s1)
            }
            try context.save()
            return 0
        }
        let deleteIDs = input.deleteIDs
        try await timed { context in
            for id in deleteIDs { context.delete(context.object(with: ids[Int(id - 1)])) }
            try context.save()
            return 0
        }
        let remaining = try await container.performBackgroundTask { try $0.count(FetchRequest(entityName: "Item")) }
        precondition(remaining == records.count - deleteIDs.count)
        try container.closeStores()
        return (times, sum)
    }
}

/// Strata by attribute name: `insert("Record")`, `set(_:for:)`, `value(for:as:)`, fetch
/// requests with a predicate on the key, each workload in one `performBackgroundTask` of a
/// two-tier container: a new context on the coordinator, whose save writes the store, the stack
/// of the `model` side's `@ModelActor` (a `ModelContainer` has no writer context), so that the
/// two sides' ratio is the model layer's.
struct StrataByNameSide: Side {
    let scheme: String
    var name: String { "Strata by name" }

    static func touched(_ object: ManagedObject) throws -> Int {
        touch(
            key: try object.value(for: "key", as: Int64.self), i1: try object.value(for: "i1", as: Int64.self),
            i2: try object.value(for: "i2", as: Int64.self), i3: try object.value(for: "i3", as: Int64.self),
            d1: try object.value(for: "d1", as: Double.self), d2: try object.value(for: "d2", as: Double.self),
            d3: try object.value(for: "d3", as: Double.self), s1: try object.value(for: "s1", as: String.self),
            s2: try object.value(for: "s2", as: String.self), s3: try object.value(for: "s3", as: String.self))
    }

    static func byKey(_ key: Int64) -> FetchRequest {
        FetchRequest(entityName: "Record", predicate: .key("key") == key, limit: 1)
    }

    func run(_ input: RunInput, directory: String) async throws -> (RunTimes, Int) {
        let container = try await loadedContainer(
            storeURL(scheme: scheme, directory: directory, name: "byname"), model: recordModel,
            options: storeOptions(scheme), stack: .twoTier)
        let records = input.records
        var times: RunTimes = []
        var sum = 0
        func timed(_ body: @escaping @Sendable (ObjectContext) throws -> Int) async throws {
            let (ms, value) = try await container.timedBackgroundTask(body)
            times.append(ms)
            sum &+= value
        }
        try await timed { context in
            for r in records {
                let object = try context.insert("Record")
                try object.set(keyOf(r.id), for: "key")
                try object.set(r.i1, for: "i1")
                try object.set(r.i2, for: "i2")
                try object.set(r.i3, for: "i3")
                try object.set(r.d1, for: "d1")
                try object.set(r.d2, for: "d2")
                try object.set(r.d3, for: "d3")
                try object.set(r.s1, for: "s1")
                try object.set(r.s2, for: "s2")
                try object.set(r.s3, for: "s3")
            }
            try context.save()
            return 0
        }
        let ids = try await objectIDs(container, entityName: "Record", count: records.count)
        try await timed { context in
            var sum = 0
            for object in try context.fetch(FetchRequest(entityName: "Record")) { sum &+= try Self.touched(object) }
            return sum
        }
        let lookupIDs = input.lookupIDs
        try await timed { context in
            var sum = 0
            for id in lookupIDs { sum &+= try Self.touched(try context.existingObject(with: ids[Int(id - 1)])) }
            return sum
        }
        try await timed { context in
            var sum = 0
            for id in lookupIDs { sum &+= try Self.touched(try context.fetch(Self.byKey(keyOf(id)))[0]) }
            return sum
        }
        let updateIDs = input.updateIDs
        try await timed { context in
            for id in updateIDs {
                let object = try context.fetch(Self.byKey(keyOf(id)))[0]
                try object.set(try object.value(for: "i1", as: Int64.self) + 1, for: "i1")
                try object.set(try object.value(for: "d1", as: Double.self) + 0.5, for: "d1")
                try object.set(changedS1(try object.value(for: "s1", as: String.self)), for: "s1")
            }
            try context.save()
            return 0
        }
        let deleteIDs = input.deleteIDs
        try await timed { context in
            for id in deleteIDs { context.delete(context.object(with: ids[Int(id - 1)])) }
            try context.save()
            return 0
        }
        let remaining = try await container.performBackgroundTask { try $0.count(FetchRequest(entityName: "Record")) }
        precondition(remaining == records.count - deleteIDs.count)
        try container.closeStores()
        return (times, sum)
    }
}
