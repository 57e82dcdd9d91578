import Foundation
import Strata
import StrataTestSupport
import Testing

/// Waits until `condition` holds, looking every few milliseconds; `false` when it still does
/// not after `limit` (a bound against a hang, not a measured time).
func eventually(within limit: Duration = .seconds(30), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return try await condition()
}

/// Two containers on one store, as two processes would be: each notices the other's saves,
/// tells its observers (notification and sequence), never its own saves, and merges them into
/// its view context when asked to.
@Suite struct RemoteChangeContainerTests {
    static let model = SharedStorePair.model

    private func containers(
        _ style: ContainerStackStyle = .threeTier, url: String = "memory:remote-\(UUID().uuidString)"
    ) async throws -> (PersistentContainer, PersistentContainer) {
        func make(_ name: String) async throws -> PersistentContainer {
            let container = PersistentContainer(
                name: name, model: Self.model, storeDescriptions: [try StoreDescription(url)], stack: style,
                environment: [:])
            container.remoteChangePollInterval = .milliseconds(1)
            container.viewContext.automaticallyMergesRemoteChanges = true
            try await container.loadPersistentStores()
            return container
        }
        return (try await make("first"), try await make("second"))
    }

    /// Saves a note with `text` through a background task of `container`; returns its ID.
    private func insertNote(_ text: String, in container: PersistentContainer) async throws -> ObjectID {
        try await container.performBackgroundTask { context in
            let note = try context.insert("Note")
            note["text"] = .string(text)
            note["rank"] = .integer(0)
            try context.obtainPermanentIDs(for: [note])
            try context.save()
            return note.objectID
        }
    }

    private func text(of id: ObjectID, in context: ObjectContext) async throws -> String? {
        try await context.perform {
            guard let object = try? context.existingObject(with: id), case .string(let text) = object["text"] else {
                return nil
            }
            return text
        }
    }

    @Test(arguments: ContainerStackStyle.allCases)
    func eachContainerMergesTheOthersSavesIntoItsViewContext(style: ContainerStackStyle) async throws {
        let (first, second) = try await containers(style)
        let id = try await insertNote("from the first", in: first)
        #expect(try await eventually { try await text(of: id, in: second.viewContext) == "from the first" })
        // A loaded object in the second view context follows an update made through the first.
        let view = second.viewContext
        try await view.perform { _ = try view.existingObject(with: id) }
        try await first.performBackgroundTask { context in
            try context.existingObject(with: id)["text"] = .string("updated by the first")
            try context.save()
        }
        let merged = try await eventually {
            try await view.perform { view.registeredObject(for: id)?["text"] } == .string("updated by the first")
        }
        #expect(merged)
        // And the other way round, with a delete.
        let back = try await insertNote("from the second", in: second)
        #expect(try await eventually { try await text(of: back, in: first.viewContext) == "from the second" })
        try await second.performBackgroundTask { context in
            context.delete(try context.existingObject(with: id))
            try context.save()
        }
        let firstView = first.viewContext
        #expect(try await eventually { try await firstView.perform { firstView.registeredObject(for: id) == nil } })
    }

    @Test func theSequenceAndTheNotificationCarryOnlyTheOthersTransactions() async throws {
        let (first, second) = try await containers()
        let posted = Collector<RemoteChange>()
        let observer = NotificationCenter.default.addObserver(
            forName: PersistentContainer.remoteChangeNotification, object: first, queue: nil
        ) { note in
            if let change = note.userInfo?[PersistentContainer.remoteChangeKey] as? RemoteChange {
                posted.append(change)
            }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        var changes = first.remoteChanges().makeAsyncIterator()
        let own = try await insertNote("own", in: first)
        let theirs = try await insertNote("theirs", in: second)
        let change = try #require(await changes.next())
        #expect(change.changes.inserted == [theirs])
        #expect(!change.changes.inserted.contains(own))
        #expect(change.transactions.count == 1)
        #expect(await eventually { !posted.values.isEmpty })
        #expect(posted.values.first == change)
    }

    @Test func aContainerThatDoesNotMergeStillDropsStaleCachedRows() async throws {
        let (first, second) = try await containers()
        first.viewContext.automaticallyMergesRemoteChanges = false
        let id = try await insertNote("before", in: first)
        var changes = first.remoteChanges().makeAsyncIterator()
        try await second.performBackgroundTask { context in
            try context.existingObject(with: id)["text"] = .string("after")
            try context.save()
        }
        _ = await changes.next()
        // A context that holds no object of its own reads through the row cache.
        let reader = ObjectContext(coordinator: first.coordinator)
        #expect(try await text(of: id, in: reader) == "after")
    }

    @Test func anExpiredEventRefreshesTheViewContextAndItsParent() async throws {
        let url = "memory:remote-\(UUID().uuidString)"
        let container = PersistentContainer(
            name: "expired", model: Self.model, storeDescriptions: [try StoreDescription(url)], environment: [:])
        container.remoteChangePollInterval = nil
        container.viewContext.automaticallyMergesRemoteChanges = true
        try await container.loadPersistentStores()
        let kept = try await insertNote("kept", in: container)
        let gone = try await insertNote("gone", in: container)
        let view = container.viewContext
        // Held, so the view context keeps them registered (it releases objects nobody holds).
        let held = HeldObjects()
        try await view.perform {
            held.objects = [try view.existingObject(with: kept), try view.existingObject(with: gone)]
        }
        // Another writer changes both; the container only hears that the history expired.
        let other = StoreCoordinator(model: Self.model)
        try other.addStore(BuiltInBackends.registry.open(try StoreURL.parse(url), model: Self.model))
        let writer = ObjectContext(coordinator: other)
        try writer.existingObject(with: kept)["text"] = .string("changed elsewhere")
        writer.delete(try writer.existingObject(with: gone))
        try writer.save()
        let token = try #require(try other.lastHistoryToken())
        container.deliver(
            RemoteChange(storeURL: try StoreURL.parse(url), token: token, transactions: [], isHistoryExpired: true))
        #expect(
            try await eventually {
                try await view.perform {
                    view.registeredObject(for: kept)?["text"] == .string("changed elsewhere")
                        && view.registeredObject(for: gone) == nil
                }
            })
        try await view.perform {
            #expect(held.objects[0]["text"] == .string("changed elsewhere"))
            #expect(held.objects[1].context == nil)
        }
    }

    @Test func watchingIsOffWithoutAPollInterval() async throws {
        let url = "memory:remote-\(UUID().uuidString)"
        let container = PersistentContainer(
            name: "quiet", model: Self.model, storeDescriptions: [try StoreDescription(url)], environment: [:])
        container.remoteChangePollInterval = nil
        try await container.loadPersistentStores()
        #expect(container.watchedStoreCount == 0)
        container.remoteChangePollInterval = .milliseconds(5)
        try container.closeStores()
        try await container.loadPersistentStores()
        #expect(container.watchedStoreCount == 1)
        try container.closeStores()
        #expect(container.watchedStoreCount == 0)
    }
}

/// Objects a test keeps alive across perform blocks of their context's queue (used only there).
private final class HeldObjects: @unchecked Sendable {
    var objects: [ManagedObject] = []
}
