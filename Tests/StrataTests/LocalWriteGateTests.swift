import Foundation
import Strata
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataEngine

/// A write to an object already changed since its last save skips its context unless that
/// context is saving or observed by live queries: which is decided per context, from a flag in
/// the object's own state, not by a count for the whole process. A live query or a save in one
/// context leaves the writes of every other context on the fast path, and the context that is
/// observed or saving still hears of every write.
@Suite struct LocalWriteGateTests {
    /// A saved player, changed again since (dirty, its name among its changed attributes).
    private func changedPlayer(in context: ObjectContext, named name: String) throws -> Player {
        let player = context.insert(Player.self)
        player.name = name
        try context.save()
        player.name = name + " (changed)"
        context.processPendingChanges()
        return player
    }

    /// An object changed before the context's first live query began: the query still hears
    /// the next write to the same attribute (it would skip the context, and the query, if only
    /// the objects changed after the query began were flagged).
    @Test func aLiveQueryHearsWritesToObjectsChangedBeforeItBegan() throws {
        let coordinator = try makeTeamCoordinator()
        let context = ObjectContext(coordinator: coordinator, name: "observed")
        let ann = try changedPlayer(in: context, named: "Ann")
        #expect(!ann.state.writesNeedContext)

        let controller = FetchedResultsController(
            fetchRequest: FetchRequest(entityName: "Player", predicate: .key("name") == "Zed"), context: context)
        try controller.performFetch()
        #expect(controller.fetchedObjectIDs.isEmpty)
        #expect(ann.state.writesNeedContext, "the first live query flags the change set")

        ann.name = "Zed"
        context.processPendingChanges()
        #expect(controller.fetchedObjectIDs == [ann.objectID])
    }

    /// A live query on one context does not move another context's writes off the fast path,
    /// nor change what that context saves.
    @Test func aLiveQueryOnOneContextLeavesAnotherContextsWritesAlone() throws {
        let coordinator = try makeTeamCoordinator()
        let observed = ObjectContext(coordinator: coordinator, name: "observed")
        let other = ObjectContext(coordinator: coordinator, name: "other")
        let watched = try changedPlayer(in: observed, named: "Ann")
        let bob = try changedPlayer(in: other, named: "Bob")

        let controller = FetchedResultsController(
            fetchRequest: FetchRequest(entityName: "Player", sorts: [Sort("name")]), context: observed)
        try controller.performFetch()
        #expect(watched.state.writesNeedContext)
        #expect(!bob.state.writesNeedContext, "another context's live query does not reach this one")

        bob.name = "Bobby"
        #expect(!bob.state.writesNeedContext)
        try other.save()
        let reader = ObjectContext(coordinator: coordinator)
        #expect(try reader.fetch(Player.self, where: .key("name") == "Bobby").count == 1)
    }

    /// While one context saves (its observers of the did-save notification run inside the
    /// save), another context's writes stay on the fast path and still reach that context's
    /// next save; the saving context flags every object it still tracks.
    @Test func aSaveInOneContextLeavesAnotherContextsWritesAlone() throws {
        let coordinator = try makeTeamCoordinator()
        let saving = ObjectContext(coordinator: coordinator, name: "saving")
        let writing = ObjectContext(coordinator: coordinator, name: "writing")
        let ann = try changedPlayer(in: writing, named: "Ann")
        let carl = saving.insert(Player.self)
        carl.name = "Carl"

        /// The object the observer writes, which runs on the saving thread (this one).
        final class Target: @unchecked Sendable {
            let player: Player
            init(_ player: Player) { self.player = player }
        }
        let target = Target(ann)
        let flags = Locked<[Bool]>([])
        let observer = NotificationCenter.default.addObserver(
            forName: ObjectContext.didSaveNotification, object: saving, queue: nil
        ) { _ in
            // Inside the save: the writing context is not saving, the saving one is.
            flags.withLock { $0.append(target.player.state.writesNeedContext) }
            target.player.name = "Anna"
            flags.withLock { $0.append(saving.needsEveryWrite) }
        }
        try saving.save()
        NotificationCenter.default.removeObserver(observer)
        #expect(flags.withLock { $0 } == [false, true])

        try writing.save()
        let reader = ObjectContext(coordinator: coordinator)
        #expect(try reader.fetch(Player.self, sortedBy: [Sort("name")]).map(\.name) == ["Anna", "Carl"])
    }

    /// A save flags every member of its change set as it begins, so that a write made during
    /// the save reaches its journal; the flags of objects the save leaves changed are cleared
    /// by their next write once the save is over.
    @Test func aSaveFlagsItsChangeSetAndTheNextWriteAfterItClearsTheFlag() throws {
        let coordinator = try makeTeamCoordinator()
        let context = ObjectContext(coordinator: coordinator)
        let broken = context.insert(Team.self)
        broken.name = "" // fails validation: the save below fails and leaves it changed
        let ann = try? changedPlayer(in: context, named: "Ann")
        #expect(ann == nil, "the save of the player fails with the broken team")
        #expect(broken.state.writesNeedContext, "flagged by the failed save")

        broken.name = "Fixed"
        #expect(!broken.state.writesNeedContext, "the write after the save clears the flag")
        broken.name = "Fixed again"
        try context.save()
        let reader = ObjectContext(coordinator: coordinator)
        #expect(try reader.fetch(Team.self).map(\.name) == ["Fixed again"])
    }
}
