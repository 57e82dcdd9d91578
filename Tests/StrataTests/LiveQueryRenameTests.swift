import Foundation
import Strata
import StrataCore
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
}
