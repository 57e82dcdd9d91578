import Foundation
import Strata
import StrataCore
import StrataTestSupport
import Testing

/// A context's aggregate fetch answers as if its pending changes were saved, on every built-in
/// backend, and goes down to the store when nothing pending can change the answer.
@Suite struct ContextAggregateTests {
    static let model = try! Model(
        versionIdentifier: "context-aggregates",
        entities: [
            Entity(
                "Department", attributes: [Attribute("name", .string)],
                relationships: [Relationship("employees", to: "Employee", inverse: "department", toMany: true)]),
            Entity(
                "Employee", attributes: [Attribute("rank", .integer64), Attribute("pay", .double, isOptional: true)],
                relationships: [Relationship("department", to: "Department", inverse: "employees")]),
        ])

    static let byDepartment = AggregateRequest(
        entityName: "Employee",
        propertiesToFetch: [
            .value("department.name", as: "department"), .count(as: "people"), .sum("rank", as: "ranks"),
            .average("pay", as: "meanPay"), .maximum("rank", as: "top"),
        ],
        propertiesToGroupBy: ["department.name"], sorts: [.ascending("department")])

    private func coordinator(_ scheme: String, in directory: URL) throws -> StoreCoordinator {
        let location = scheme == "memory" ? "" : directory.appendingPathComponent("aggregates.\(scheme)").path
        let coordinator = StoreCoordinator(model: Self.model)
        try coordinator.addStore(
            BuiltInBackends.registry.open(StoreURL(scheme: scheme, location: location), model: Self.model))
        let context = ObjectContext(coordinator: coordinator)
        var departments: [ManagedObject] = []
        for name in ["a", "b"] {
            let department = try context.insert("Department")
            department["name"] = .string(name)
            departments.append(department)
        }
        for rank in 0..<12 {
            let employee = try context.insert("Employee")
            employee["rank"] = .integer(Int64(rank))
            employee["pay"] = rank % 3 == 0 ? .null : .double(Double(rank) * 1.5)
            if rank % 4 != 0 { try employee.setObject(departments[rank % 2], for: "department") }
        }
        try context.save()
        return coordinator
    }

    @Test(arguments: ["memory", "sqlite", "lmdb", "xml"])
    func pendingChangesAnswerAsIfSaved(_ scheme: String) throws {
        let directory = TemporaryDirectory()
        let coordinator = try coordinator(scheme, in: directory.url)
        let context = ObjectContext(coordinator: coordinator)
        let before = try context.fetchAggregates(Self.byDepartment)
        let employees = try context.fetch(FetchRequest(entityName: "Employee", sorts: [.ascending("rank")]))
        let departments = try context.fetch(FetchRequest(entityName: "Department", sorts: [.ascending("name")]))
        employees[1]["rank"] = .integer(100)
        context.delete(employees[2])
        let added = try context.insert("Employee")
        added["rank"] = .integer(7)
        try added.setObject(departments[0], for: "department")
        departments[1]["name"] = "c"
        let pending = try context.fetchAggregates(Self.byDepartment)
        #expect(pending != before, "the pending changes change the answer")
        let unchanged = try context.fetchAggregates(
            Self.byDepartment, options: FetchOptions(includesPendingChanges: false))
        #expect(unchanged == before)
        let child = ObjectContext(parent: context, name: "child")
        #expect(try child.fetchAggregates(Self.byDepartment) == pending, "a child sees its parent's pending changes")
        try context.save()
        let saved = try ObjectContext(coordinator: coordinator).fetchAggregates(Self.byDepartment)
        #expect(pending == saved)
    }

    @Test func anAggregateWithNothingPendingIsAnsweredByTheStore() throws {
        let directory = TemporaryDirectory()
        let coordinator = try coordinator("sqlite", in: directory.url)
        let context = ObjectContext(coordinator: coordinator)
        let reads = coordinator.storeReadCount
        _ = try context.fetchAggregates(Self.byDepartment)
        #expect(coordinator.storeReadCount == reads, "the store answered in one call, not through a snapshot fetch")
    }

    @Test func badRequestsAreTypedErrors() throws {
        let directory = TemporaryDirectory()
        let context = ObjectContext(coordinator: try coordinator("memory", in: directory.url))
        let sumOfName = AggregateRequest(entityName: "Department", propertiesToFetch: [.sum("name", as: "s")])
        #expect(throws: StrataError.self) { try context.fetchAggregates(sumOfName) }
        do {
            _ = try context.fetchAggregates(
                AggregateRequest(
                    entityName: "Department", propertiesToFetch: [.count(as: "n")],
                    propertiesToGroupBy: ["employees.rank"]))
            Issue.record("a group key through a to-many was accepted")
        } catch let error as StrataError {
            #expect(error.code == .invalidRequest)
            #expect(error.location["key"] == "employees.rank")
        }
    }
}
