import Foundation
import Strata
import StrataCore
import StrataTestSupport
import Testing

/// The operation-count check of the one-context update loop: fetch an object by an indexed key
/// attribute, change it (or insert it when missing), repeat, then save. Each fetch examines a
/// constant number of the context's pending changes (``ObjectContext/pendingObjectsEvaluated``),
/// however many there are: the loop is linear, not quadratic.
@Suite struct PendingFetchShapeTests {
    static let model = try! Model(
        versionIdentifier: "pending-shape",
        entities: [
            Entity(
                "Department", attributes: [Attribute("name", .string)],
                relationships: [Relationship("employees", to: "Employee", inverse: "department", toMany: true)]),
            Entity(
                "Employee", attributes: [Attribute("key", .integer64), Attribute("rank", .integer64)],
                relationships: [Relationship("department", to: "Department", inverse: "employees")],
                indexes: [Entity.Index(name: "byKey", properties: ["key"])]),
        ])

    static let schemes = ["memory", "sqlite", "lmdb"]
    static let count = 2_000

    /// A coordinator on a new store of `scheme` holding `count` employees (keys 0 to count - 1)
    /// and a department.
    private func seededCoordinator(_ scheme: String, in directory: URL) throws -> StoreCoordinator {
        let location = scheme == "memory" ? "" : directory.appendingPathComponent("shape.\(scheme)").path
        let coordinator = StoreCoordinator(model: Self.model)
        try coordinator.addStore(
            BuiltInBackends.registry.open(StoreURL(scheme: scheme, location: location), model: Self.model))
        let context = ObjectContext(coordinator: coordinator)
        try context.insert("Department")["name"] = "d"
        for key in 0..<Self.count {
            let employee = try context.insert("Employee")
            employee["key"] = .integer(Int64(key))
            employee["rank"] = 0
        }
        try context.save()
        return coordinator
    }

    /// Runs the update loop in `context` (`beforeEach` runs before every fetch) and returns how
    /// many pending changes each fetch examined.
    private func updateLoop(
        _ context: ObjectContext, beforeEach: (Int) throws -> Void = { _ in }
    ) throws -> [Int] {
        var examined: [Int] = []
        for key in 0..<Self.count {
            try beforeEach(key)
            let before = context.pendingObjectsEvaluated
            let found = try context.fetch(
                FetchRequest(entityName: "Employee", predicate: try ObjectPredicate(format: "key == %@", key), limit: 1)
            )
            examined.append(context.pendingObjectsEvaluated - before)
            #expect(found.count == 1)
            found.first?["rank"] = .integer(Int64(key % 7 + 1))
        }
        return examined
    }

    /// The loop examined at most one changed object per fetch (the one it fetched again, when
    /// a fetch finds a changed object), from the first fetch to the last.
    private func expectConstant(_ examined: [Int], _ note: String) {
        #expect(examined.count == Self.count)
        #expect(examined.max() ?? 0 <= 1, "\(note): a fetch examined \(examined.max() ?? 0) pending changes")
        #expect(examined.reduce(0, +) <= Self.count, "\(note): \(examined.reduce(0, +)) in all")
    }

    @Test(arguments: schemes)
    func aFetchByKeyExaminesAConstantNumberOfPendingChanges(_ scheme: String) throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let coordinator = try seededCoordinator(scheme, in: directory)
        let context = ObjectContext(coordinator: coordinator)
        expectConstant(try updateLoop(context), scheme)
        #expect(context.updatedObjects.count == Self.count)
        try context.save()
        let changed = FetchRequest(entityName: "Employee", predicate: try ObjectPredicate(format: "rank > 0"))
        #expect(try ObjectContext(coordinator: coordinator).count(changed) == Self.count)
    }

    @Test(arguments: schemes)
    func anInsertIfMissingLoopExaminesAConstantNumberOfPendingInserts(_ scheme: String) throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let coordinator = try seededCoordinator(scheme, in: directory)
        let context = ObjectContext(coordinator: coordinator)
        var examined: [Int] = []
        // Each new key is looked up twice: the first lookup inserts it, the second finds the
        // pending insert and changes it.
        for step in 0..<Self.count {
            let key = Int64(Self.count + step / 2)
            let before = context.pendingObjectsEvaluated
            let found = try context.fetch(
                FetchRequest(entityName: "Employee", predicate: try ObjectPredicate(format: "key == %@", key), limit: 1)
            )
            examined.append(context.pendingObjectsEvaluated - before)
            #expect(found.count == step % 2, "key \(key), step \(step)")
            if let object = found.first {
                object["rank"] = 9
            } else {
                let object = try context.insert("Employee")
                object["key"] = .integer(key)
            }
        }
        // Until the context holds a few changed employees it scans them; then it looks them up.
        #expect(examined.dropFirst(100).max() ?? 0 <= 1, "a lookup examined \(examined.max() ?? 0) pending inserts")
        #expect(examined.reduce(0, +) <= 2 * Self.count, "\(examined.reduce(0, +)) in all")
        context.checkPendingChangeBookkeeping()
        try context.save()
        let changed = FetchRequest(entityName: "Employee", predicate: try ObjectPredicate(format: "rank == 9"))
        #expect(try ObjectContext(coordinator: coordinator).count(changed) == Self.count / 2)
    }

    @Test(arguments: schemes)
    func changesToAnotherEntityDoNotMakeAFetchByKeyExamineThem(_ scheme: String) throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let coordinator = try seededCoordinator(scheme, in: directory)
        let context = ObjectContext(coordinator: coordinator)
        let department = try #require(try context.fetch(FetchRequest(entityName: "Department")).first)
        expectConstant(
            try updateLoop(context) { key in
                department["name"] = .string("d\(key)")
                if key % 10 == 0 { try context.insert("Department")["name"] = .string("new \(key)") }
            }, "\(scheme), departments changing")
    }

    @Test(arguments: schemes)
    func aChildsFetchByKeyExaminesAConstantNumberOfPendingChanges(_ scheme: String) throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let coordinator = try seededCoordinator(scheme, in: directory)
        let parent = ObjectContext(coordinator: coordinator, name: "parent")
        let child = ObjectContext(parent: parent, name: "child")
        expectConstant(try updateLoop(child), "\(scheme), child")
        try child.save()
        #expect(parent.updatedObjects.count == Self.count)
        // The parent now holds the child's changes as its own: its own loop examines each
        // fetched object once, not every pending change.
        expectConstant(try updateLoop(parent), "\(scheme), parent after the child's save")
    }
}
