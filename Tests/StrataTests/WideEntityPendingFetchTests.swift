import Foundation
import Strata
import StrataCore
import StrataTestSupport
import Testing

/// Lookups by key in a context with many changed objects of an entity with more attributes than
/// the change set has slots for: the later attributes share a slot, and a fetch by one of them
/// still reads the changed objects through a member index (a constant number a fetch), even
/// while the loop changes other attributes that share the slot, and finds what they hold now.
@Suite struct WideEntityPendingFetchTests {
    /// 40 integer attributes `a0` to `a39`, indexed by `a35` and `a38`.
    static let model = try! Model(
        versionIdentifier: "wide-pending",
        entities: [
            Entity(
                "Wide", attributes: (0..<40).map { Attribute("a\($0)", .integer64) },
                indexes: [
                    Entity.Index(name: "by35", properties: ["a35"]), Entity.Index(name: "by38", properties: ["a38"]),
                ])
        ])

    static let count = 400

    private func lookUp(_ context: ObjectContext, _ attribute: String, _ value: Int) throws -> (
        found: [ManagedObject], examined: Int
    ) {
        let before = context.pendingObjectsEvaluated
        let found = try context.fetch(
            FetchRequest(entityName: "Wide", predicate: try ObjectPredicate(format: "\(attribute) == %@", value)))
        return (Array(found), context.pendingObjectsEvaluated - before)
    }

    @Test(arguments: ["memory", "sqlite", "lmdb"])
    func lookupsByLateAttributesStayConstantAndSeeTheirChanges(_ scheme: String) throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let coordinator = StoreCoordinator(model: Self.model)
        try coordinator.addStore(
            BuiltInBackends.registry.open(directory.storeURL(scheme, name: "wide"), model: Self.model))
        let seeding = ObjectContext(coordinator: coordinator)
        for key in 0..<Self.count {
            let object = try seeding.insert("Wide")
            for attribute in 0..<40 { object["a\(attribute)"] = .integer(0) }
            object["a35"] = .integer(Int64(key))
            object["a38"] = .integer(Int64(key))
        }
        try seeding.save()

        // The update loop: by a35, change a37 (which shares a35's slot) and move a38.
        let context = ObjectContext(coordinator: coordinator)
        var examined: [Int] = []
        for key in 0..<Self.count {
            let (found, count) = try lookUp(context, "a35", key)
            examined.append(count)
            #expect(found.count == 1, "\(scheme): a35 == \(key)")
            found.first?["a37"] = .integer(Int64(key + 1))
            found.first?["a38"] = .integer(Int64(key + 10_000))
        }
        #expect(examined.dropFirst(50).max() ?? 0 <= 1, "\(scheme): a lookup examined \(examined.max() ?? 0)")
        #expect(examined.reduce(0, +) <= 2 * Self.count, "\(scheme): \(examined.reduce(0, +)) in all")

        // A second index under the shared slot: lookups by a38 find the moved values only.
        var moved: [Int] = []
        for key in stride(from: 0, to: Self.count, by: 7) {
            let (now, count) = try lookUp(context, "a38", key + 10_000)
            moved.append(count)
            #expect(now.map { $0["a35"] } == [.integer(Int64(key))], "\(scheme): a38 == \(key + 10_000)")
            #expect(try lookUp(context, "a38", key).found.isEmpty, "\(scheme): a38 == \(key), moved away")
            // Writes after the index exists reach it too.
            now.first?["a35"] = .integer(Int64(key + 50_000))
            #expect(try lookUp(context, "a35", key + 50_000).found.count == 1, "\(scheme): a35 moved")
            #expect(try lookUp(context, "a35", key).found.isEmpty, "\(scheme): a35 == \(key), moved away")
        }
        #expect(moved.dropFirst().max() ?? 0 <= 1, "\(scheme): a lookup by a38 examined \(moved.max() ?? 0)")
        context.checkPendingChangeBookkeeping()
        try context.save()

        let reader = ObjectContext(coordinator: coordinator)
        #expect(try lookUp(reader, "a38", 10_399).found.first?["a37"] == .integer(400))
        #expect(
            try reader.count(FetchRequest(entityName: "Wide", predicate: try ObjectPredicate(format: "a37 > 0")))
                == Self.count)
    }
}
