import Foundation
import Strata
import StrataCore
import StrataRandomGraph
import StrataTestSupport
import Testing

/// A fetch by an indexed key in a context with many changed objects reads them through a
/// member index, which the first such fetch builds: that fetch answers as every later one does.
@Suite struct PendingFetchMemberIndexTests {
    static let model = RandomGraphModel.make("pending-member-index")

    /// Enough changed objects for a lookup by key to build a member index.
    static let count = 40

    @Test(arguments: ["memory", "sqlite", "lmdb"])
    func theFetchThatBuildsTheMemberIndexFindsObjectsWhoseKeyChanged(_ scheme: String) throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let location = scheme == "memory" ? "" : directory.appendingPathComponent("index.\(scheme)").path
        let coordinator = StoreCoordinator(model: Self.model)
        try coordinator.addStore(
            BuiltInBackends.registry.open(StoreURL(scheme: scheme, location: location), model: Self.model))
        let seeding = ObjectContext(coordinator: coordinator)
        for key in 0..<Self.count {
            let employee = try seeding.insert("Employee")
            employee["key"] = .integer(Int64(key))
            employee["name"] = .string("e\(key)")
            employee["rank"] = 0
            employee["score"] = 0.5
        }
        try seeding.save()

        let context = ObjectContext(coordinator: coordinator)
        for employee in try context.fetch(FetchRequest(entityName: "Employee")) {
            guard case .integer(let key) = employee["key"] else {
                Issue.record("no key")
                continue
            }
            employee["key"] = .integer(key + 1_000)
        }
        func keys(_ key: Int64) throws -> [Value] {
            let request = FetchRequest(entityName: "Employee", predicate: try ObjectPredicate(format: "key == %@", key))
            return try context.fetch(request).map { $0["key"] }
        }
        // The first lookup builds the index; each asks again once it exists.
        #expect(try keys(1_005) == [.integer(1_005)], "\(scheme): the first fetch by the new key")
        #expect(try keys(1_005) == [.integer(1_005)], "\(scheme): the same fetch again")
        #expect(try keys(5) == [], "\(scheme): the old key, still in the store")
        #expect(try keys(1_039) == [.integer(1_039)], "\(scheme): another new key")
        context.checkPendingChangeBookkeeping()
    }
}
