import Foundation
import Strata
import StrataCore
import StrataRandomGraph
import StrataTestSupport
import Testing

/// A live list on a container's view context follows an import through every stack shape: a
/// worker that is the view context's sibling under a writer (the view context merges each of
/// its saves), then the writer's saves to the store (the view context learns the permanent IDs).
@Suite struct LiveQueryStackTests {
    static let model = RandomGraphModel.make("live-stack")

    final class Holder: @unchecked Sendable {
        var controller: FetchedResultsController?
        var results: LiveResults.AsyncIterator?
        var seen: [ObjectID] = []
    }

    @Test(arguments: ["memory", "sqlite", "lmdb"], [1, 3, 8])
    func aLiveListFollowsASiblingWorkersImport(_ scheme: String, chunks: Int) async throws {
        let directory = TemporaryDirectory()
        let url = StoreURL(scheme: scheme, location: scheme == "memory" ? "" : directory.file("stack.\(scheme)"))
        let coordinator = StoreCoordinator(model: Self.model)
        try coordinator.addStore(BuiltInBackends.registry.open(url, model: Self.model))
        var random = SeededGenerator(seed: 3)
        let seeding = ObjectContext(coordinator: coordinator)
        for key in 0..<50 { try RandomGraphChanges.insertEmployee(seeding, key: Int64(key * 2), random: &random) }
        try seeding.save()

        let stack = ContextStack.threeTier(coordinator: coordinator)
        let view = stack.viewContext
        let writer = stack.root
        view.automaticallyMergesChangesFromParent = true
        let worker = ObjectContext(parent: writer, name: "import")
        let request = FetchRequest(entityName: "Employee", sorts: [Sort("key")])
        let holder = Holder()
        try await view.perform {
            let controller = FetchedResultsController(fetchRequest: request, context: view)
            try controller.performFetch()
            holder.controller = controller
            holder.results = try view.liveResults(for: request).makeAsyncIterator()
            holder.seen = try holder.results?.nextIfReady()?.objectIDs ?? []
        }
        for chunk in 0..<chunks {
            try await worker.perform {
                var random = SeededGenerator(seed: UInt64(chunk) + 10)
                for index in 0..<40 {
                    try RandomGraphChanges.insertEmployee(
                        worker, key: Int64(chunk * 80 + index * 2 + 1), random: &random)
                }
                try worker.save()
            }
            try await writer.perform { try writer.save() }
        }
        try await writer.perform {}
        let (listed, streamed, fetched) = try await view.perform { () -> ([ObjectID], [ObjectID], [ObjectID]) in
            if let result = try holder.results?.nextIfReady() { holder.seen = result.diff.applied(to: holder.seen) }
            return (holder.controller?.fetchedObjectIDs ?? [], holder.seen, try view.fetchObjectIDs(request))
        }
        #expect(fetched.count == 50 + 40 * chunks)
        #expect(listed == fetched, "\(scheme), \(chunks) chunk(s): the controller lists \(listed.count)")
        #expect(streamed == fetched, "\(scheme), \(chunks) chunk(s): the sequence lists \(streamed.count)")
    }

    /// A context that merges its sibling's saves takes the pushed objects' states with the
    /// push: its merge does not read them from the parent, so a parent busy on its queue
    /// (writing to the store) does not hold the merge, and the live list, up.
    @Test func aMergeDoesNotWaitForTheParentsQueue() throws {
        let coordinator = StoreCoordinator(model: Self.model)
        try coordinator.addStore(
            BuiltInBackends.registry.open(StoreURL(scheme: "memory", location: ""), model: Self.model))
        let seeding = ObjectContext(coordinator: coordinator)
        for key in 0..<20 { try LiveQueryRenameTests.insertEmployee(seeding, key: Int64(key * 2)) }
        try seeding.save()
        let writer = ObjectContext(coordinator: coordinator, name: "writer")
        let view = ObjectContext(parent: writer, name: "view")
        view.automaticallyMergesChangesFromParent = true
        let worker = ObjectContext(parent: writer, name: "import")
        let request = FetchRequest(entityName: "Employee", sorts: [Sort("key")])
        let holder = Holder()
        try view.performAndWait {
            let controller = FetchedResultsController(fetchRequest: request, context: view)
            try controller.performFetch()
            holder.controller = controller
        }
        // The view's queue is held while the worker saves, so that its merge runs only once
        // the writer's queue is busy.
        let viewGate = DispatchSemaphore(value: 0)
        let writerGate = DispatchSemaphore(value: 0)
        view.perform { viewGate.wait() }
        try worker.performAndWait {
            for key in 0..<10 { try LiveQueryRenameTests.insertEmployee(worker, key: Int64(key * 2 + 1)) }
            try worker.save()
        }
        writer.perform { writerGate.wait() }
        viewGate.signal()
        let merged = DispatchSemaphore(value: 0)
        view.perform { merged.signal() }
        let mergedWhileTheWriterWasBusy = merged.wait(timeout: .now() + 10) == .success
        writerGate.signal()
        if !mergedWhileTheWriterWasBusy { merged.wait() }
        #expect(mergedWhileTheWriterWasBusy, "the merge waited for the writer's queue")
        let (listed, fetched) = try view.performAndWait {
            (holder.controller?.fetchedObjectIDs ?? [], try view.fetchObjectIDs(request))
        }
        #expect(listed.count == 30)
        #expect(listed == fetched)
    }
}
