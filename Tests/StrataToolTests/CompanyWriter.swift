import Foundation
import Strata
import StrataTestSupport

/// Random saves into a Company store through the store API, each one inverse-consistent as the
/// engine's are (both sides of every link it changes): new employees, renames, moves between
/// departments, project memberships and deletes.
struct CompanyWriter {
    let store: any PersistentStore
    var random: SeededGenerator
    /// The saves made so far.
    private(set) var saves = 0

    init(_ store: any PersistentStore, random: SeededGenerator) {
        self.store = store
        self.random = random
    }

    private func entity(_ name: String) -> Entity { store.model.entity(named: name)! }

    private func all(_ entityName: String) throws -> [Snapshot] {
        try store.fetch(FetchRequest(entityName: entityName)).snapshots()
    }

    private func relationship(_ snapshot: Snapshot, _ name: String) -> RelationshipValue {
        snapshot.relationships[entity(snapshot.objectID.entityName).relationshipIndex(named: name)!]
    }

    private func set(_ snapshot: inout Snapshot, _ name: String, _ value: RelationshipValue) {
        snapshot.relationships[entity(snapshot.objectID.entityName).relationshipIndex(named: name)!] = value
    }

    private func set(_ snapshot: inout Snapshot, attribute name: String, _ value: Value) {
        snapshot.attributes[entity(snapshot.objectID.entityName).attributeIndex(named: name)!] = value
    }

    private static func update(_ snapshot: Snapshot) -> SaveRequest.Update {
        SaveRequest.Update(snapshot, expectedVersion: snapshot.version)
    }

    /// Makes one random save, as `author`; a delete only when `deleting`.
    mutating func step(author: String? = nil, deleting: Bool = true) throws {
        let employees = try all("Employee")
        let departments = try all("Department")
        var request = SaveRequest(transactionAuthor: author)
        let choice = employees.count < 5 ? 0 : Int.random(in: 0..<(deleting ? 6 : 5), using: &random)
        switch choice {
        case 0:
            guard var department = departments.randomElement(using: &random) else { return }
            let id = try store.obtainPermanentIDs(for: "Employee", count: 1)[0]
            var employee = Snapshot(objectID: id, entity: entity("Employee"))
            set(&employee, attribute: "name", .string("New \(id.permanentKey) ü"))
            set(&employee, attribute: "height", .double(1.5 + Double(Int.random(in: 0..<50, using: &random)) / 100))
            set(&employee, attribute: "level", .integer(Int64.random(in: 1...9, using: &random)))
            set(&employee, "department", .toOne(department.objectID))
            set(&department, "employees", .toMany(relationship(department, "employees").targets + [id]))
            request.inserts = [employee]
            request.updates = [Self.update(department)]
        case 1, 2:
            var employee = employees.randomElement(using: &random)!
            set(&employee, attribute: "name", .string("Renamed \(Int.random(in: 0..<1_000, using: &random))"))
            set(&employee, attribute: "level", .integer(Int64.random(in: 1...9, using: &random)))
            request.updates = [Self.update(employee)]
        case 3:
            var employee = employees.randomElement(using: &random)!
            var target = departments.randomElement(using: &random)!
            guard case .toOne(let current?) = relationship(employee, "department"), current != target.objectID,
                var source = departments.first(where: { $0.objectID == current })
            else { return }
            set(&employee, "department", .toOne(target.objectID))
            set(
                &source, "employees",
                .toMany(relationship(source, "employees").targets.filter { $0 != employee.objectID }))
            set(&target, "employees", .toMany(relationship(target, "employees").targets + [employee.objectID]))
            request.updates = [Self.update(employee), Self.update(source), Self.update(target)]
        case 4:
            var employee = employees.randomElement(using: &random)!
            var project = try all("Project").randomElement(using: &random)!
            guard !relationship(project, "members").targets.contains(employee.objectID) else { return }
            set(&employee, "projects", .toMany(relationship(employee, "projects").targets + [project.objectID]))
            set(&project, "members", .toMany([employee.objectID] + relationship(project, "members").targets))
            request.updates = [Self.update(employee), Self.update(project)]
        default:
            let employee = employees.randomElement(using: &random)!
            var changed: [Snapshot] = []
            for var department in departments
            where relationship(department, "employees").targets.contains(employee.objectID) {
                set(
                    &department, "employees",
                    .toMany(relationship(department, "employees").targets.filter { $0 != employee.objectID }))
                changed.append(department)
            }
            for var project in try all("Project")
            where relationship(project, "members").targets.contains(employee.objectID) {
                set(
                    &project, "members",
                    .toMany(relationship(project, "members").targets.filter { $0 != employee.objectID }))
                changed.append(project)
            }
            request.updates = changed.map(Self.update)
            request.deletes = [SaveRequest.Delete(employee.objectID, expectedVersion: employee.version)]
        }
        try store.save(request)
        saves += 1
    }
}
