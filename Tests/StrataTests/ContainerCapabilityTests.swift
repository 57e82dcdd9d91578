import Foundation
import Strata
import StrataTestSupport
import Testing

/// A store behind a container keeps its capabilities: the container's store forwards
/// `capability(_:)` to the loaded store, and the coordinator decides again when a store loads.
@Suite struct ContainerCapabilityTests {
    private func memoryContainer() throws -> PersistentContainer {
        let description = try StoreDescription("memory:caps-\(UUID().uuidString)")
        return PersistentContainer(
            name: "Notes", model: NotesModel.v2, storeDescriptions: [description], environment: [:])
    }

    private func insertNotes(_ count: Int, into container: PersistentContainer) async throws {
        try await container.performBackgroundTask { context in
            for i in 0..<count { try context.insert("Note")["text"] = .string("note \(i)") }
            try context.save()
        }
    }

    @Test func aMemoryStoreBehindAContainerOffersItsCapabilitiesOnceLoaded() async throws {
        let container = try memoryContainer()
        let store = try container.coordinator.store(for: "Note")
        #expect(store.capability((any BatchOperating).self) == nil, "nothing is loaded yet")
        #expect(store.capability((any SnapshotServing).self) == nil, "nothing is loaded yet")

        try await container.loadPersistentStores()
        let loaded = try #require(container.loadedStores.first)
        #expect(store !== loaded, "the coordinator routes to the container's own store, not the loaded one")
        #expect(!(store is any BatchOperating), "a cast sees only the container's store")
        #expect(store.capability((any BatchOperating).self) != nil)
        #expect(store.capability((any SnapshotServing).self) != nil)
        #expect(store.capability((any KeyPreservingStore).self) != nil)
    }

    @Test func batchDeleteWorksThroughTheContainer() async throws {
        let container = try memoryContainer()
        try await container.loadPersistentStores()
        try await insertNotes(5, into: container)
        let batch = try #require(try container.coordinator.store(for: "Note").capability((any BatchOperating).self))
        let predicate = try ObjectPredicate(format: "text IN %@", ["note 1", "note 3"])
        let deleted = try batch.batchDelete(entityName: "Note", predicate: predicate)
        #expect(deleted.objectIDs.count == 2)
        let left = try await container.performBackgroundTask { context in
            try context.fetch(FetchRequest(entityName: "Note", sorts: [Sort("text")])).map { $0["text"] }
        }
        #expect(left == [.string("note 0"), .string("note 2"), .string("note 4")])
    }

    @Test func aMemoryStoreBehindAContainerGetsNoRowCache() async throws {
        let container = try memoryContainer()
        try await container.loadPersistentStores()
        try await insertNotes(20, into: container)
        let texts = try await container.performBackgroundTask { context in
            let notes = try context.fetch(FetchRequest(entityName: "Note"))
            let reader = container.newBackgroundContext()
            return try reader.performAndWait { try notes.map { try reader.existingObject(with: $0.objectID)["text"] } }
        }
        #expect(texts.count == 20)
        #expect(container.coordinator.cachedSnapshotCount == 0, "the in-memory store answers lookups itself")
    }

    @Test func aDiskStoreBehindAContainerKeepsItsRowCacheUntilItIsClosed() async throws {
        let dir = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: dir) }
        let container = PersistentContainer(
            name: "Notes", model: NotesModel.v2,
            storeDescriptions: [
                try StoreDescription("sqlite:\(dir.appendingPathComponent("notes.sqlite").path)")
            ], environment: [:])
        try await container.loadPersistentStores()
        try await insertNotes(20, into: container)
        let store = try container.coordinator.store(for: "Note")
        #expect(store.capability((any SnapshotServing).self) == nil)
        #expect(store.capability((any BatchOperating).self) != nil, "the SQLite store's batch operations")
        #expect(container.coordinator.cachedSnapshotCount == 20)

        try container.closeStores()
        #expect(container.coordinator.cachedSnapshotCount == 0, "rows of a closed store are forgotten")
        #expect(store.capability((any BatchOperating).self) == nil)

        try await container.loadPersistentStores()
        let count = try await container.performBackgroundTask { try $0.count(FetchRequest(entityName: "Note")) }
        #expect(count == 20)
    }

    @Test func reloadingAMemoryContainerServesLookupsFromTheNewStore() async throws {
        let container = try memoryContainer()
        try await container.loadPersistentStores()
        try await insertNotes(3, into: container)
        try container.closeStores()
        try await container.loadPersistentStores()
        try await insertNotes(2, into: container)
        let texts = try await container.performBackgroundTask { context in
            try context.fetch(FetchRequest(entityName: "Note", sorts: [Sort("text")])).map { $0["text"] }
        }
        #expect(texts.count == 5, "a named memory store keeps its data across close and reopen")
        #expect(container.coordinator.cachedSnapshotCount == 0)
    }
}
