import Foundation
import Strata
import Testing

/// What a context releases (objects only its registry holds, after batched imports and paged
/// fetches) and what a failed save puts back (new objects a cascade removed). Found by a review
/// of the 2026-11-25 engine changes: the first two broke with them, the cascade case was older.
@Suite struct RegistryReleaseAndFailedSaveTests {
    /// A save whose delete rule cascades to a new object, and that then fails (here: validation
    /// of another object), must leave the context as it was: the new object is still a live,
    /// inserted object, and the next save cascades it away with its team.
    ///
    /// The cascade records the new object in the save's journal before removing it, so the
    /// failed save puts it back valid; otherwise the next save's delete rule would skip it as
    /// invalid and write it as a live insert pointing at the deleted team.
    @Test func aNewObjectCascadedInAFailedSaveIsCascadedAgainByTheNextSave() throws {
        let coordinator = try makeTeamCoordinator()
        let context = ObjectContext(coordinator: coordinator)
        let team = context.insert(Team.self)
        team.name = "Lakers"
        try context.save()

        let rookie = context.insert(Player.self)
        rookie.name = "Rookie"
        rookie.team = team
        let broken = context.insert(Team.self)
        broken.name = "" // fails validation: the save below fails after the delete rules ran
        context.delete(team)
        #expect(throws: StrataError.self) { try context.save() }

        // "If any step fails, the context is exactly as it was before the call."
        #expect(rookie.isInserted)
        #expect(context.registeredObject(for: rookie.objectID) === rookie)
        #expect(throws: Never.self) { try rookie.set(Int16(19), for: "age") }

        broken.name = "Fixed"
        try context.save()
        let reader = ObjectContext(coordinator: coordinator)
        #expect(try reader.fetch(Team.self).map(\.name) == ["Fixed"])
        #expect(try reader.fetch(Player.self).isEmpty, "the rookie was cascaded with the Lakers")
    }

    /// The same under a merge policy: the first round cascades the new player and hits a
    /// conflict on the team; the retry must cascade it again, not save it on a team that the
    /// same save deletes.
    @Test func aNewObjectCascadedInAConflictedRoundIsNotSavedByTheRetry() throws {
        let coordinator = try makeTeamCoordinator()
        let other = ObjectContext(coordinator: coordinator, name: "other")
        let otherTeam = other.insert(Team.self)
        otherTeam.name = "Lakers"
        try other.save()

        let mine = ObjectContext(coordinator: coordinator, name: "mine")
        mine.mergePolicy = .mergeByPropertyObjectTrump
        let team = try #require(try mine.existingObject(with: otherTeam.objectID) as? Team)
        otherTeam.name = "L.A. Lakers"
        try other.save() // mine's read of the team is now stale: its delete conflicts once

        let rookie = mine.insert(Player.self)
        rookie.name = "Rookie"
        rookie.team = team
        mine.delete(team)
        try mine.save()

        let reader = ObjectContext(coordinator: coordinator)
        #expect(try reader.fetch(Team.self).isEmpty)
        let players = try reader.fetch(Player.self)
        #expect(players.isEmpty, "the rookie was cascaded with the team, not saved: \(players.map(\.objectID))")
    }

    /// A fetch registers its objects without sweeping in between (its results hold them all),
    /// but a sweep that is due runs before it: a context that pages through unbatched fetches
    /// (offset and limit) releases the pages nobody holds.
    @Test func pagingThroughUnbatchedFetchesReleasesPagesNobodyHolds() throws {
        let writer = try makeContext()
        for index in 0..<4000 { writer.insert(Employee.self).name = "e\(index)" }
        try writer.save()

        let reader = ObjectContext(coordinator: writer.coordinator)
        weak var firstOfFirstPage: ManagedObject?
        do {
            let page = try reader.fetch(FetchRequest(entityName: "Employee", limit: 500))
            firstOfFirstPage = page[0]
        }
        for offset in stride(from: 500, to: 4000, by: 500) {
            let page = try reader.fetch(FetchRequest(entityName: "Employee", limit: 500, offset: offset))
            #expect(page.count == 500)
        }
        #expect(firstOfFirstPage == nil, "8 pages of 500 later, an object only the registry holds is still alive")
    }

    /// New objects enter the registry at their save; inserting checks whether a sweep is due,
    /// so an import that inserts and saves in batches, holding nothing, releases the earlier
    /// batches.
    @Test func importingInSavedBatchesReleasesEarlierBatches() throws {
        let context = try makeContext()
        weak var firstImported: ManagedObject?
        for batch in 0..<8 {
            for index in 0..<500 {
                let employee = context.insert(Employee.self)
                employee.name = "e\(batch)-\(index)"
                if batch == 0 && index == 0 { firstImported = employee }
            }
            try context.save()
        }
        #expect(firstImported == nil, "8 saved batches of 500 later, an object only the registry holds is still alive")
    }

    /// Pins the save's "empty the change set at once" shortcut: an object that was
    /// touched but ends up unchanged is in the change set and in none of the saved lists, so
    /// the counts differ and the save takes the per-object path; afterwards nothing is pending,
    /// and the touched object's next change is saved.
    @Test func aSaveWithATouchedButUnchangedObjectLeavesNothingPending() throws {
        let coordinator = try makeTeamCoordinator()
        let context = ObjectContext(coordinator: coordinator)
        let team = context.insert(Team.self)
        team.name = "Lakers"
        try context.save()

        team.name = "Celtics"
        team.name = "Lakers" // touched, back to its saved value
        let player = context.insert(Player.self)
        player.name = "Rookie"
        try context.save()
        #expect(!context.hasChanges)
        #expect(context.registeredObject(for: player.objectID) === player)

        team.name = "L.A. Lakers"
        try context.save()
        let reader = ObjectContext(coordinator: coordinator)
        #expect(try reader.fetch(Team.self).map(\.name) == ["L.A. Lakers"])
        #expect(try reader.fetch(Player.self).map(\.name) == ["Rookie"])
    }
}
