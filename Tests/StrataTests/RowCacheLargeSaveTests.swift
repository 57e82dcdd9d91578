import Foundation
import Strata
import StrataEngine
import Testing

/// A save of more objects than the row cache holds gives the cache only the last of them (the
/// others would be forgotten within the same save), and faults fetched before it still see
/// what it wrote.
@Suite struct RowCacheLargeSaveTests {
    private static let model = try! Model(
        versionIdentifier: "large-save",
        entities: [Entity("Record", attributes: [Attribute("n", .integer64), Attribute("s", .string)])])

    /// A coordinator on a fresh SQLite store whose row cache holds `cache` rows.
    private func coordinator(cache: Int) throws -> (StoreCoordinator, String) {
        let path = NSTemporaryDirectory() + "strata-large-save-\(UUID().uuidString).sqlite"
        let coordinator = StoreCoordinator(model: Self.model, rowCacheCapacity: cache)
        try coordinator.addStore(BuiltInBackends.registry.open("sqlite:\(path)", model: Self.model))
        return (coordinator, path)
    }

    private func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    @Test func anInsertLargerThanTheCacheGivesItTheCapacityOnly() throws {
        let (coordinator, path) = try coordinator(cache: 8)
        defer { remove(path) }
        let context = ObjectContext(coordinator: coordinator)
        var objects: [ManagedObject] = []
        for i in 0..<25 {
            let object = try context.insert("Record")
            object["n"] = .integer(Int64(i))
            object["s"] = .string("row \(i)")
            objects.append(object)
        }
        let before = coordinator.rowCache.savedSnapshotsGivenCount
        try context.save()
        #expect(coordinator.rowCache.savedSnapshotsGivenCount - before == 8)
        #expect(coordinator.rowCache.count == 8)
        // What the cache holds is what the save wrote.
        let cached = objects.compactMap { coordinator.rowCache.snapshot(for: $0.objectID) }
        #expect(cached.count == 8)
        for snapshot in cached {
            let object = try #require(objects.first { $0.objectID == snapshot.objectID })
            #expect(snapshot.attributes == [object["n"], object["s"]])
            #expect(snapshot.version == 1)
        }
    }

    @Test func aSmallSaveGivesTheCacheEverySnapshot() throws {
        let (coordinator, path) = try coordinator(cache: 8)
        defer { remove(path) }
        let context = ObjectContext(coordinator: coordinator)
        for i in 0..<5 {
            let object = try context.insert("Record")
            object["n"] = .integer(Int64(i))
            object["s"] = .string("row \(i)")
        }
        let before = coordinator.rowCache.savedSnapshotsGivenCount
        try context.save()
        #expect(coordinator.rowCache.savedSnapshotsGivenCount - before == 5)
        #expect(coordinator.rowCache.count == 5)
    }

    @Test func faultsFetchedBeforeALargeUpdateSeeItsValues() throws {
        let (coordinator, path) = try coordinator(cache: 4)
        defer { remove(path) }
        let writer = ObjectContext(coordinator: coordinator)
        for i in 0..<12 {
            let object = try writer.insert("Record")
            object["n"] = .integer(Int64(i))
            object["s"] = .string("old")
        }
        try writer.save()
        let reader = ObjectContext(coordinator: coordinator)
        let faults = try reader.fetch(FetchRequest(entityName: "Record", sorts: [Sort("n")]))
        #expect(faults.count == 12)
        let editor = ObjectContext(coordinator: coordinator)
        for object in try editor.fetch(FetchRequest(entityName: "Record")) { object["s"] = .string("new") }
        try editor.save()
        // Most of the 12 updated snapshots were never cached: every fault still reads "new".
        #expect(coordinator.rowCache.count <= 4)
        let values = faults.map { $0["s"] }
        #expect(values.allSatisfy { $0 == .string("new") })
    }
}
