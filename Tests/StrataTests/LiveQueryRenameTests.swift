import Foundation
import Strata
import StrataCore
import StrataEngine
import StrataRandomGraph
import StrataTestSupport
import Testing

/// A saved insert keeps its row in a live query: its temporary ID becoming permanent is a rename
/// at its position, not a deletion and an insertion, for the asynchronous sequence and for a
/// fetched-results controller alike.
@Suite struct LiveQueryRenameTests {
    static let model = RandomGraphModel.make("live-rename")

    /// Records a controller's changes as text.
    final class Recorder: FetchedResultsControllerDelegate {
        var changes: [String] = []
        func controller(
            _ controller: FetchedResultsController, didChange objectID: ObjectID, at index: Int?,
            for type: FetchedResultsChangeType, newIndex: Int?
        ) { changes.append("\(type) \(objectID) \(index.map(String.init) ?? "-") \(newIndex.map(String.init) ?? "-")") }
    }

    /// A context on a new store of `scheme` with employees of keys 0, 2 and 4, saved.
    static func seeded(_ scheme: String, in directory: TemporaryDirectory) throws -> ObjectContext {
        let url = StoreURL(scheme: scheme, location: scheme == "memory" ? "" : directory.file("rename.\(scheme)"))
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addStore(BuiltInBackends.registry.open(url, model: model))
        let context = ObjectContext(coordinator: coordinator)
        var random = SeededGenerator(seed: 1)
        for key in [0, 2, 4] { try RandomGraphChanges.insertEmployee(context, key: Int64(key), random: &random) }
        try context.save()
        return context
    }

    /// Inserts an employee of key `key` into `context`, with the other attributes at fixed values.
    static func insertEmployee(_ context: ObjectContext, key: Int64) throws {
        let employee = try context.insert("Employee")
        employee["key"] = .integer(key)
        employee["name"] = .string("ann")
        employee["rank"] = .integer(0)
        employee["score"] = .double(0)
    }

    @Test(arguments: ["memory", "sqlite", "lmdb"])
    func aSavedInsertIsRenamedInPlace(_ scheme: String) throws {
        let directory = TemporaryDirectory()
        let context = try Self.seeded(scheme, in: directory)
        let request = FetchRequest(entityName: "Employee", sorts: [Sort("key")])
        let results = try context.liveResults(for: request).makeAsyncIterator()
        let first = try #require(try results.nextIfReady())
        #expect(first.objectIDs.count == 3)

        var random = SeededGenerator(seed: 2)
        try RandomGraphChanges.insertEmployee(context, key: 1, random: &random)
        context.processPendingChanges()
        let inserted = try #require(try results.nextIfReady())
        let temporary = inserted.objectIDs[1]
        #expect(temporary.isTemporary)
        #expect(inserted.diff.inserted == [LiveDiff.Change(objectID: temporary, index: 1)])

        try context.save()
        let saved = try #require(try results.nextIfReady())
        let permanent = saved.objectIDs[1]
        #expect(!permanent.isTemporary)
        #expect(saved.diff.renamed == [LiveDiff.Rename(previousID: temporary, objectID: permanent, index: 1)])
        #expect(saved.diff.inserted.isEmpty && saved.diff.deleted.isEmpty && saved.diff.moved.isEmpty)
        #expect(saved.diff.applied(to: inserted.objectIDs) == saved.objectIDs)
        #expect(try context.fetchObjectIDs(request) == saved.objectIDs)
    }

    @Test(arguments: ["memory", "sqlite"])
    func aControllerReportsASavedInsertAsAnUpdateInPlace(_ scheme: String) throws {
        let directory = TemporaryDirectory()
        let context = try Self.seeded(scheme, in: directory)
        let controller = FetchedResultsController(
            fetchRequest: FetchRequest(entityName: "Employee", sorts: [Sort("key")]), context: context)
        let recorder = Recorder()
        controller.delegate = recorder
        try controller.performFetch()

        var random = SeededGenerator(seed: 2)
        try RandomGraphChanges.insertEmployee(context, key: 3, random: &random)
        context.processPendingChanges()
        let temporary = controller.fetchedObjectIDs[2]
        #expect(recorder.changes == ["insert \(temporary) - 2"])

        recorder.changes = []
        try context.save()
        let permanent = controller.fetchedObjectIDs[2]
        #expect(!permanent.isTemporary)
        #expect(recorder.changes == ["update \(permanent) - 2"])
    }

    /// Saved inserts that tie with saved objects in the sort keep their rows: ties are ordered
    /// by ID, a temporary ID sorts after its entity's permanent ones, and the permanent ID a save
    /// hands out is the store's next key, so the row is renamed where it is: no move, no row put
    /// back in order, nothing diffed by the general algorithm.
    @Test(arguments: ["memory", "sqlite"])
    func renamesAmongTiesKeepTheirRows(_ scheme: String) throws {
        let directory = TemporaryDirectory()
        let context = try Self.seeded(scheme, in: directory)
        for key in 0..<2_000 { try Self.insertEmployee(context, key: Int64(key)) }
        try context.save()
        let request = FetchRequest(entityName: "Employee", sorts: [Sort("key")])
        let controller = FetchedResultsController(fetchRequest: request, context: context)
        let recorder = Recorder()
        controller.delegate = recorder
        try controller.performFetch()
        let tied = Array(stride(from: 0, to: 2_000, by: 20))
        for key in tied { try Self.insertEmployee(context, key: Int64(key)) }
        context.processPendingChanges()
        #expect(controller.fetchedObjectIDs.count == 2_003 + tied.count)
        let diffed = controller.generallyDiffedPositions
        let reordered = context.liveQueryStatistics.entriesReorderedByRenames
        recorder.changes = []

        try context.save()
        #expect(controller.fetchedObjectIDs == (try context.fetchObjectIDs(request)))
        #expect(controller.fetchedObjectIDs.allSatisfy { !$0.isTemporary })
        // Each saved insert ties with one or two saved objects (three for key 0, 2 and 4), and
        // stays after them.
        #expect(controller.generallyDiffedPositions == diffed, "positions diffed generally")
        #expect(context.liveQueryStatistics.entriesReorderedByRenames == reordered, "entries put back in order")
        #expect(!recorder.changes.contains { $0.hasPrefix("move") })
        #expect(recorder.changes.allSatisfy { $0.hasPrefix("update") })
        // Each renamed row is updated at its new position.
        let updates = recorder.changes.filter { $0.hasPrefix("update") }
        #expect(updates.count == tied.count)
        for update in updates {
            let index = try #require(update.split(separator: " ").last.flatMap { Int($0) })
            #expect(update == "update \(controller.fetchedObjectIDs[index]) - \(index)")
        }
    }
}
