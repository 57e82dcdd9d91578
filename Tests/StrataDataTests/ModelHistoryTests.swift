import Foundation
import StrataData
import StrataTestSupport
import Testing

/// SwiftData's history API on a store's persistent history: transactions with their author,
/// changes typed by model, tombstones, predicates on token and author, and deleting history.
@Suite struct ModelHistoryTests {
    /// The backends whose stores keep history.
    static let backends: [ModelBackend] = ModelBackend.allCases

    /// Runs `body` with a new container of notebooks on `backend`.
    func withNotebooks(_ backend: ModelBackend, _ body: (ModelContainer) throws -> Void) throws {
        try withTemporaryDirectory { directory in
            let container = try ModelContainer(
                for: Notebook.self, configurations: backend.configuration(in: directory, name: "notebooks"))
            try body(container)
        }
    }

    /// Saves a notebook titled `title` in a new context whose author is `author`.
    @discardableResult
    func saveNotebook(_ title: String, by author: String?, in container: ModelContainer) throws -> PersistentIdentifier
    {
        let context = ModelContext(container)
        context.author = author
        let notebook = Notebook(title: title)
        context.insert(notebook)
        try context.save()
        return notebook.persistentModelID
    }

    func history(
        _ container: ModelContainer, _ predicate: Predicate<DefaultHistoryTransaction>? = nil
    ) throws -> [DefaultHistoryTransaction] {
        try ModelContext(container).fetchHistory(HistoryDescriptor(predicate: predicate))
    }

    @Test(arguments: backends)
    func eachSaveIsATransactionWithItsAuthorAndTypedChanges(_ backend: ModelBackend) throws {
        try withNotebooks(backend) { container in
            let id = try saveNotebook("Field notes", by: "importer", in: container)
            let editor = ModelContext(container)
            editor.author = "editor"
            let notebook = try #require(editor.model(for: id) as? Notebook)
            notebook.summary = "birds"
            notebook.cover = .stitched
            let page = Page(number: 1)
            notebook.pages.append(page)
            try editor.save()

            let transactions = try history(container)
            #expect(transactions.map(\.author) == ["importer", "editor"])
            #expect(transactions[0].token < transactions[1].token)
            #expect(transactions[0].transactionIdentifier < transactions[1].transactionIdentifier)
            #expect(transactions.allSatisfy { $0.storeIdentifier == id.storeIdentifier })
            #expect(transactions.allSatisfy { $0.bundleIdentifier.isEmpty && $0.processIdentifier.isEmpty })
            let inserted = transactions[0].changes.compactMap { change -> PersistentIdentifier? in
                guard case .insert(let insert as DefaultHistoryInsert<Notebook>) = change else { return nil }
                return insert.changedPersistentIdentifier
            }
            #expect(inserted == [id])
            let second = transactions[1].changes
            #expect(second.map(\.changedPersistentIdentifier) == [page.persistentModelID, id])
            guard case .insert(let pageInsert) = second[0], case .update(let update) = second[1] else {
                Issue.record("expected the page's insert, then the notebook's update: \(second)")
                return
            }
            #expect(pageInsert is DefaultHistoryInsert<Page>)
            let notebookUpdate = try #require(update as? DefaultHistoryUpdate<Notebook>)
            #expect(notebookUpdate.updatedAttributes == [\Notebook.cover, \Notebook.summary, \Notebook.pages])
            #expect(notebookUpdate.transactionIdentifier == transactions[1].transactionIdentifier)
            #expect(notebookUpdate.value(before: \.summary) == "")
            #expect(notebookUpdate.value(after: \.summary) == "birds")
            #expect(notebookUpdate.value(after: \.title) == nil, "the title did not change")
            #expect(
                notebookUpdate.value(before: \.cover) == .spiral && notebookUpdate.value(after: \.cover) == .stitched)
        }
    }

    @Test(arguments: backends)
    func aPredicateSelectsTransactionsByTokenAndAuthor(_ backend: ModelBackend) throws {
        try withNotebooks(backend) { container in
            try saveNotebook("one", by: "app", in: container)
            try saveNotebook("two", by: "widget", in: container)
            try saveNotebook("three", by: "app", in: container)
            try saveNotebook("four", by: nil, in: container)
            let all = try history(container)
            #expect(all.map(\.author) == ["app", "widget", "app", nil])
            let first = all[0].token
            let third = all[2].token

            #expect(try history(container, #Predicate { $0.token > first }).map(\.token) == all[1...].map(\.token))
            #expect(try history(container, #Predicate { $0.token >= third }).map(\.token) == all[2...].map(\.token))
            #expect(try history(container, #Predicate { $0.token <= third }).map(\.token) == all[...2].map(\.token))
            #expect(try history(container, #Predicate { $0.token == third }).map(\.token) == [third])
            let author = "app"
            #expect(
                try history(container, #Predicate { $0.token > first && $0.author == author }).map(\.token) == [third])
            #expect(
                try history(container, #Predicate { $0.author == "widget" || $0.author == "app" }).count == 3)
            #expect(try history(container, #Predicate { _ in false }).isEmpty)
            let now = Date.now.addingTimeInterval(60)
            #expect(try history(container, #Predicate { $0.timestamp < now }).count == 4)
        }
    }

    @Test(arguments: backends)
    func aLimitAndSortsApplyInTheDescriptorsOrder(_ backend: ModelBackend) throws {
        try withNotebooks(backend) { container in
            for title in ["a", "b", "c"] { try saveNotebook(title, by: title, in: container) }
            var oldest = HistoryDescriptor<DefaultHistoryTransaction>()
            oldest.fetchLimit = 2
            #expect(try ModelContext(container).fetchHistory(oldest).map(\.author) == ["a", "b"])
            var newest = HistoryDescriptor<DefaultHistoryTransaction>(sortBy: [SortDescriptor(\.token, order: .reverse)]
            )
            newest.fetchLimit = 2
            #expect(try ModelContext(container).fetchHistory(newest).map(\.author) == ["c", "b"])
        }
    }

    @Test(arguments: backends)
    func aDeletedModelLeavesItsPreservedValuesInTheTombstone(_ backend: ModelBackend) throws {
        try withNotebooks(backend) { container in
            let context = ModelContext(container)
            let notebook = Notebook(title: "Field notes", cover: .stitched, shelf: 4, summary: "birds")
            notebook.pages = [Page(number: 1)]
            context.insert(notebook)
            try context.save()
            let id = notebook.persistentModelID
            let pageID = notebook.pages[0].persistentModelID
            context.delete(notebook)
            try context.save()

            let deletes = try #require(history(container).last).changes
            let notebookDelete = try #require(
                deletes.lazy.compactMap { change -> DefaultHistoryDelete<Notebook>? in
                    guard case .delete(let delete) = change else { return nil }
                    return delete as? DefaultHistoryDelete<Notebook>
                }.first)
            #expect(notebookDelete.changedPersistentIdentifier == id)
            let tombstone = notebookDelete.tombstone
            #expect(tombstone[\.title] as? String == "Field notes")
            #expect(tombstone[\.shelf] as? Int16 == 4)
            #expect(tombstone[\.cover] as? String == "stitched", "an enumeration gives its raw value")
            #expect(tombstone.value(for: \.cover) == .stitched)
            #expect(tombstone.value(for: \.title) == "Field notes")
            #expect(tombstone[\.summary] == nil, "summary does not preserve its value")
            #expect(tombstone.map(\.keyPath) == [\Notebook.title, \Notebook.cover, \Notebook.shelf])
            let pageDelete = try #require(
                deletes.lazy.compactMap { change -> DefaultHistoryDelete<Page>? in
                    guard case .delete(let delete) = change else { return nil }
                    return delete as? DefaultHistoryDelete<Page>
                }.first)
            #expect(pageDelete.changedPersistentIdentifier == pageID)
            #expect(Array(pageDelete.tombstone).isEmpty)
        }
    }

    @Test(arguments: backends)
    func deletedHistoryExpiresTheTokensBeforeIt(_ backend: ModelBackend) throws {
        try withNotebooks(backend) { container in
            for title in ["a", "b", "c"] { try saveNotebook(title, by: nil, in: container) }
            let tokens = try history(container).map(\.token)
            let (first, second) = (tokens[0], tokens[1])
            let context = ModelContext(container)
            try context.deleteHistory(
                HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token <= second }))

            #expect(try history(container).map(\.token) == [tokens[2]])
            #expect(try history(container, #Predicate { $0.token > second }).map(\.token) == [tokens[2]])
            let error = try #require(throws: StrataError.self) {
                try history(container, #Predicate { $0.token > first })
            }
            #expect(error.code == .historyExpired)
            #expect(error.location["token"] == first.description)

            try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>())
            #expect(try history(container).isEmpty)
            try saveNotebook("d", by: nil, in: container)
            #expect(try history(container).map(\.token).allSatisfy { $0 > tokens[2] })
        }
    }

    @Test(arguments: backends)
    func aConditionHistoryCannotSelectIsATypedError(_ backend: ModelBackend) throws {
        try withNotebooks(backend) { container in
            try saveNotebook("a", by: "app", in: container)
            let notAuthor = try #require(throws: StrataError.self) {
                try history(container, #Predicate { $0.author != "app" })
            }
            #expect(notAuthor.code == .invalidPredicate)
            #expect(notAuthor.location["expression"]?.contains("NotEqual") == true, "\(notAuthor)")
            let changes = try #require(throws: StrataError.self) {
                try history(container, #Predicate { $0.changes.isEmpty })
            }
            #expect(changes.code == .invalidPredicate, "\(changes)")
            let byAuthor = try #require(throws: StrataError.self) {
                try ModelContext(container).deleteHistory(
                    HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.author == "app" }))
            }
            #expect(byAuthor.code == .invalidPredicate)
            #expect(try history(container).count == 1, "nothing was deleted")
        }
    }

    @Test func aStoreWithoutHistoryIsAnUnsupportedError() throws {
        try withTemporaryDirectory { directory in
            let url = try #require(
                URL(string: "sqlite:" + directory.appendingPathComponent("quiet.store").path + "?history=off"))
            let container = try ModelContainer(for: Notebook.self, configurations: ModelConfiguration(url: url))
            try saveNotebook("a", by: "app", in: container)
            let error = try #require(throws: StrataError.self) { try history(container) }
            #expect(error.code == .unsupported, "\(error)")
            let deleting = try #require(throws: StrataError.self) {
                try ModelContext(container).deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>())
            }
            #expect(deleting.code == .unsupported, "\(deleting)")
        }
    }

    @Test func tokensEncodeAsTheirTextAndCompareInCommitOrder() throws {
        try withNotebooks(.memory) { container in
            try saveNotebook("a", by: nil, in: container)
            try saveNotebook("b", by: nil, in: container)
            let tokens = try history(container).map(\.token)
            let data = try JSONEncoder().encode(tokens)
            #expect(try JSONDecoder().decode([DefaultHistoryToken].self, from: data) == tokens)
            #expect(String(decoding: data, as: UTF8.self).contains("\"\(tokens[0].storeIdentifier):1\""))
            #expect(tokens[0] < tokens[1])
            #expect(tokens.map(\.tokenValue) == [1, 2])
            #expect(throws: DecodingError.self) {
                try JSONDecoder().decode([DefaultHistoryToken].self, from: Data("[\"no token\"]".utf8))
            }
        }
    }
}
