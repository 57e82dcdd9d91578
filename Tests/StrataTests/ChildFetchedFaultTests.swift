import Foundation
import Strata
import Testing

/// A child context's faults keep the snapshots its fetch read when its parent answered from the
/// stores: touching every object of a large fetch makes no store or parent round trip per object,
/// and whatever the parent (or an ancestor, or another context) changes after the fetch still
/// shows when a fault fills.
@Suite struct ChildFetchedFaultTests {
    private static let model = try! Model(
        versionIdentifier: "child-faults",
        entities: [Entity("Record", attributes: [Attribute("n", .integer64), Attribute("s", .string)])])

    /// A coordinator on a store of `scheme` holding `count` records, whose row cache holds
    /// `cache` rows.
    private func coordinator(_ scheme: String = "sqlite", records count: Int, cache: Int = 50_000) throws
        -> (StoreCoordinator, String)
    {
        let name = "strata-child-faults-\(UUID().uuidString)"
        let path = scheme == "sqlite" ? NSTemporaryDirectory() + name + ".sqlite" : name
        let coordinator = StoreCoordinator(model: Self.model, rowCacheCapacity: cache)
        try coordinator.addStore(BuiltInBackends.registry.open("\(scheme):\(path)", model: Self.model))
        let writer = ObjectContext(coordinator: coordinator)
        for i in 0..<count {
            let object = try writer.insert("Record")
            object["n"] = .integer(Int64(i))
            object["s"] = .string("row \(i)")
        }
        try writer.save()
        return (coordinator, path)
    }

    private func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    private func sorted(_ context: ObjectContext) throws -> FetchedResults {
        try context.fetch(FetchRequest(entityName: "Record", sorts: [Sort("n")]))
    }

    @Test func touchingEveryFetchedFaultOfAChildMakesNoStoreRequestPerObject() throws {
        let rows = 300
        let (coordinator, path) = try coordinator(records: rows, cache: 10)
        defer { remove(path) }
        let parent = ObjectContext(coordinator: coordinator)
        let child = ObjectContext(parent: parent)
        let before = coordinator.storeReadCount
        let objects = try child.fetch(FetchRequest(entityName: "Record"))
        #expect(objects.count == rows)
        var sum: Int64 = 0
        for object in objects {
            if case .integer(let n) = object["n"] { sum += n }
        }
        #expect(sum == Int64(rows * (rows - 1) / 2))
        #expect(coordinator.storeReadCount - before == 1, "one fetch, no reads per fault")
    }

    @Test(arguments: ["sqlite", "memory"])
    func aFaultShowsWhatTheParentChangedAfterTheFetch(scheme: String) throws {
        let (coordinator, path) = try coordinator(scheme, records: 20)
        defer { remove(path) }
        let parent = ObjectContext(coordinator: coordinator)
        let child = ObjectContext(parent: parent)
        let faults = try sorted(child)
        let edited = try parent.existingObject(with: faults[3].objectID)
        edited["s"] = .string("edited")
        #expect(faults[3].isFault)
        #expect(faults[3]["s"] == .string("edited"))
        #expect(faults[4]["s"] == .string("row 4"))
    }

    @Test func aFaultShowsWhatTheParentHadPendingAtTheFetch() throws {
        let (coordinator, path) = try coordinator(records: 20)
        defer { remove(path) }
        let parent = ObjectContext(coordinator: coordinator)
        let edited = try parent.fetch(FetchRequest(entityName: "Record", sorts: [Sort("n")]))[5]
        edited["s"] = .string("pending")
        let child = ObjectContext(parent: parent)
        let faults = try sorted(child)
        #expect(faults[5]["s"] == .string("pending"))
        parent.rollback()
        #expect(faults[6]["s"] == .string("row 6"))
    }

    @Test func aFaultShowsWhatASiblingSavedIntoTheParentAfterTheFetch() throws {
        let (coordinator, path) = try coordinator(records: 20)
        defer { remove(path) }
        let parent = ObjectContext(coordinator: coordinator)
        let reader = ObjectContext(parent: parent)
        let faults = try sorted(reader)
        let sibling = ObjectContext(parent: parent)
        try sibling.existingObject(with: faults[7].objectID)["s"] = .string("from a sibling")
        try sibling.save()
        #expect(faults[7]["s"] == .string("from a sibling"))
        #expect(faults[8]["s"] == .string("row 8"))
    }

    @Test func aFaultShowsWhatAGrandparentChangedAfterTheFetch() throws {
        let (coordinator, path) = try coordinator(records: 20)
        defer { remove(path) }
        let root = ObjectContext(coordinator: coordinator)
        let middle = ObjectContext(parent: root)
        let leaf = ObjectContext(parent: middle)
        let faults = try sorted(leaf)
        try root.existingObject(with: faults[2].objectID)["s"] = .string("in the root")
        #expect(faults[2]["s"] == .string("in the root"))
    }

    @Test func aFaultShowsWhatAnotherContextSavedAfterTheFetch() throws {
        let (coordinator, path) = try coordinator(records: 20, cache: 5)
        defer { remove(path) }
        let parent = ObjectContext(coordinator: coordinator)
        let child = ObjectContext(parent: parent)
        let faults = try sorted(child)
        let editor = ObjectContext(coordinator: coordinator)
        try editor.existingObject(with: faults[9].objectID)["s"] = .string("saved elsewhere")
        try editor.save()
        #expect(faults[9]["s"] == .string("saved elsewhere"))
        #expect(faults[10]["s"] == .string("row 10"))
    }
}
