import Foundation
import StrataData
import StrataTestSupport
import Testing

/// What a `ModelContext` save asks the stores: a save of inserted models with a unique attribute
/// and no collision reads no more than a save of the same objects by name (no fetch per model
/// for SwiftData's upsert), and a save with collisions still upserts.
@Suite struct ModelSaveShapeTests {
    @Test(arguments: ModelBackend.allCases)
    func insertsWithoutCollisionsAreNotLookedUpOneByOne(_ backend: ModelBackend) throws {
        try withTemporaryDirectory { directory in
            let container = try ModelContainer(
                for: Gadget.self, configurations: backend.configuration(in: directory, name: "gadgets"))
            let context = ModelContext(container)
            context.insert(Gadget(name: "first"))
            try context.save()

            let before = container.coordinator.storeReadCount
            for index in 0..<40 { context.insert(Gadget(name: "gadget \(index)")) }
            try context.save()
            // A store that rejects collisions as it writes is asked nothing; the others once,
            // for every value together (the engine's unique check).
            #expect(container.coordinator.storeReadCount - before <= 1)
            #expect(try context.fetchCount(FetchDescriptor<Gadget>()) == 41)
        }
    }

    @Test(arguments: ModelBackend.allCases)
    func collisionsFoundBySaveUpdateTheStoredModels(_ backend: ModelBackend) throws {
        try withTemporaryDirectory { directory in
            let container = try ModelContainer(
                for: Gadget.self, configurations: backend.configuration(in: directory, name: "gadgets"))
            let context = ModelContext(container)
            for name in ["lamp", "desk", "chair"] { context.insert(Gadget(name: name)) }
            try context.save()

            let lamp = Gadget(name: "lamp")
            lamp.rank = 9
            let shelf = Gadget(name: "shelf")
            shelf.rank = 5
            context.insert(lamp)
            context.insert(shelf)
            try context.save()
            #expect(!context.hasChanges)

            let reader = ModelContext(container)
            let gadgets = try reader.fetch(FetchDescriptor<Gadget>(sortBy: [SortDescriptor(\.name)]))
            #expect(gadgets.map(\.name) == ["chair", "desk", "lamp", "shelf"])
            #expect(gadgets.map(\.rank) == [3, 3, 9, 5])
            #expect(lamp.persistentModelID == gadgets[2].persistentModelID)
        }
    }

    @Test(arguments: ModelBackend.allCases)
    func aCollisionWithinTheContextStillFailsTheSave(_ backend: ModelBackend) throws {
        try withTemporaryDirectory { directory in
            let container = try ModelContainer(
                for: Gadget.self, configurations: backend.configuration(in: directory, name: "gadgets"))
            let context = ModelContext(container)
            context.insert(Gadget(name: "lamp"))
            context.insert(Gadget(name: "lamp"))
            let error = try #require(throws: StrataError.self) { try context.save() }
            #expect(error.code == .validationFailed)
            #expect(context.hasChanges)
            #expect(try ModelContext(container).fetchCount(FetchDescriptor<Gadget>()) == 0)
        }
    }
}
