import Foundation
import Strata
import Testing

/// Parent-child contexts (seeds 001 and 003): a child's save goes into its parent; only the root
/// writes to the store.
@Suite struct ParentChildTests {
    /// The number of teams in the store, read by a fresh root context.
    private func teamsInStore(_ coordinator: StoreCoordinator) throws -> Int {
        try ObjectContext(coordinator: coordinator, name: "store reader").count(FetchRequest(entityName: "Team"))
    }

    @Test func twoTierChildSaveReachesTheStoreOnlyWhenTheRootSaves() throws {
        let coordinator = try makeTeamCoordinator()
        let root = ObjectContext(coordinator: coordinator, name: "root")
        let child = ObjectContext(parent: root, name: "child")
        #expect(child.parent === root)
        let team = try child.performAndWait { () throws -> Team in
            let team = child.insert(Team.self)
            team.name = "Lakers"
            let player = child.insert(Player.self)
            player.name = "Kobe"
            player.team = team
            try child.save()
            return team
        }
        #expect(child.performAndWait { !child.hasChanges && team.objectID.isTemporary && !team.isInserted })
        #expect(try teamsInStore(coordinator) == 0, "a child's save does no store I/O")
        let (rootHasChanges, rootTeams) = try root.performAndWait {
            (root.hasChanges, try root.fetch(Team.self).map { "\($0.name) \($0.players.map(\.name))" })
        }
        #expect(rootHasChanges)
        #expect(rootTeams == ["Lakers [\"Kobe\"]"])

        try root.performAndWait { try root.save() }
        #expect(try teamsInStore(coordinator) == 1)
        let stored = try root.performAndWait { try root.fetchObjectIDs(FetchRequest(entityName: "Team")) }
        let (childID, names) = child.performAndWait { (team.objectID, team.players.map(\.name)) }
        #expect(!childID.isTemporary, "the child learned the permanent ID")
        #expect([childID] == stored)
        #expect(names == ["Kobe"])
    }

    @Test func threeTierWorkerSaveClimbsThroughTheViewContextToTheWriter() async throws {
        let coordinator = try makeTeamCoordinator()
        let writer = ObjectContext(coordinator: coordinator, name: "writer")
        let view = ObjectContext(parent: writer, concurrencyType: .mainQueue, name: "view")
        let worker = ObjectContext(parent: view, name: "worker")
        let team = try worker.performAndWait { () throws -> Team in
            let team = worker.insert(Team.self)
            team.name = "Celtics"
            for name in ["Bird", "McHale"] {
                let player = worker.insert(Player.self)
                player.name = name
                player.team = team
            }
            try worker.save()
            return team
        }
        let seenInView = try await view.perform {
            try view.fetch(Player.self, sortedBy: [Sort("name")]).map { "\($0.name) \($0.team?.name ?? "-")" }
        }
        #expect(seenInView == ["Bird Celtics", "McHale Celtics"])
        #expect(writer.performAndWait { !writer.hasChanges })
        #expect(try teamsInStore(coordinator) == 0)

        try await view.perform { try view.save() }
        #expect(writer.performAndWait { writer.hasChanges })
        #expect(try teamsInStore(coordinator) == 0)

        try writer.performAndWait { try writer.save() }
        #expect(try teamsInStore(coordinator) == 1)
        let stored = try writer.performAndWait { try writer.fetchObjectIDs(FetchRequest(entityName: "Team")) }
        let viewIDs = try await view.perform { try view.fetchObjectIDs(FetchRequest(entityName: "Team")) }
        #expect(viewIDs == stored)
        let workerID = worker.performAndWait { team.objectID }
        #expect(!workerID.isTemporary)
        #expect([workerID] == stored, "every level learned the permanent ID")
    }

    @Test func aChildSeesItsParentsUnsavedState() throws {
        let coordinator = try makeTeamCoordinator()
        let root = ObjectContext(coordinator: coordinator, name: "root")
        let bulls = root.insert(Team.self)
        bulls.name = "Bulls"
        let celtics = root.insert(Team.self)
        celtics.name = "Celtics"
        try root.save()
        bulls.name = "Chicago Bulls"
        root.delete(celtics)
        let nets = root.insert(Team.self)
        nets.name = "Nets"
        let netsID = nets.objectID

        let child = ObjectContext(parent: root, name: "child")
        let (names, matching, netsName, celticsGone) = try child.performAndWait {
            () throws -> ([String], Int, String, Bool) in
            let names = try child.fetch(Team.self, sortedBy: [Sort("name")]).map(\.name)
            let matching = try child.count(
                FetchRequest(entityName: "Team", predicate: try ObjectPredicate(format: "name BEGINSWITH 'Chi'")))
            let netsName = try #require(child.object(with: netsID) as? Team).name
            let celticsGone = (try? child.existingObject(with: celtics.objectID)) == nil
            return (names, matching, netsName, celticsGone)
        }
        #expect(names == ["Chicago Bulls", "Nets"])
        #expect(matching == 1)
        #expect(netsName == "Nets")
        #expect(celticsGone)
    }

    @Test func aChildsDeleteAndEditsBecomeTheParentsUnsavedChanges() throws {
        let coordinator = try makeTeamCoordinator()
        let root = ObjectContext(coordinator: coordinator, name: "root")
        let team = root.insert(Team.self)
        team.name = "Pistons"
        let player = root.insert(Player.self)
        player.name = "Isiah"
        player.team = team
        try root.save()
        let (teamID, playerID) = (team.objectID, player.objectID)

        let child = ObjectContext(parent: root, name: "child")
        try child.performAndWait {
            let team = try #require(child.object(with: teamID) as? Team)
            team.name = "Detroit Pistons"
            child.delete(child.object(with: playerID))
            try child.save()
        }
        #expect(team.name == "Detroit Pistons")
        #expect(player.isDeleted)
        #expect(team.players.isEmpty, "the child's nullify reached the parent")
        #expect(root.hasChanges)
        try root.save()
        let reader = ObjectContext(coordinator: coordinator, name: "reader")
        #expect(try reader.count(FetchRequest(entityName: "Player")) == 0)
        #expect(try #require(try reader.existingObject(with: teamID) as? Team).name == "Detroit Pistons")
    }

    @Test func aChildSaveOfAnObjectTheParentDeletedFailsAndChangesNothing() throws {
        let coordinator = try makeTeamCoordinator()
        let root = ObjectContext(coordinator: coordinator, name: "root")
        let team = root.insert(Team.self)
        team.name = "Sonics"
        try root.save()
        let teamID = team.objectID
        let child = ObjectContext(parent: root, name: "child")
        let childTeam = try child.performAndWait { () throws -> Team in
            let t = try #require(try child.existingObject(with: teamID) as? Team)
            t.name = "Seattle SuperSonics"
            return t
        }
        root.delete(team)
        let error = #expect(throws: StrataError.self) { try child.performAndWait { try child.save() } }
        #expect(error?.code == .conflict, "deleted in the parent is a conflict, as deleted in the store is for a root")
        #expect(error?.conflicts.map(\.objectID) == [teamID] && error?.conflicts.first?.storedSnapshot == nil)
        #expect(child.performAndWait { child.hasChanges && childTeam.name == "Seattle SuperSonics" })
        #expect(team.isDeleted && team.name == "Sonics", "the parent is as it was")
    }
}
