import Foundation
import Strata
import StrataCore
import StrataTestSupport
import Testing

/// A child context deleting faults of an entity without relationships hands its parent their
/// IDs alone: no store read per deleted object, one read of them all when the child saves, and
/// the parent's checks (deleted there, gone from the store) still turn into conflicts.
@Suite struct ChildDeleteTests {
    static let model = try! Model(
        versionIdentifier: "child-delete",
        entities: [Entity("Note", attributes: [Attribute("text", .string), Attribute("rank", .integer64)])])

    /// A fresh coordinator (empty row cache) on a store of `scheme` holding `count` notes, their IDs.
    private func seeded(_ scheme: String, count: Int, in directory: TemporaryDirectory) throws -> (
        StoreCoordinator, [ObjectID]
    ) {
        let url = directory.storeURL(scheme, name: "notes")
        let seeding = StoreCoordinator(model: Self.model)
        try seeding.addStore(BuiltInBackends.registry.open(url, model: Self.model))
        let writer = ObjectContext(coordinator: seeding)
        let ids = try writer.performAndWait {
            let notes = try (0..<count).map { rank in
                let note = try writer.insert("Note")
                note["text"] = .string("note \(rank)")
                note["rank"] = .integer(Int64(rank))
                return note
            }
            try writer.save()
            return notes.map(\.objectID)
        }
        for store in seeding.stores { try store.close() }
        let coordinator = StoreCoordinator(model: Self.model)
        try coordinator.addStore(BuiltInBackends.registry.open(url, model: Self.model))
        return (coordinator, ids)
    }

    @Test(arguments: ["sqlite", "lmdb"])
    func deletingFaultsReadsTheStoreOnceAtTheChildsSave(_ scheme: String) throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let (coordinator, ids) = try seeded(scheme, count: 20, in: directory)
        let writer = ObjectContext(coordinator: coordinator, name: "writer")
        let child = ObjectContext(parent: writer, name: "background")
        let before = coordinator.storeReadCount
        try child.performAndWait {
            for id in ids.prefix(15) { child.delete(child.object(with: id)) }
            #expect(coordinator.storeReadCount == before, "a delete loads nothing")
            #expect(child.deletedObjects.count == 15)
            try child.save()
        }
        #expect(coordinator.storeReadCount == before + 1, "the parent reads the deleted objects at once")
        try writer.performAndWait {
            #expect(writer.deletedObjects.count == 15)
            try writer.save()
        }
        let left = try ObjectContext(coordinator: coordinator).fetchObjectIDs(FetchRequest(entityName: "Note"))
        #expect(Set(left) == Set(ids.suffix(5)))
    }

    @Test func deletingAFaultTheParentDeletedIsAConflict() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let (coordinator, ids) = try seeded("sqlite", count: 3, in: directory)
        let writer = ObjectContext(coordinator: coordinator, name: "writer")
        let child = ObjectContext(parent: writer, name: "background")
        writer.performAndWait { writer.delete(writer.object(with: ids[0])) }
        let error = #expect(throws: StrataError.self) {
            try child.performAndWait {
                child.delete(child.object(with: ids[0]))
                child.delete(child.object(with: ids[1]))
                try child.save()
            }
        }
        #expect(error?.code == .conflict)
        #expect(error?.conflicts.map(\.objectID) == [ids[0]])
        child.performAndWait { #expect(child.deletedObjects.count == 2, "the failed save changed nothing") }
    }

    @Test func deletingAFaultGoneFromTheStoreIsAConflict() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let (coordinator, ids) = try seeded("sqlite", count: 3, in: directory)
        let other = ObjectContext(coordinator: coordinator)
        try other.performAndWait {
            other.delete(try other.existingObject(with: ids[2]))
            try other.save()
        }
        let writer = ObjectContext(coordinator: coordinator, name: "writer")
        let child = ObjectContext(parent: writer, name: "background")
        let error = #expect(throws: StrataError.self) {
            try child.performAndWait {
                child.delete(child.object(with: ids[2]))
                try child.save()
            }
        }
        #expect(error?.code == .conflict)
        #expect(error?.conflicts.first?.storedSnapshot == nil)
    }

    @Test func rollingBackADeletedFaultBringsItBack() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let (coordinator, ids) = try seeded("sqlite", count: 2, in: directory)
        let writer = ObjectContext(coordinator: coordinator, name: "writer")
        let child = ObjectContext(parent: writer, name: "background")
        try child.performAndWait {
            let note = child.object(with: ids[1])
            child.delete(note)
            #expect(child.hasChanges)
            child.rollback()
            #expect(!child.hasChanges)
            #expect(!note.isDeleted)
            let rank = try note.value(for: "rank", as: Int64.self)
            #expect(rank == 1)
        }
    }
}
