import Foundation
import Strata
import Testing

/// Seed 002: a background context changes what the main context shows, and the main context
/// merges the background's did-save.
@Suite struct MergeTests {
    /// Merges every did-save of `source` into `target`, on `target`'s queue.
    private func mergeSaves(of source: ObjectContext, into target: ObjectContext) -> any NSObjectProtocol {
        NotificationCenter.default.addObserver(forName: ObjectContext.didSaveNotification, object: source, queue: nil) {
            note in
            guard let changes = note.userInfo?[ObjectContext.changesKey] as? ContextChanges else { return }
            target.performAndWait { try? target.mergeChanges(fromContextDidSave: changes) }
        }
    }

    @Test func aPlayerAddedInTheBackgroundAppearsInTheMainContextAfterTheMerge() async throws {
        let coordinator = try makeTeamCoordinator()
        let main = ObjectContext(coordinator: coordinator, name: "main")
        let background = ObjectContext(coordinator: coordinator, name: "background")
        let team = try main.performAndWait { () throws -> Team in
            let team = main.insert(Team.self)
            team.name = "Lakers"
            try main.save()
            _ = team.players // loaded, as a list on screen would be
            return team
        }
        let teamID = team.objectID

        // Without a merge the main context keeps showing what it loaded.
        try await background.perform {
            let team = try #require(background.object(with: teamID) as? Team)
            let player = background.insert(Player.self)
            player.name = "Kobe"
            player.team = team
            try background.save()
        }
        #expect(main.performAndWait { team.players.count } == 0)

        let token = mergeSaves(of: background, into: main)
        defer { NotificationCenter.default.removeObserver(token) }
        main.performAndWait { team.name = "LA Lakers" } // an unsaved edit of the main context
        try await background.perform {
            let team = try #require(background.object(with: teamID) as? Team)
            let player = background.insert(Player.self)
            player.name = "Shaq"
            player.team = team
            try background.save()
        }
        let (names, name, hasChanges) = main.performAndWait {
            (team.players.map(\.name).sorted(), team.name, main.hasChanges)
        }
        #expect(names == ["Kobe", "Shaq"])
        #expect(name == "LA Lakers", "the merge keeps the main context's own unsaved edit")
        #expect(hasChanges)
        try main.performAndWait { try main.save() }
        let stored = try await background.perform { () throws -> String in
            try background.refresh(try #require(background.object(with: teamID) as? Team), mergeChanges: false)
            return try #require(background.object(with: teamID) as? Team).name
        }
        #expect(stored == "LA Lakers")
    }

    @Test func aDeletionInTheBackgroundInvalidatesTheObjectInTheMainContext() async throws {
        let coordinator = try makeTeamCoordinator()
        let main = ObjectContext(coordinator: coordinator, name: "main")
        let background = ObjectContext(coordinator: coordinator, name: "background")
        let (team, player) = try main.performAndWait { () throws -> (Team, Player) in
            let team = main.insert(Team.self)
            team.name = "Pistons"
            let player = main.insert(Player.self)
            player.name = "Isiah"
            player.team = team
            try main.save()
            return (team, player)
        }
        let playerID = player.objectID
        let changed = Collector<ContextChanges>()
        let observer = NotificationCenter.default.addObserver(
            forName: ObjectContext.objectsDidChangeNotification, object: main, queue: nil
        ) { note in
            if let c = note.userInfo?[ObjectContext.changesKey] as? ContextChanges { changed.append(c) }
        }
        let token = mergeSaves(of: background, into: main)
        defer { for t in [token, observer] { NotificationCenter.default.removeObserver(t) } }

        try await background.perform {
            background.delete(background.object(with: playerID))
            try background.save()
        }
        let (players, registered) = main.performAndWait { (team.players.count, main.registeredObject(for: playerID)) }
        #expect(players == 0, "the team was updated by the save (nullify) and refreshed by the merge")
        #expect(registered == nil)
        #expect(player.context == nil)
        #expect(throws: StrataError.self) { try main.performAndWait { try player.set("Zeke", for: "name") } }
        #expect(changed.values == [ContextChanges(updated: [team.objectID], deleted: [playerID])])
    }
}
