import Foundation
import Strata
import StrataCore
import StrataRandomGraph
import StrataTestSupport
import Testing

/// A new object sorts after every saved object of its entity, so linking it to a saved parent
/// appends it to the parent's unordered to-many instead of shifting the saved IDs: linking N new
/// objects to a parent of M saved ones costs O(N), not O(N * M). And its permanent ID, the
/// store's next key, keeps the place after the save.
@Suite struct ToManyInsertionOrderTests {
    static let model = RandomGraphModel.make("to-many-insertion-order")
    static let schemes = ["memory", "sqlite", "lmdb", "xml"] + (PostgresTestServer.shouldRun ? ["postgres"] : [])

    @Test(arguments: schemes)
    func newObjectsJoinASavedToManyAtTheEndInTheOrderTheyWereMade(_ scheme: String) throws {
        let directory = TemporaryDirectory()
        let url =
            scheme == "postgres" ? try PostgresTestServer.freshStoreURL() : directory.storeURL(scheme, name: "order")
        let coordinator = StoreCoordinator(model: Self.model)
        try coordinator.addStore(BuiltInBackends.registry.open(url, model: Self.model))
        let setup = ObjectContext(coordinator: coordinator)
        let department = try setup.insert("Department")
        department["name"] = .string("d")
        department["budget"] = .integer(0)
        for key in 0..<50 { try Self.employee(setup, key: key).setObject(department, for: "department") }
        try setup.save()

        let context = ObjectContext(coordinator: coordinator)
        let parent = context.object(with: department.objectID)
        let saved = try parent.objects(for: "employees").map(\.objectID)
        #expect(saved == saved.sorted() && saved.count == 50, "\(scheme)")
        var made: [ObjectID] = []
        for key in 50..<80 {
            let employee = try Self.employee(context, key: key)
            try employee.setObject(parent, for: "department")
            made.append(employee.objectID)
        }
        #expect(try parent.objects(for: "employees").map(\.objectID) == saved + made, "\(scheme)")

        try context.save()
        let after = try parent.objects(for: "employees").map(\.objectID)
        #expect(Array(after.prefix(50)) == saved, "\(scheme): the saved employees keep their places")
        #expect(after == after.sorted() && after.allSatisfy { !$0.isTemporary }, "\(scheme)")
        let keys = try after.dropFirst(50).map { try context.object(with: $0).value(for: "key", as: Int64.self) }
        #expect(keys == (50..<80).map(Int64.init), "\(scheme): the new ones in the order they were made")
    }

    static func employee(_ context: ObjectContext, key: Int) throws -> ManagedObject {
        let employee = try context.insert("Employee")
        employee["key"] = .integer(Int64(key))
        employee["name"] = .string("e\(key)")
        employee["rank"] = .integer(1)
        employee["score"] = .double(0)
        return employee
    }
}
