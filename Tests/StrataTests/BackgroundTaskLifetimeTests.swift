import Foundation
import Strata
import StrataCore
import StrataTestSupport
import Testing

/// What the default container's background task keeps alive while the writer saves.
@Suite struct BackgroundTaskLifetimeTests {
    /// The default container's background task lets its context go before the writer saves:
    /// the writer's save has no child left to rename the pushed objects in.
    @Test func aBackgroundTaskContextIsGoneWhenTheWriterSaves() async throws {
        let url = try StoreURL.parse("sqlite:\(TemporaryDirectory().url.appendingPathComponent("bg.sqlite").path)")
        let container = PersistentContainer(
            name: "Notes", model: NotesModel.v2, storeDescriptions: [StoreDescription(url: url)], environment: [:])
        try await container.loadPersistentStores()
        defer { try? container.closeStores() }
        final class WeakBox: @unchecked Sendable { weak var context: ObjectContext? }
        let box = WeakBox()
        let aliveAtWriterSave = Locked<[Bool]>([])
        let writer = container.stack.root
        let observer = NotificationCenter.default.addObserver(
            forName: ObjectContext.didSaveNotification, object: writer, queue: nil
        ) { _ in aliveAtWriterSave.withLock { $0.append(box.context != nil) } }
        defer { NotificationCenter.default.removeObserver(observer) }

        let id = try await container.performBackgroundTask { context in
            box.context = context
            for index in 0..<200 { try context.insert("Note")["text"] = .string("note \(index)") }
            try context.save()
            return try context.fetchObjectIDs(FetchRequest(entityName: "Note", sorts: [Sort("text")]))[0]
        }
        #expect(aliveAtWriterSave.withLock { $0 } == [false])
        #expect(id.isTemporary, "pushed, not yet saved, when the block returned")
        let texts = try await container.viewContext.perform {
            try container.viewContext.fetch(FetchRequest(entityName: "Note")).count
        }
        #expect(texts == 200)
    }
}
