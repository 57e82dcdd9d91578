import Foundation
import Strata
import StrataTestSupport
import Testing

/// Background contexts and tasks on both stacks: what they save reaches the stores, and the
/// view context sees it.
@Suite struct ContainerBackgroundTests {
    private func loaded(_ style: ContainerStackStyle) async throws -> (PersistentContainer, StoreURL) {
        let url = try StoreURL.parse("sqlite:\(TemporaryDirectory().url.appendingPathComponent("bg.sqlite").path)")
        let container = PersistentContainer(
            name: "Notes", model: NotesModel.v2, storeDescriptions: [StoreDescription(url: url)], stack: style,
            environment: [:])
        try await container.loadPersistentStores()
        return (container, url)
    }

    private func viewTexts(_ container: PersistentContainer) async throws -> [String] {
        try await container.viewContext.perform {
            try container.viewContext.fetch(FetchRequest(entityName: "Note", sorts: [Sort("text")])).compactMap {
                note -> String? in if case .string(let text) = note["text"] { text } else { nil }
            }
        }
    }

    @Test(arguments: ContainerStackStyle.allCases)
    func aBackgroundTaskSavesToTheStoreAndTheViewContextSeesIt(style: ContainerStackStyle) async throws {
        let (container, url) = try await loaded(style)
        #expect(container.viewContext.concurrencyType == .mainQueue)
        #expect((container.viewContext.parent === container.stack.root) == (style == .threeTier))
        #expect(try await viewTexts(container).isEmpty)
        try await container.performBackgroundTask { context in
            try context.insert("Note")["text"] = "from the background"
            try context.save()
        }
        #expect(try await viewTexts(container) == ["from the background"])

        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            container.performBackgroundTask(
                { context in
                    try context.insert("Note")["text"] = "completion form"
                    try context.save()
                },
                completion: { error in
                    #expect(error == nil)
                    continuation.resume()
                })
        }
        #expect(try await viewTexts(container) == ["completion form", "from the background"])
        try container.closeStores()
        #expect(try countInStore(url, model: NotesModel.v2, entity: "Note") == 2)
    }

    @Test func aFailingBackgroundTaskReportsItsErrorAndSavesNothing() async throws {
        let (container, url) = try await loaded(.threeTier)
        await #expect(throws: StrataError.self) {
            try await container.performBackgroundTask { context in
                _ = try context.insert("Nobody")
            }
        }
        let reported = await withCheckedContinuation { (continuation: CheckedContinuation<(any Error)?, Never>) in
            container.performBackgroundTask(
                { context in _ = try context.insert("Nobody") }, completion: { continuation.resume(returning: $0) })
        }
        #expect((reported as? StrataError)?.code == .unknownEntity)
        try container.closeStores()
        #expect(try countInStore(url, model: NotesModel.v2, entity: "Note") == 0)
    }

    @Test func closingTheStoresReturnsTheContainerToNotLoadedAndItLoadsAgain() async throws {
        let (container, _) = try await loaded(.threeTier)
        try await container.performBackgroundTask { context in
            try context.insert("Note")["text"] = "kept"
            try context.save()
        }
        try container.closeStores()
        #expect(container.state == .notLoaded && container.loadedStores.isEmpty)
        try await container.loadPersistentStores()
        let count = try await container.performBackgroundTask { context in
            try context.count(FetchRequest(entityName: "Note"))
        }
        #expect(count == 1)
    }
}
