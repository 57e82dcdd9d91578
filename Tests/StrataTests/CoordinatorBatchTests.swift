import Foundation
import Strata
import StrataCore
import StrataRandomGraph
import StrataTestSupport
import Testing

/// Batch deletes and updates through the coordinator, on every backend: natively where the store
/// has batch operations (memory, SQLite, PostgreSQL), through one save of the store protocol
/// elsewhere (LMDB, XML). The row cache forgets what a batch changed at once, other objects'
/// references to deleted ones are emptied, and bad input is a typed error that changes nothing.
@Suite struct CoordinatorBatchTests {
    static let model = RandomGraphModel.make("coordinator-batch")
    static let schemes = ["memory", "sqlite", "lmdb", "xml"] + (PostgresTestServer.shouldRun ? ["postgres"] : [])

    /// A coordinator on a new store of `scheme` holding 2 departments and 6 employees (keys 0 to
    /// 5; employees 0 to 2 in the first department, 3 to 5 in the second), loaded once so the
    /// row cache holds every row.
    struct Fixture {
        let coordinator: StoreCoordinator
        let url: StoreURL
        let directory = TemporaryDirectory()
        var departments: [ObjectID] = []
        var employees: [ObjectID] = []

        init(_ scheme: String) throws {
            url =
                scheme == "postgres"
                ? try PostgresTestServer.freshStoreURL()
                : StoreURL(scheme: scheme, location: scheme == "memory" ? "" : directory.file("batch.\(scheme)"))
            coordinator = StoreCoordinator(model: CoordinatorBatchTests.model)
            try coordinator.addStore(BuiltInBackends.registry.open(url, model: CoordinatorBatchTests.model))
            let context = ObjectContext(coordinator: coordinator)
            let made = try (0..<2).map { index in
                let department = try context.insert("Department")
                department["name"] = .string("d\(index)")
                department["budget"] = .integer(Int64(index))
                return department
            }
            for key in 0..<6 {
                let employee = try context.insert("Employee")
                employee["key"] = .integer(Int64(key))
                employee["name"] = .string("e\(key)")
                employee["rank"] = .integer(1)
                employee["score"] = .double(0)
                try employee.setObject(made[key / 3], for: "department")
            }
            try context.save()
            departments = made.map(\.objectID)
            let reading = ObjectContext(coordinator: coordinator)
            employees = try reading.fetchObjectIDs(FetchRequest(entityName: "Employee", sorts: [Sort("key")]))
            _ = try reading.fetch(FetchRequest(entityName: "Department"))
            _ = try reading.fetch(FetchRequest(entityName: "Employee"))
        }

        /// The keys of the employees of `department` as a new context reads them.
        func keys(of department: ObjectID) throws -> [Int64] {
            let context = ObjectContext(coordinator: coordinator)
            return try context.object(with: department).objects(for: "employees").map {
                try $0.value(for: "key", as: Int64.self)
            }.sorted()
        }
    }

    @Test(arguments: schemes)
    func aBatchDeleteByIDsDeletesThemAndEmptiesTheirReferences(_ scheme: String) throws {
        let fixture = try Fixture(scheme)
        let before = try #require(try fixture.coordinator.snapshot(for: fixture.departments[0])).version
        // Named twice, and beside an ID of another store (of a store this coordinator does not
        // have): each deleted once, the foreign one passed over.
        let foreign = ObjectID(entityName: "Employee", storeIdentifier: "ANOTHER-STORE", primaryKey: 1)
        let result = try fixture.coordinator.batchDelete([
            fixture.employees[1], fixture.employees[0], fixture.employees[1], foreign,
        ])
        #expect(result.objectIDs == [fixture.employees[0], fixture.employees[1]].sorted(), "\(scheme)")

        let context = ObjectContext(coordinator: fixture.coordinator)
        #expect(try context.count(FetchRequest(entityName: "Employee")) == 4, "\(scheme)")
        #expect(throws: StrataError.self, "\(scheme): the row cache forgot the deleted object") {
            try context.existingObject(with: fixture.employees[0])
        }
        #expect(try fixture.keys(of: fixture.departments[0]) == [2], "\(scheme)")
        #expect(try fixture.keys(of: fixture.departments[1]) == [3, 4, 5], "\(scheme)")
        let after = try #require(try fixture.coordinator.snapshot(for: fixture.departments[0])).version
        #expect(after > before, "\(scheme): the department whose employees were deleted has a new version")

        #expect(try fixture.coordinator.batchDelete([fixture.employees[0]]).objectIDs == [], "\(scheme): gone already")
    }

    @Test(arguments: schemes)
    func aContextHoldingAnOldStateOfAReferringObjectGetsAConflict(_ scheme: String) throws {
        let fixture = try Fixture(scheme)
        let holder = ObjectContext(coordinator: fixture.coordinator)
        let department = holder.object(with: fixture.departments[0])
        #expect(try department.objects(for: "employees").count == 3)
        try fixture.coordinator.batchDelete(
            entityName: "Employee", where: try ObjectPredicate(format: "key < %@", Int64(2)))
        department["budget"] = .integer(99)
        #expect(throws: StrataError.self, "\(scheme): saving the old relationship back would name deleted objects") {
            try holder.save()
        }
        #expect(try fixture.keys(of: fixture.departments[0]) == [2], "\(scheme)")
    }

    @Test(arguments: schemes)
    func aBatchUpdateChangesTheMatchingObjectsAndTheRowCacheForgetsThem(_ scheme: String) throws {
        let fixture = try Fixture(scheme)
        let result = try fixture.coordinator.batchUpdate(
            entityName: "Employee", where: try ObjectPredicate(format: "key >= %@", Int64(4)),
            set: ["rank": .integer(7), "name": .string("renamed")])
        #expect(result.objectIDs == [fixture.employees[4], fixture.employees[5]].sorted(), "\(scheme)")
        let context = ObjectContext(coordinator: fixture.coordinator)
        let ranks = try context.fetch(FetchRequest(entityName: "Employee", sorts: [Sort("key")])).map {
            try $0.value(for: "rank", as: Int64.self)
        }
        #expect(ranks == [1, 1, 1, 1, 7, 7], "\(scheme)")
        #expect(try context.existingObject(with: fixture.employees[5]).value(for: "name", as: String.self) == "renamed")
    }

    @Test(arguments: schemes)
    func badInputIsATypedErrorThatChangesNothing(_ scheme: String) throws {
        let fixture = try Fixture(scheme)
        let coordinator = fixture.coordinator
        func code(_ body: () throws -> Void) -> StrataError.Code? {
            do {
                try body()
                return nil
            } catch let error as StrataError { return error.code } catch { return nil }
        }
        #expect(
            code { try coordinator.batchUpdate(entityName: "Employee", set: ["salary": .integer(1)]) } == .unknownKey)
        #expect(
            code { try coordinator.batchUpdate(entityName: "Employee", set: ["rank": .string("x")]) } == .typeMismatch)
        #expect(code { try coordinator.batchDelete(entityName: "Nobody") } == .unknownEntity)
        let context = ObjectContext(coordinator: coordinator)
        let unsaved = try context.insert("Employee")
        #expect(code { try coordinator.batchDelete([fixture.employees[0], unsaved.objectID]) } == .invalidObjectID)
        let fresh = ObjectContext(coordinator: coordinator)
        #expect(try fresh.count(FetchRequest(entityName: "Employee")) == 6, "\(scheme)")
        #expect(
            try fresh.fetch(FetchRequest(entityName: "Employee")).allSatisfy {
                try $0.value(for: "rank", as: Int64.self) == 1
            }, "\(scheme)")
    }

    /// On a store without batch operations (one save through the store protocol), a batch of
    /// every object of an entity deletes them all and empties every reference to them; a second
    /// batch finds nothing to do.
    @Test(arguments: ["lmdb", "xml"])
    func aBatchThroughTheStoreProtocolDeletesEverythingItMatches(_ scheme: String) throws {
        let fixture = try Fixture(scheme)
        let result = try fixture.coordinator.batchDelete(entityName: "Employee")
        #expect(result.objectIDs == fixture.employees.sorted(), "\(scheme)")
        #expect(try fixture.keys(of: fixture.departments[0]) == [], "\(scheme)")
        #expect(try fixture.keys(of: fixture.departments[1]) == [], "\(scheme)")
        #expect(try fixture.coordinator.batchDelete(entityName: "Employee").objectIDs == [], "\(scheme)")
    }

    /// What the container test keeps between hops to the view context's queue (touched only there).
    final class Held: @unchecked Sendable {
        var department: ManagedObject?
    }

    /// A container whose view context merges remote changes hears of a batch delete made through
    /// its own coordinator as of another process's save: a department the view context holds
    /// loses the deleted employees without a refetch.
    @Test(arguments: ["sqlite", "lmdb", "xml"] + (PostgresTestServer.shouldRun ? ["postgres"] : []))
    func aViewContextMergingRemoteChangesHearsOfABatch(_ scheme: String) async throws {
        let fixture = try Fixture(scheme)
        try fixture.coordinator.store(for: "Employee").close()
        let container = PersistentContainer(
            name: "batch", model: Self.model, storeDescriptions: [StoreDescription(url: fixture.url)],
            environment: [:])
        container.remoteChangePollInterval = .milliseconds(1)
        container.viewContext.automaticallyMergesRemoteChanges = true
        try await container.loadPersistentStores()
        defer { try? container.closeStores() }
        let view = container.viewContext
        let held = Held()
        let departmentID = fixture.departments[0]
        let before = try await view.perform {
            held.department = view.object(with: departmentID)
            return try held.department!.objects(for: "employees").count
        }
        #expect(before == 3)
        try container.coordinator.batchDelete([fixture.employees[0], fixture.employees[1]])
        var after = before
        for _ in 0..<500 where after != 1 {
            try await Task.sleep(for: .milliseconds(10))
            after = try await view.perform { try held.department!.objects(for: "employees").count }
        }
        #expect(after == 1, "\(scheme): the view context merged the batch")
    }
}
