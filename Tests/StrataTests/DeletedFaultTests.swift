import Foundation
import Strata
import StrataCore
import StrataTestSupport
import Testing

/// Deleting faults: the save loads them, and the targets their delete rules reach, with one
/// store request per entity (per level of a cascade) instead of one per object, on every
/// backend; delete rules, history tombstones and the conflict check still see the stored state.
@Suite struct DeletedFaultTests {
    static let model = try! Model(
        versionIdentifier: "deleted-faults",
        entities: [
            Entity(
                "Department", attributes: [Attribute("name", .string, preservesValueOnDeletion: true)],
                relationships: [
                    Relationship("employees", to: "Employee", inverse: "department", toMany: true, deleteRule: .cascade)
                ]),
            Entity(
                "Employee",
                attributes: [
                    Attribute("name", .string, preservesValueOnDeletion: true), Attribute("rank", .integer64),
                ],
                relationships: [
                    Relationship("department", to: "Department", inverse: "employees", deleteRule: .nullify),
                    Relationship("projects", to: "Project", inverse: "members", toMany: true, deleteRule: .nullify),
                ]),
            Entity(
                "Project", attributes: [Attribute("title", .string)],
                relationships: [
                    Relationship("members", to: "Employee", inverse: "projects", toMany: true, deleteRule: .deny)
                ]),
            Entity("Note", attributes: [Attribute("text", .string, preservesValueOnDeletion: true)]),
        ])

    /// Every backend; PostgreSQL when a test server is set.
    static let schemes = ["memory", "sqlite", "lmdb", "xml"] + (PostgresTestServer.shouldRun ? ["postgres"] : [])

    /// The IDs the seeding save gave: 3 departments of 10 employees each, 2 projects (the first
    /// with employees 0 and 1, the second with employee 29), 40 notes.
    struct Seeded {
        var departments: [ObjectID] = []
        var employees: [ObjectID] = []
        var projects: [ObjectID] = []
        var notes: [ObjectID] = []
    }

    /// A store of `scheme`, seeded; ``coordinator()`` opens it anew (an empty row cache).
    final class Fixture {
        let url: StoreURL
        let directory = TemporaryDirectory()
        var seeded = Seeded()
        private var opened: [any PersistentStore] = []

        init(_ scheme: String) throws {
            url = scheme == "postgres" ? try PostgresTestServer.freshStoreURL() : directory.storeURL(scheme)
            let seeding = try coordinator()
            let context = ObjectContext(coordinator: seeding)
            try context.performAndWait {
                let departments = try (0..<3).map { index in
                    let department = try context.insert("Department")
                    department["name"] = .string("department \(index)")
                    return department
                }
                let employees = try (0..<30).map { index in
                    let employee = try context.insert("Employee")
                    employee["name"] = .string("employee \(index)")
                    employee["rank"] = .integer(Int64(index))
                    try employee.setObject(departments[index / 10], for: "department")
                    return employee
                }
                let projects = try (0..<2).map { index in
                    let project = try context.insert("Project")
                    project["title"] = .string("project \(index)")
                    return project
                }
                try projects[0].setObjects([employees[0], employees[1]], for: "members")
                try projects[1].setObjects([employees[29]], for: "members")
                let notes = try (0..<40).map { index in
                    let note = try context.insert("Note")
                    note["text"] = .string("note \(index)")
                    return note
                }
                try context.save()
                seeded = Seeded(
                    departments: departments.map(\.objectID), employees: employees.map(\.objectID),
                    projects: projects.map(\.objectID), notes: notes.map(\.objectID))
            }
        }

        /// A new coordinator on the store, opened anew: nothing in its row cache.
        func coordinator() throws -> StoreCoordinator {
            let coordinator = StoreCoordinator(model: DeletedFaultTests.model)
            let store = try BuiltInBackends.registry.open(url, model: DeletedFaultTests.model)
            opened.append(store)
            try coordinator.addStore(store)
            return coordinator
        }

        deinit {
            for store in opened { try? store.close() }
            if url.scheme == "postgres" { try? BuiltInBackends.registry.backend(for: "postgres").destroyStore(at: url) }
            directory.cleanUp()
        }
    }

    /// The IDs of every object of `entity` in the store, read anew.
    private func stored(_ entity: String, _ fixture: Fixture) throws -> Set<ObjectID> {
        Set(try ObjectContext(coordinator: try fixture.coordinator()).fetchObjectIDs(FetchRequest(entityName: entity)))
    }

    @Test(arguments: schemes)
    func deletingFaultsReadsEachEntityOnceAndRecordsTheirTombstones(_ scheme: String) throws {
        let fixture = try Fixture(scheme)
        let coordinator = try fixture.coordinator()
        let context = ObjectContext(coordinator: coordinator)
        let deleted = Array(fixture.seeded.notes.prefix(30))
        let token = try coordinator.lastHistoryToken()
        let before = coordinator.storeReadCount
        try context.performAndWait {
            for id in deleted { context.delete(context.object(with: id)) }
            #expect(coordinator.storeReadCount == before, "a delete reads nothing")
            try context.save()
        }
        #expect(coordinator.storeReadCount - before <= 1, "30 deleted faults of one entity: one read")
        #expect(try stored("Note", fixture) == Set(fixture.seeded.notes.suffix(10)))
        let transactions = try coordinator.fetchHistory(HistoryRequest(after: token))
        let changes = try #require(transactions.last).changes
        #expect(changes.count == 30)
        for change in changes {
            let index = try #require(fixture.seeded.notes.firstIndex(of: change.objectID))
            #expect(change.kind == .delete)
            #expect(change.tombstone == ["text": .string("note \(index)")])
        }
    }

    @Test(arguments: schemes)
    func deleteRulesOfFaultsRunOnTheirStoredState(_ scheme: String) throws {
        let fixture = try Fixture(scheme)
        let seeded = fixture.seeded
        let coordinator = try fixture.coordinator()
        let context = ObjectContext(coordinator: coordinator)
        let token = try coordinator.lastHistoryToken()
        let before = coordinator.storeReadCount
        // Department 1 cascades to employees 10-19 (none in a project); employee 2 is nullified
        // out of department 0; employee 29 out of project 1 (whose deny rule is not reached).
        try context.performAndWait {
            context.delete(context.object(with: seeded.departments[1]))
            context.delete(context.object(with: seeded.employees[2]))
            context.delete(context.object(with: seeded.employees[29]))
            try context.save()
        }
        // The deleted faults (two entities), the cascade's employees and the nullified
        // department and project: a handful of reads, whatever the number of objects.
        #expect(coordinator.storeReadCount - before <= 6)
        let employees = Set(seeded.employees).subtracting(seeded.employees[10..<20]).subtracting([
            seeded.employees[2], seeded.employees[29],
        ])
        #expect(try stored("Employee", fixture) == employees)
        #expect(try stored("Department", fixture) == [seeded.departments[0], seeded.departments[2]])
        let reader = ObjectContext(coordinator: try fixture.coordinator())
        try reader.performAndWait {
            let staff = try reader.existingObject(with: seeded.departments[0]).objects(for: "employees")
            #expect(Set(staff.map(\.objectID)) == Set(seeded.employees.prefix(10)).subtracting([seeded.employees[2]]))
            let members = try reader.existingObject(with: seeded.projects[1]).objects(for: "members")
            #expect(members.isEmpty)
        }
        let changes = try #require(try coordinator.fetchHistory(HistoryRequest(after: token)).last).changes
        let tombstones = Dictionary(
            uniqueKeysWithValues: changes.filter { $0.kind == .delete }.map { ($0.objectID, $0.tombstone) })
        #expect(tombstones.count == 13)
        #expect(tombstones[seeded.departments[1]] == ["name": .string("department 1")])
        #expect(tombstones[seeded.employees[15]] == ["name": .string("employee 15")])
        #expect(tombstones[seeded.employees[29]] == ["name": .string("employee 29")])
    }

    @Test(arguments: schemes)
    func aDenyRuleOfAFaultStopsTheSave(_ scheme: String) throws {
        let fixture = try Fixture(scheme)
        let context = ObjectContext(coordinator: try fixture.coordinator())
        let error = #expect(throws: StrataError.self) {
            try context.performAndWait {
                context.delete(context.object(with: fixture.seeded.projects[0]))
                context.delete(context.object(with: fixture.seeded.notes[0]))
                try context.save()
            }
        }
        #expect(error?.code == .deleteDenied)
        context.performAndWait { #expect(context.deletedObjects.count == 2, "the failed save changed nothing") }
        #expect(try stored("Project", fixture).count == 2)
        #expect(try stored("Note", fixture).count == 40)
    }

    @Test(arguments: schemes)
    func aFaultDeletedElsewhereBeforeTheSaveIsAConflict(_ scheme: String) throws {
        let fixture = try Fixture(scheme)
        let coordinator = try fixture.coordinator()
        let context = ObjectContext(coordinator: coordinator)
        context.performAndWait {
            context.delete(context.object(with: fixture.seeded.notes[0]))
            context.delete(context.object(with: fixture.seeded.notes[1]))
        }
        let other = ObjectContext(coordinator: coordinator)
        try other.performAndWait {
            other.delete(try other.existingObject(with: fixture.seeded.notes[0]))
            try other.save()
        }
        let error = #expect(throws: StrataError.self) { try context.performAndWait { try context.save() } }
        #expect(error?.code == .conflict)
        #expect(error?.conflicts.map(\.objectID) == [fixture.seeded.notes[0]])
        #expect(error?.conflicts.first?.storedSnapshot == nil)
        #expect(try stored("Note", fixture).count == 39, "nothing of the failed save was written")
        // Under a merge policy the object already gone leaves the save, which goes through.
        context.mergePolicy = .mergeByPropertyObjectTrump
        try context.performAndWait { try context.save() }
        #expect(try stored("Note", fixture) == Set(fixture.seeded.notes.dropFirst(2)))
        context.performAndWait { #expect(!context.hasChanges) }
    }

    @Test(arguments: schemes)
    func anObjectReadThenDeletedIsCheckedAtTheVersionItWasRead(_ scheme: String) throws {
        let fixture = try Fixture(scheme)
        let coordinator = try fixture.coordinator()
        let context = ObjectContext(coordinator: coordinator)
        let id = fixture.seeded.notes[3]
        let note = try context.performAndWait { try context.existingObject(with: id) }
        let other = ObjectContext(coordinator: coordinator)
        try other.performAndWait {
            try other.existingObject(with: id)["text"] = .string("changed elsewhere")
            try other.save()
        }
        let error = #expect(throws: StrataError.self) {
            try context.performAndWait {
                context.delete(note)
                try context.save()
            }
        }
        #expect(error?.code == .conflict)
        #expect(error?.conflicts.first?.storedSnapshot?.attributes == [.string("changed elsewhere")])
    }

    @Test(arguments: schemes)
    func aChildDeletingFaultsWithRulesAsksItsParentOnce(_ scheme: String) throws {
        let fixture = try Fixture(scheme)
        let seeded = fixture.seeded
        let coordinator = try fixture.coordinator()
        let writer = ObjectContext(coordinator: coordinator, name: "writer")
        let child = ObjectContext(parent: writer, name: "child")
        let before = coordinator.storeReadCount
        try child.performAndWait {
            for id in seeded.employees[10..<20] { child.delete(child.object(with: id)) }
            #expect(coordinator.storeReadCount == before, "a delete reads nothing")
            try child.save()
        }
        try writer.performAndWait { try writer.save() }
        #expect(coordinator.storeReadCount - before <= 4)
        #expect(try stored("Employee", fixture) == Set(seeded.employees).subtracting(seeded.employees[10..<20]))
        let reader = ObjectContext(coordinator: try fixture.coordinator())
        let left = try reader.performAndWait {
            try reader.existingObject(with: seeded.departments[1]).objects(for: "employees")
        }
        #expect(left.isEmpty)
    }
}
