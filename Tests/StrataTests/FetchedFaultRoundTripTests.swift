import Foundation
import Strata
import Testing

/// Faults a fetch returns keep the snapshots it read: touching every object of a fetch larger
/// than the row cache makes no store round trip per object, and what other contexts save or
/// delete through the same coordinator still shows.
@Suite struct FetchedFaultRoundTripTests {
    private static let model = try! Model(
        versionIdentifier: "faults",
        entities: [Entity("Record", attributes: [Attribute("n", .integer64), Attribute("s", .string)])])

    /// A SQLite store of `count` records behind a coordinator whose row cache holds `cache` rows.
    private func coordinator(records count: Int, cache: Int) throws -> (StoreCoordinator, String) {
        let path = NSTemporaryDirectory() + "strata-fetched-faults-\(UUID().uuidString).sqlite"
        let coordinator = StoreCoordinator(model: Self.model, rowCacheCapacity: cache)
        try coordinator.addStore(BuiltInBackends.registry.open("sqlite:\(path)", model: Self.model))
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

    @Test(arguments: [10, 100])
    func touchingEveryFetchedFaultMakesNoStoreRequestPerObject(cache: Int) throws {
        let rows = 300
        let (coordinator, path) = try coordinator(records: rows, cache: cache)
        defer { remove(path) }
        let context = ObjectContext(coordinator: coordinator)
        let before = coordinator.storeReadCount
        let objects = try context.fetch(FetchRequest(entityName: "Record"))
        #expect(objects.count == rows)
        let fetchedAsFaults = objects.allSatisfy { $0.isFault }
        #expect(fetchedAsFaults)
        var sum: Int64 = 0
        for object in objects {
            if case .integer(let n) = object["n"] { sum += n }
        }
        #expect(sum == Int64(rows * (rows - 1) / 2))
        let filled = objects.allSatisfy { !$0.isFault }
        #expect(filled)
        #expect(coordinator.storeReadCount - before == 1, "one fetch, no reads per fault")
    }

    @Test func aFaultShowsWhatAnotherContextSavedAfterTheFetch() throws {
        let (coordinator, path) = try coordinator(records: 20, cache: 5)
        defer { remove(path) }
        let reader = ObjectContext(coordinator: coordinator)
        let faults = try reader.fetch(FetchRequest(entityName: "Record", sorts: [Sort("n")]))
        let editor = ObjectContext(coordinator: coordinator)
        let edited = try editor.existingObject(with: faults[3].objectID)
        edited["s"] = .string("edited")
        try editor.save()
        #expect(faults[3].isFault)
        #expect(faults[3]["s"] == .string("edited"))
        #expect(faults[4]["s"] == .string("row 4"))
    }

    @Test func aDeleteElsewhereLeavesTheOtherFaultsTheirSnapshots() throws {
        let (coordinator, path) = try coordinator(records: 20, cache: 5)
        defer { remove(path) }
        let reader = ObjectContext(coordinator: coordinator)
        let faults = try reader.fetch(FetchRequest(entityName: "Record", sorts: [Sort("n")]))
        let editor = ObjectContext(coordinator: coordinator)
        editor.delete(try editor.existingObject(with: faults[0].objectID))
        try editor.save()
        let before = coordinator.storeReadCount
        #expect(faults[10]["s"] == .string("row 10"))
        #expect(coordinator.storeReadCount == before)
        #expect(throws: StrataError.self) { try reader.existingObject(with: faults[0].objectID) }
    }
}
