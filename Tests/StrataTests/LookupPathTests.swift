import Foundation
import Strata
import Testing

/// The fast paths of lookups by ID and of fetched results: a context keeps the route of the
/// last scope it looked up, the in-memory store finds tables by a pre-hashed name, and fetched
/// results index their objects directly or keep their two latest batches.
@Suite struct LookupPathTests {
    /// Two entities, each in its own in-memory store (model configurations).
    private func twoStoreContext() throws -> ObjectContext {
        let model = try Model(
            versionIdentifier: "two",
            entities: [
                Entity("Note", attributes: [Attribute("text", .string)]),
                Entity("Tag", attributes: [Attribute("label", .string)]),
            ], configurations: ["Notes": ["Note"], "Tags": ["Tag"]])
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addStore(BuiltInBackends.registry.open("memory:", model: model), configuration: "Notes")
        try coordinator.addStore(BuiltInBackends.registry.open("memory:", model: model), configuration: "Tags")
        return ObjectContext(coordinator: coordinator)
    }

    @Test func faultsAlternatingBetweenTwoStoresEachFillFromTheirOwnStore() throws {
        let writer = try twoStoreContext()
        var noteObjects: [ManagedObject] = []
        var tagObjects: [ManagedObject] = []
        for i in 0..<20 {
            let note = try writer.insert("Note")
            note["text"] = .string("note \(i)")
            let tag = try writer.insert("Tag")
            tag["label"] = .string("tag \(i)")
            noteObjects.append(note)
            tagObjects.append(tag)
        }
        try writer.save()
        let notes = noteObjects.map(\.objectID)
        let tags = tagObjects.map(\.objectID)
        let notesStore = try writer.coordinator.store(for: "Note")
        let tagsStore = try writer.coordinator.store(for: "Tag")
        #expect(notesStore !== tagsStore)
        #expect(notes.allSatisfy { $0.storeIdentifier == notesStore.identifier })
        #expect(tags.allSatisfy { $0.storeIdentifier == tagsStore.identifier })

        // A new context on the same coordinator: every object starts as a fault, and the
        // lookups alternate between the two scopes (each switch replaces the kept route).
        let reader = ObjectContext(coordinator: writer.coordinator)
        for i in 0..<20 {
            let note = reader.object(with: notes[i])
            let tag = reader.object(with: tags[i])
            #expect(note.isFault && tag.isFault)
            #expect(note["text"] == .string("note \(i)"))
            #expect(tag["label"] == .string("tag \(i)"))
        }
        // An ID of one entity with the other store's identifier is found in neither.
        let stray = ObjectID(
            entityName: "Note", storeIdentifier: tagsStore.identifier, primaryKey: notes[0].primaryKey!)
        #expect(throws: StrataError.self) { try reader.existingObject(with: stray) }
        #expect(try reader.existingObject(with: notes[3])["text"] == .string("note 3"))
    }

    @Test func batchedResultsReadInAnyOrderGiveTheObjectOfEachIDAndKeepTwoBatches() throws {
        let context = try twoStoreContext()
        for i in 0..<1_000 { try context.insert("Note")["text"] = .string("n\(i)") }
        try context.save()
        let reader = ObjectContext(coordinator: context.coordinator)
        var request = FetchRequest(entityName: "Note", sorts: [Sort("text")])
        request.batchSize = 100
        let results = try reader.fetch(request)
        #expect(results.count == 1_000)
        // Forward, backward, and jumping between two batches: each position gives the object
        // of its ID, and a batch still held gives the same instance again.
        do {
            let first = results[5]
            let farther = results[950]
            #expect(results[5] === first, "batch 0 is one of the two kept")
            #expect(results[950] === farther)
        }
        for index in stride(from: 999, through: 0, by: -37) {
            #expect(results[index].objectID == results.objectIDs[index])
        }
        for index in [0, 999, 1, 998, 500, 499, 100, 99] {
            #expect(results[index].objectID == results.objectIDs[index])
        }
        let texts = results.map { object -> String in
            guard case .string(let text) = object["text"] else { return "" }
            return text
        }
        #expect(texts == texts.sorted())
        #expect(Set(texts).count == 1_000)
        // Bounded: after a full pass at most two batches of objects are registered and held.
        _ = results.last
        #expect(reader.registeredObjects.count <= 200)
    }

    @Test func unbatchedResultsHoldEveryObjectInOrder() throws {
        let context = try twoStoreContext()
        for i in 0..<300 { try context.insert("Tag")["label"] = .string(String(format: "t%03d", i)) }
        try context.save()
        let reader = ObjectContext(coordinator: context.coordinator)
        let results = try reader.fetch(
            FetchRequest(entityName: "Tag", sorts: [Sort("label")]),
            options: FetchOptions(returnsObjectsAsFaults: false))
        #expect(results.count == 300)
        #expect(results.map(\.objectID) == results.objectIDs)
        #expect(results.allSatisfy { !$0.isFault })
        #expect(results[299]["label"] == .string("t299"))
        #expect(reader.registeredObjects.count == 300, "the results hold every object")
        #expect(reader.object(with: results.objectIDs[42]) === results[42])
    }

    /// New objects wait in the change set, not the registry, until their save: every way of
    /// finding one must still give the one instance, before and after the save, in a root
    /// context and in a child.
    @Test func insertedObjectsAreFoundAsOneInstanceBeforeAndAfterTheirSave() throws {
        let context = try twoStoreContext()
        let note = try context.insert("Note")
        note["text"] = "draft"
        let temporary = note.objectID
        #expect(temporary.isTemporary)
        #expect(context.object(with: temporary) === note)
        #expect(context.registeredObject(for: temporary) === note)
        #expect(try context.existingObject(with: temporary) === note)
        #expect(context.registeredObjects.contains { $0 === note })
        #expect(context.registeredObjects.count == 1)
        #expect(try context.fetch(FetchRequest(entityName: "Note")).map { $0 } == [note])

        try context.save()
        let permanent = note.objectID
        #expect(!permanent.isTemporary)
        #expect(context.object(with: permanent) === note)
        #expect(context.registeredObject(for: permanent) === note)
        #expect(context.registeredObject(for: temporary) == nil)
        #expect(context.registeredObjects.contains { $0 === note })
        #expect(try context.fetch(FetchRequest(entityName: "Note"))[0] === note)

        // Obtained early: the object is found by its permanent ID while still inserted, and
        // after its save.
        let early = try context.insert("Note")
        early["text"] = "early"
        try context.obtainPermanentIDs(for: [early])
        #expect(early.isInserted && !early.objectID.isTemporary)
        #expect(context.object(with: early.objectID) === early)
        try context.save()
        #expect(context.object(with: early.objectID) === early)
        #expect(context.registeredObjects.filter { $0 === early }.count == 1)

        // A child's save pushes its inserts into the parent; the child keeps its instance.
        let child = ObjectContext(parent: context)
        let tag = try child.insert("Tag")
        tag["label"] = "child"
        try child.save()
        #expect(!tag.isInserted)
        #expect(child.object(with: tag.objectID) === tag)
        #expect(child.registeredObjects.contains { $0 === tag })
        try context.save()

        // Rolled back or reset, an inserted object is gone from every lookup.
        let dropped = try context.insert("Note")
        let droppedID = dropped.objectID
        context.rollback()
        #expect(context.registeredObject(for: droppedID) == nil)
        #expect(!context.registeredObjects.contains { $0 === dropped })
        let forgotten = try context.insert("Note")
        context.reset()
        #expect(context.registeredObject(for: forgotten.objectID) == nil)
        #expect(context.registeredObjects.isEmpty)
    }
}
