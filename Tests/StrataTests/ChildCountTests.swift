import Foundation
import Strata
import Testing

/// A child context counts through its parent (benchmark S: a view context counting during an
/// import must not load the whole store onto the main queue).
@Suite struct ChildCountTests {
    /// 100 players in a named in-memory store, and a root context on a second coordinator (with
    /// an empty row cache) on the same store.
    private func makeStore() throws -> (coordinator: StoreCoordinator, root: ObjectContext) {
        let name = "memory:child-count-\(UUID().uuidString)"
        let model = try Model(versionIdentifier: "1", classes: [Team.self, Player.self])
        let writer = StoreCoordinator(model: model)
        try writer.addStore(BuiltInBackends.registry.open(name, model: model))
        try writer.registerClasses([Team.self, Player.self])
        let setup = ObjectContext(coordinator: writer, name: "setup")
        for index in 0..<100 {
            let player = setup.insert(Player.self)
            player.name = "p\(index)"
            player.age = Int16(index % 10)
        }
        try setup.save()
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addStore(BuiltInBackends.registry.open(name, model: model))
        try coordinator.registerClasses([Team.self, Player.self])
        return (coordinator, ObjectContext(coordinator: coordinator, name: "root"))
    }

    @Test func aChildCountsThroughItsParentWithoutLoadingTheStore() throws {
        let (coordinator, root) = try makeStore()
        let grandchild = ObjectContext(parent: ObjectContext(parent: root, name: "child"), name: "grandchild")
        #expect(try grandchild.count(FetchRequest(entityName: "Player")) == 100)
        #expect(try grandchild.fetchObjectIDs(FetchRequest(entityName: "Player")).count == 100)
        #expect(coordinator.cachedSnapshotCount == 0, "the count came from the store's count, not from 100 snapshots")
    }

    @Test func aChildsCountSeesEveryLevelsPendingChanges() throws {
        let (_, root) = try makeStore()
        let young = FetchRequest(entityName: "Player", predicate: try ObjectPredicate(format: "age < 5"))
        root.insert(Player.self).name = "root's"
        let child = ObjectContext(parent: root, name: "child")
        #expect(try child.count(FetchRequest(entityName: "Player")) == 101, "the parent's unsaved insert counts")
        #expect(try child.count(young) == 51)
        child.insert(Player.self).name = "child's"
        #expect(try child.count(FetchRequest(entityName: "Player")) == 102)
        #expect(
            try child.count(FetchRequest(entityName: "Player"), options: FetchOptions(includesPendingChanges: false))
                == 101,
            "without its own pending changes, a child still sees its parent's")
        #expect(
            try child.fetchObjectIDs(
                FetchRequest(entityName: "Player"), options: FetchOptions(includesPendingChanges: false)
            ).count == 101)
    }
}
