import Foundation
import Strata
import Testing

/// The one-line stacks and the MagicalRecord-style save helpers (seeds 001, 003, 004).
@Suite struct ContextStackTests {
    private func teamNames(_ coordinator: StoreCoordinator) throws -> [String] {
        let reader = ObjectContext(coordinator: coordinator, name: "store reader")
        return try reader.fetch(Team.self, sortedBy: [Sort("name")]).map(\.name)
    }

    /// Saves a team through all three helper forms and checks the store after each.
    private func saveThroughEveryHelper(_ stack: ContextStack, _ coordinator: StoreCoordinator) async throws {
        try await stack.save { context in context.insert(Team.self).name = "A async" }
        #expect(try teamNames(coordinator) == ["A async"])

        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            stack.save({ context in context.insert(Team.self).name = "B completion" }) { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
        #expect(try teamNames(coordinator) == ["A async", "B completion"])

        let caller = currentThreadID()
        var blockThread: UInt = 0
        try stack.saveAndWait { context in
            blockThread = currentThreadID()
            context.insert(Team.self).name = "C wait"
        }
        #expect(blockThread == caller, "saveAndWait's block runs on the calling thread (seed 004)")
        #expect(try teamNames(coordinator) == ["A async", "B completion", "C wait"])
    }

    @Test func twoTierStackSavesThroughEveryHelperForm() async throws {
        let coordinator = try makeTeamCoordinator()
        let stack = ContextStack.twoTier(coordinator: coordinator)
        #expect(stack.root === stack.viewContext)
        #expect(stack.viewContext.concurrencyType == .mainQueue && stack.viewContext.parent == nil)
        try await saveThroughEveryHelper(stack, coordinator)
    }

    @Test func threeTierStackSavesThroughEveryHelperForm() async throws {
        let coordinator = try makeTeamCoordinator()
        let stack = ContextStack.threeTier(coordinator: coordinator)
        #expect(stack.viewContext.parent === stack.root)
        #expect(stack.root.concurrencyType == .privateQueue && stack.viewContext.concurrencyType == .mainQueue)
        #expect(stack.newWorkerContext().parent === stack.viewContext)
        try await saveThroughEveryHelper(stack, coordinator)
        let seenInView = try await stack.viewContext.perform {
            try stack.viewContext.count(FetchRequest(entityName: "Team"))
        }
        #expect(seenInView == 3)
    }

    @Test func aFailingSaveHelperReportsTheErrorAndSavesNothing() async throws {
        let coordinator = try makeTeamCoordinator()
        let stack = ContextStack.threeTier(coordinator: coordinator)
        await #expect(throws: StrataError.self) {
            try await stack.save { context in _ = context.insert(Team.self) } // no name
        }
        let reported = await withCheckedContinuation { (continuation: CheckedContinuation<(any Error)?, Never>) in
            stack.save({ context in _ = context.insert(Team.self) }) { continuation.resume(returning: $0) }
        }
        #expect((reported as? StrataError)?.code == .validationFailed)
        #expect(throws: StrataError.self) { try stack.saveAndWait { context in _ = context.insert(Team.self) } }
        #expect(try teamNames(coordinator).isEmpty)
        #expect(try await stack.viewContext.perform { stack.viewContext.hasChanges } == false)
    }

    @Test func childrenThatMergeAutomaticallySeeTheirSiblingsSaves() throws {
        let coordinator = try makeTeamCoordinator()
        let root = ObjectContext(coordinator: coordinator, name: "root")
        let team = root.insert(Team.self)
        team.name = "Warriors"
        try root.save()
        let teamID = team.objectID
        let saver = ObjectContext(parent: root, name: "saver")
        let merging = ObjectContext(parent: root, name: "merging")
        merging.automaticallyMergesChangesFromParent = true
        let ignoring = ObjectContext(parent: root, name: "ignoring")
        #expect(!ignoring.automaticallyMergesChangesFromParent)
        let (mergingTeam, ignoringTeam) = try (
            merging.performAndWait { try #require(try merging.existingObject(with: teamID) as? Team) },
            ignoring.performAndWait { try #require(try ignoring.existingObject(with: teamID) as? Team) }
        )
        #expect(merging.performAndWait { mergingTeam.players.isEmpty })

        try saver.performAndWait {
            let player = saver.insert(Player.self)
            player.name = "Curry"
            player.team = try #require(saver.object(with: teamID) as? Team)
            try saver.save()
        }
        // The merge was enqueued on the merging child's queue during the save; this runs after it.
        #expect(merging.performAndWait { mergingTeam.players.map(\.name) } == ["Curry"])
        #expect(ignoring.performAndWait { ignoringTeam.players.isEmpty })
    }
}
