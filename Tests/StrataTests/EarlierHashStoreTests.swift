import Foundation
import Strata
import StrataTestSupport
import Testing

/// A store that records the hash an earlier release gave its model (one with a to-many declared
/// not optional, whose optionality the hash no longer covers) opens with the model as it did.
@Suite struct EarlierHashStoreTests {
    static let model: Model = {
        do {
            return try Model(
                versionIdentifier: "v1",
                entities: [
                    Entity(
                        "Team", attributes: [Attribute("name", .string)],
                        relationships: [
                            Relationship("members", to: "Person", inverse: "team", toMany: true, isOptional: false)
                        ]),
                    Entity(
                        "Person", attributes: [Attribute("name", .string)],
                        relationships: [Relationship("team", to: "Team", inverse: "members")]),
                ])
        } catch { preconditionFailure("\(error)") }
    }()

    /// An XML store of ``model`` with one team, its file rewritten to record the earlier hash.
    static func storeWithTheEarlierHash(in directory: URL) throws -> StoreURL {
        let url = storeURL("xml", in: directory)
        let earlier = try #require(model.previousVersionHashes.first)
        do {
            let store = try BuiltInBackends.registry.open(url, model: model)
            defer { try? store.close() }
            let team = try #require(model.entity(named: "Team"))
            var snapshot = Snapshot(objectID: try store.obtainPermanentIDs(for: "Team", count: 1)[0], entity: team)
            snapshot.attributes[team.attributeIndex(named: "name")!] = "Core"
            try store.save(SaveRequest(inserts: [snapshot]))
        }
        let file = URL(fileURLWithPath: url.location)
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains(model.versionHash))
        try Data(text.replacingOccurrences(of: model.versionHash, with: earlier).utf8).write(to: file)
        return url
    }

    @Test func theBackendOpensIt() throws {
        try withTemporaryDirectory { directory in
            let url = try Self.storeWithTheEarlierHash(in: directory)
            let store = try BuiltInBackends.registry.open(url, model: Self.model)
            defer { try? store.close() }
            #expect(try store.metadata().modelVersionHash == Self.model.previousVersionHashes.first)
            #expect(try store.snapshots(of: "Team", among: nil).count == 1)
        }
    }

    @Test func aContainerLoadsItWithoutMigrating() async throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let url = try Self.storeWithTheEarlierHash(in: directory.url)
        let container = PersistentContainer(
            name: "Teams", model: Self.model, storeDescriptions: [StoreDescription(url: url)], environment: [:])
        try await container.loadPersistentStores()
        let names = try await container.viewContext.perform {
            try container.viewContext.fetch(FetchRequest(entityName: "Team")).map { $0["name"] }
        }
        #expect(names == ["Core"])
    }
}
