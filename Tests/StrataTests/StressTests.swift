import Foundation
import Strata
import Testing

/// Eight private contexts racing on the same objects under the error merge policy (the only
/// policy built so far): every rejected save is reported, and no update is lost silently.
@Suite struct StressTests {
    struct Tally: Sendable {
        var saved = 0
        var rejected = 0
        var conflictsNamingTheCounter = 0
    }

    @Test func eightContextsRacingOnSharedObjectsLoseNoUpdate() async throws {
        let coordinator = try makeTeamCoordinator()
        let setup = ObjectContext(coordinator: coordinator, name: "setup")
        let team = setup.insert(Team.self)
        team.name = "Shared"
        let counter = setup.insert(Player.self)
        counter.name = "counter"
        try setup.save()
        let (teamID, counterID) = (team.objectID, counter.objectID)
        let contexts = 8, rounds = 1_000

        let tallies = try await withThrowingTaskGroup(of: Tally.self) { group in
            for index in 0..<contexts {
                let context = ObjectContext(coordinator: coordinator, name: "racer \(index)")
                group.addTask {
                    try await context.perform { () throws -> Tally in
                        var tally = Tally()
                        let team = try #require(try context.existingObject(with: teamID) as? Team)
                        let counter = try #require(try context.existingObject(with: counterID) as? Player)
                        for round in 0..<rounds {
                            counter.age += 1
                            let player = context.insert(Player.self)
                            player.name = "racer \(index) round \(round)"
                            player.team = team
                            do {
                                try context.save()
                                tally.saved += 1
                            } catch let error as StrataError where error.code == .conflict {
                                tally.rejected += 1
                                if error.conflicts.contains(where: { $0.objectID == counterID && $0.properties.contains { $0.property == "age" } }) {
                                    tally.conflictsNamingTheCounter += 1
                                }
                                context.rollback()
                                try context.refresh(counter, mergeChanges: false)
                                try context.refresh(team, mergeChanges: false)
                            }
                        }
                        return tally
                    }
                }
            }
            return try await group.reduce(into: [Tally]()) { $0.append($1) }
        }
        let saved = tallies.map(\.saved).reduce(0, +)
        let rejected = tallies.map(\.rejected).reduce(0, +)
        #expect(saved + rejected == contexts * rounds, "every save either succeeded or was reported")
        #expect(tallies.map(\.conflictsNamingTheCounter).reduce(0, +) == rejected, "each rejection names the counter's 'age'")
        #expect(saved > 0)

        let reader = ObjectContext(coordinator: coordinator, name: "reader")
        let storedCounter = try #require(try reader.existingObject(with: counterID) as? Player)
        let storedTeam = try #require(try reader.existingObject(with: teamID) as? Team)
        #expect(Int(storedCounter.age) == saved, "no successful increment was lost, none was applied twice")
        let players = try reader.fetch(Player.self).filter { $0.objectID != counterID }
        #expect(players.count == saved, "one player per successful save, none from a rejected one")
        #expect(storedTeam.players.count == saved)
        #expect(players.allSatisfy { $0.team === storedTeam }, "inverses match")
    }
}
