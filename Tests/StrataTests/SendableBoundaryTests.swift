import Foundation
import Strata
import Testing

// What crosses threads, and what does not.
//
// `ManagedObject` is not `Sendable`. The blocks of `perform(_:)` and `await perform { }` are
// `@Sendable`, so Swift 6 refuses, at compile time, both to capture an object of one context in
// another context's block and to return an object out of `await perform` (its result must be
// `Sendable`). For instance both of these are compile errors, which is why they are not tests:
//
//     let team = main.insert(Team.self)
//     background.perform { _ = team.name }                     // capture of non-Sendable 'team'
//     let t = try await background.perform { background.insert(Team.self) }   // 'Team' is not Sendable
//
// `ObjectID` is `Sendable`: pass IDs and get the object back on the other side with
// `object(with:)` (or `existingObject(with:)` when it may be gone). The tests below pin that path.

@Suite struct SendableBoundaryTests {
    @Test func objectIDsCrossContextsAndObjectWithFindsTheObjectOnTheOtherSide() async throws {
        let coordinator = try makeTeamCoordinator()
        let main = ObjectContext(coordinator: coordinator, name: "main")
        let background = ObjectContext(coordinator: coordinator, name: "background")
        let ids = try await main.perform { () throws -> [ObjectID] in
            let team = main.insert(Team.self)
            team.name = "Lakers"
            for (name, age) in [("Kobe", 34), ("Pau", 32)] {
                let player = main.insert(Player.self)
                player.name = name
                player.age = Int16(age)
                player.team = team
            }
            try main.save()
            return try main.fetchObjectIDs(FetchRequest(entityName: "Player", sorts: [Sort("name")]))
        }
        let seen = try await background.perform { () throws -> [String] in
            try ids.map { id in
                let player = try #require(background.object(with: id) as? Player)
                return "\(player.name) \(player.age) \(player.team?.name ?? "-")"
            }
        }
        #expect(seen == ["Kobe 34 Lakers", "Pau 32 Lakers"])
    }

    @Test func anObjectIDFromAnotherThreadLoadsInAContextAdoptedByThisOne() throws {
        let coordinator = try makeTeamCoordinator()
        let ids = Collector<ObjectID>()
        onAnotherThread {
            let worker = ObjectContext(coordinator: coordinator, name: "worker")
            let team = worker.insert(Team.self)
            team.name = "Suns"
            try? worker.save()
            ids.append(team.objectID)
        }
        let context = ObjectContext(coordinator: coordinator, name: "here")
        let id = try #require(ids.values.first)
        let team = try #require(try context.existingObject(with: id) as? Team)
        #expect(team.name == "Suns")
    }
}
