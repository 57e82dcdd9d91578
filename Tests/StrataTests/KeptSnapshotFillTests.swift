import Foundation
import Strata
import Testing

/// A fault a fetch made fills from the snapshot it keeps with no lock while nothing changed
/// since the fetch (the row cache's epoch, read atomically), in a context and in a child of a
/// writer alike; once something changed, the row cache decides under its lock, so saves and a
/// parent's unsaved changes still show.
@Suite struct KeptSnapshotFillTests {
    private static let model = try! Model(
        versionIdentifier: "kept-fill",
        entities: [Entity("Record", attributes: [Attribute("n", .integer64), Attribute("s", .string)])])

    /// A writer context on a SQLite store holding `count` saved records.
    private func writer(records count: Int) throws -> (ObjectContext, String) {
        let path = NSTemporaryDirectory() + "strata-kept-fill-\(UUID().uuidString).sqlite"
        let coordinator = StoreCoordinator(model: Self.model)
        try coordinator.addStore(BuiltInBackends.registry.open("sqlite:\(path)", model: Self.model))
        let writer = ObjectContext(coordinator: coordinator, name: "writer")
        for i in 0..<count {
            let object = try writer.insert("Record")
            object["n"] = .integer(Int64(i))
            object["s"] = .string("row \(i)")
        }
        try writer.save()
        return (writer, path)
    }

    private func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    private func sum(_ objects: FetchedResults) -> Int64 {
        var sum: Int64 = 0
        for object in objects {
            if case .integer(let n) = object["n"] { sum += n }
        }
        return sum
    }

    @Test func aFetchThenAReadOfEveryObjectTakesNoLock() throws {
        let rows = 200
        let (writer, path) = try writer(records: rows)
        defer { remove(path) }
        let rowCache = writer.coordinator.rowCache
        let context = ObjectContext(coordinator: writer.coordinator)
        let objects = try context.fetch(FetchRequest(entityName: "Record"))
        let before = rowCache.lockedFillCount
        #expect(sum(objects) == Int64(rows * (rows - 1) / 2))
        #expect(objects.allSatisfy { !$0.isFault })
        #expect(rowCache.lockedFillCount == before, "every fault filled from its kept snapshot without the lock")
    }

    @Test func aChildsFetchThenAReadOfEveryObjectTakesNoLockAndNoParentTrip() throws {
        let rows = 200
        let (writer, path) = try writer(records: rows)
        defer { remove(path) }
        let rowCache = writer.coordinator.rowCache
        let child = ObjectContext(parent: writer, name: "background")
        try child.performAndWait {
            let objects = try child.fetch(FetchRequest(entityName: "Record"))
            let reads = writer.coordinator.storeReadCount
            let before = rowCache.lockedFillCount
            #expect(sum(objects) == Int64(rows * (rows - 1) / 2))
            #expect(rowCache.lockedFillCount == before)
            #expect(writer.coordinator.storeReadCount == reads)
        }
    }

    @Test func aSaveAfterTheFetchIsSeenThroughTheLockedPath() throws {
        let (writer, path) = try writer(records: 10)
        defer { remove(path) }
        let rowCache = writer.coordinator.rowCache
        let reader = ObjectContext(coordinator: writer.coordinator)
        let faults = try reader.fetch(FetchRequest(entityName: "Record", sorts: [Sort("n")]))
        let editor = ObjectContext(coordinator: writer.coordinator)
        try editor.existingObject(with: faults[3].objectID)["s"] = .string("edited")
        try editor.save()
        let before = rowCache.lockedFillCount
        #expect(faults[3]["s"] == .string("edited"))
        #expect(faults[4]["s"] == .string("row 4"))
        #expect(rowCache.lockedFillCount == before + 2)
    }

    @Test func aParentsUnsavedChangeAfterAChildsFetchShowsInTheChild() throws {
        let (writer, path) = try writer(records: 10)
        defer { remove(path) }
        let child = ObjectContext(parent: writer, name: "background")
        let (faults, changedID) = try child.performAndWait {
            let faults = try child.fetch(FetchRequest(entityName: "Record", sorts: [Sort("n")]))
            return (faults, faults[2].objectID)
        }
        try writer.performAndWait {
            try writer.existingObject(with: changedID)["s"] = .string("unsaved in the parent")
        }
        child.performAndWait {
            #expect(faults[2]["s"] == .string("unsaved in the parent"))
            #expect(faults[5]["s"] == .string("row 5"))
        }
    }
}
