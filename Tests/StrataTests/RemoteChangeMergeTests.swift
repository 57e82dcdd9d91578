import Foundation
import Strata
import StrataTestSupport
import Testing

/// Merging other writers' saves into a context (``ObjectContext/mergeRemoteChanges(_:)``): loaded
/// objects take the new state, keeping their unsaved edits as the merge policy says; deleted
/// ones leave; a change that says the history expired refreshes everything.
@Suite struct RemoteChangeMergeTests {
    /// A context on the watched coordinator holding a loaded note, and a remote change that
    /// the other coordinator made to it with `edit`.
    private func remoteEdit(
        policy: MergePolicy = .error, localValues: [String: Value] = [:],
        _ edit: (ManagedObject, ObjectContext) -> Void
    ) throws -> (context: ObjectContext, note: ManagedObject, change: RemoteChange) {
        let pair = try SharedStorePair()
        let watcher = try pair.watcher()
        defer { watcher.stop() }
        let id = try #require(try SharedStorePair.insert(1, through: pair.watched).first)
        let context = ObjectContext(coordinator: pair.watched)
        context.mergePolicy = policy
        let note = try context.existingObject(with: id)
        for (name, value) in localValues { note[name] = value }
        let writer = ObjectContext(coordinator: pair.other)
        edit(try writer.existingObject(with: id), writer)
        try writer.save()
        return (context, note, try #require(try watcher.poll()))
    }

    @Test func aLoadedObjectTakesTheRemoteState() throws {
        let (context, note, change) = try remoteEdit { note, _ in note["text"] = .string("remote") }
        try context.mergeRemoteChanges(change)
        #expect(note["text"] == .string("remote"))
        #expect(!context.hasChanges)
    }

    @Test func unsavedEditsStayOnTopAndSaveWithoutConflict() throws {
        let (context, note, change) = try remoteEdit(localValues: ["rank": .integer(42)]) { note, _ in
            note["text"] = .string("remote")
        }
        try context.mergeRemoteChanges(change)
        #expect(note["text"] == .string("remote"))
        #expect(note["rank"] == .integer(42))
        try context.save()
        let check = ObjectContext(coordinator: context.coordinator)
        let stored = try check.existingObject(with: note.objectID)
        #expect(stored["text"] == .string("remote") && stored["rank"] == .integer(42))
    }

    @Test func underStoreTrumpTheRemoteValueWinsWhereBothChanged() throws {
        let (context, note, change) = try remoteEdit(
            policy: .mergeByPropertyStoreTrump,
            localValues: ["text": .string("local"), "rank": .integer(42)]
        ) { note, _ in note["text"] = .string("remote") }
        try context.mergeRemoteChanges(change)
        #expect(note["text"] == .string("remote"))
        #expect(note["rank"] == .integer(42))
    }

    @Test func underObjectTrumpTheLocalEditStays() throws {
        let (context, note, change) = try remoteEdit(
            policy: .mergeByPropertyObjectTrump, localValues: ["text": .string("local")]
        ) { note, _ in note["text"] = .string("remote") }
        try context.mergeRemoteChanges(change)
        #expect(note["text"] == .string("local"))
    }

    @Test func underRollbackTheLocalEditsAreDropped() throws {
        let (context, note, change) = try remoteEdit(
            policy: .rollback, localValues: ["rank": .integer(42)]
        ) { note, _ in note["text"] = .string("remote") }
        try context.mergeRemoteChanges(change)
        #expect(note["text"] == .string("remote"))
        #expect(note["rank"] == .integer(0))
        #expect(!context.hasChanges)
    }

    @Test func aRemotelyDeletedObjectLeavesTheContext() throws {
        let (context, note, change) = try remoteEdit { note, writer in writer.delete(note) }
        let id = note.objectID
        try context.mergeRemoteChanges(change)
        #expect(context.registeredObject(for: id) == nil)
        #expect(note.context == nil)
        #expect(throws: StrataError.self) { try context.existingObject(with: id) }
    }

    @Test func theMergeIsAnnouncedWithInsertedUpdatedAndDeletedIDs() throws {
        let pair = try SharedStorePair()
        let watcher = try pair.watcher()
        defer { watcher.stop() }
        let ids = try SharedStorePair.insert(2, through: pair.watched)
        let context = ObjectContext(coordinator: pair.watched)
        let kept = try context.existingObject(with: ids[0])
        _ = try context.existingObject(with: ids[1])
        let writer = ObjectContext(coordinator: pair.other)
        try writer.existingObject(with: ids[0])["text"] = .string("remote")
        writer.delete(try writer.existingObject(with: ids[1]))
        let added = try writer.insert("Note")
        added["text"] = .string("new")
        try writer.save()
        let change = try #require(try watcher.poll())
        let announced = Collector<ContextChanges>()
        let observer = NotificationCenter.default.addObserver(
            forName: ObjectContext.objectsDidChangeNotification, object: context, queue: nil
        ) { note in
            if let changes = note.userInfo?[ObjectContext.changesKey] as? ContextChanges { announced.append(changes) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try context.mergeRemoteChanges(change)
        #expect(announced.values == [ContextChanges(inserted: [added.objectID], updated: [ids[0]], deleted: [ids[1]])])
        #expect(kept["text"] == .string("remote"))
        #expect(try context.existingObject(with: added.objectID)["text"] == .string("new"))
    }

    @Test func anObjectReadBetweenItsRemoteInsertAndUpdateIsRefreshed() throws {
        let pair = try SharedStorePair()
        let watcher = try pair.watcher()
        defer { watcher.stop() }
        let id = try #require(try SharedStorePair.insert(1, through: pair.other).first)
        // Read here before the watcher saw the insert: it comes in one change with the update.
        let context = ObjectContext(coordinator: pair.watched)
        let note = try context.existingObject(with: id)
        let writer = ObjectContext(coordinator: pair.other)
        try writer.existingObject(with: id)["text"] = .string("updated")
        try writer.save()
        let change = try #require(try watcher.poll())
        #expect(change.changes == ContextChanges(inserted: [id]))
        try context.mergeRemoteChanges(change)
        #expect(note["text"] == .string("updated"))
    }

    @Test func anExpiredHistoryRefreshesEveryLoadedObject() throws {
        let pair = try SharedStorePair()
        let watcher = try pair.watcher()
        defer { watcher.stop() }
        let ids = try SharedStorePair.insert(2, through: pair.watched)
        let context = ObjectContext(coordinator: pair.watched)
        let first = try context.existingObject(with: ids[0])
        let second = try context.existingObject(with: ids[1])
        let writer = ObjectContext(coordinator: pair.other)
        try writer.existingObject(with: ids[0])["text"] = .string("remote")
        writer.delete(try writer.existingObject(with: ids[1]))
        try writer.save()
        try pair.watchedStore.pruneHistory(.through(try #require(try pair.watchedStore.lastHistoryToken())))
        let change = try #require(try watcher.poll())
        #expect(change.isHistoryExpired)
        try context.mergeRemoteChanges(change)
        #expect(first["text"] == .string("remote"))
        #expect(context.registeredObject(for: ids[1]) == nil)
        #expect(second.context == nil)
    }

    @Test func aChildTakesTheStateItsParentMerged() throws {
        let pair = try SharedStorePair()
        let watcher = try pair.watcher()
        defer { watcher.stop() }
        let id = try #require(try SharedStorePair.insert(1, through: pair.watched).first)
        let root = ObjectContext(coordinator: pair.watched, name: "writer")
        let view = ObjectContext(parent: root, name: "view")
        let inRoot = try root.performAndWait { try root.existingObject(with: id) }
        let inView = try view.performAndWait { try view.existingObject(with: id) }
        let writer = ObjectContext(coordinator: pair.other)
        try writer.existingObject(with: id)["text"] = .string("remote")
        try writer.save()
        let change = try #require(try watcher.poll())
        try root.performAndWait { try root.mergeRemoteChanges(change) }
        try view.performAndWait { try view.mergeRemoteChanges(change) }
        #expect(root.performAndWait { inRoot["text"] } == .string("remote"))
        #expect(view.performAndWait { inView["text"] } == .string("remote"))
    }
}
