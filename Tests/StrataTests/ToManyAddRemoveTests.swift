import Foundation
import Strata
import StrataCore
import StrataRandomGraph
import StrataTestSupport
import Testing

/// `add(_:to:)` and `remove(_:from:)` change a to-many relationship in place (they had made an
/// object for every target and two sets of IDs for each call: O(N x M) to add N objects to a
/// relationship of M), inverses stay in step, and adding what is there or removing what is not
/// changes nothing.
@Suite struct ToManyAddRemoveTests {
    static let model = RandomGraphModel.make("to-many-add-remove")
    static let schemes = ["memory", "sqlite", "lmdb", "xml"]

    @Test(arguments: schemes)
    func addAndRemoveChangeTheRelationshipInPlaceWithTheirInverses(_ scheme: String) throws {
        let directory = TemporaryDirectory()
        let url = directory.storeURL(scheme, name: "add")
        let coordinator = StoreCoordinator(model: Self.model)
        try coordinator.addStore(BuiltInBackends.registry.open(url, model: Self.model))
        let setup = ObjectContext(coordinator: coordinator)
        let (first, second) = (try Self.department(setup, "d1"), try Self.department(setup, "d2"))
        var made: [ManagedObject] = []
        for key in 0..<50 {
            let employee = try ToManyInsertionOrderTests.employee(setup, key: key)
            try employee.setObject(first, for: "department")
            made.append(employee)
        }
        try setup.save()
        let employees = made.map(\.objectID)

        let context = ObjectContext(coordinator: coordinator)
        let target = context.object(with: second.objectID)
        let moved = context.object(with: employees[7])
        try target.add(moved, to: "employees")
        #expect(try moved.object(for: "department") === target, "\(scheme)")
        #expect(try target.objects(for: "employees") == [moved], "\(scheme)")
        let source = context.object(with: first.objectID)
        #expect(!(try source.objects(for: "employees")).contains(moved), "\(scheme)")
        #expect(try source.objects(for: "employees").count == 49, "\(scheme)")

        // Adding to the department of 50 saved employees keeps none of them.
        let fresh = ObjectContext(coordinator: coordinator)
        let large = fresh.object(with: first.objectID)
        let hired = try ToManyInsertionOrderTests.employee(fresh, key: 100)
        try large.add(hired, to: "employees")
        #expect(try hired.object(for: "department") === large, "\(scheme)")
        #expect(fresh.registeredObjects.count == 2, "\(scheme): \(fresh.registeredObjects.count) objects registered")
        #expect(try large.objects(for: "employees").count == 51, "\(scheme)")

        // Adding what is there, removing what is not: no change.
        try target.add(moved, to: "employees")
        #expect(try target.objects(for: "employees") == [moved], "\(scheme)")
        try source.remove(moved, from: "employees")
        #expect(try moved.object(for: "department") === target, "\(scheme)")

        try context.save()
        let reading = ObjectContext(coordinator: coordinator)
        #expect(
            try reading.object(with: second.objectID).objects(for: "employees").map(\.objectID) == [employees[7]],
            "\(scheme)")

        try target.remove(moved, from: "employees")
        #expect(try moved.object(for: "department") == nil, "\(scheme)")
        #expect(try target.objects(for: "employees").isEmpty, "\(scheme)")
        #expect(throws: StrataError.self) { try moved.add(target, to: "department") }
    }

    static func department(_ context: ObjectContext, _ name: String) throws -> ManagedObject {
        let department = try context.insert("Department")
        department["name"] = .string(name)
        department["budget"] = .integer(0)
        return department
    }
}
