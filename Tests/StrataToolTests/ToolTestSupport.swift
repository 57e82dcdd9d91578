import Foundation
import Strata
import StrataTestSupport
import StrataTransfer
import Testing

/// The repository's Company model and places for test stores.
enum Fixture {
    static let versioned: VersionedModel = try! Repository.companyVersions()
    static var model: Model { versioned.current }
    static let schemes = ["memory", "sqlite", "lmdb", "xml"]

    static func open(_ url: StoreURL, model: Model = Fixture.model) throws -> any PersistentStore {
        try BuiltInBackends.registry.open(url, model: model)
    }

    /// Every line of an export of `store`.
    static func export(_ store: any PersistentStore, entities: [String]? = nil, predicate: ObjectPredicate? = nil)
        throws -> String
    {
        var text = ""
        try JSONLinesExporter(batchSize: 37).export(from: store, entityNames: entities, predicate: predicate) {
            text += $0
        }
        return text
    }

    static func count(_ store: any PersistentStore) throws -> Int { try StoreCopier.objectCount(of: store) }
}

/// Builds the Company graph with the store API: 2 companies, 6 departments, `employees`
/// employees (keys with gaps), 12 projects with ordered members, and values of every kind the
/// model has (dates, decimals, doubles, Unicode, nulls).
func seedCompany(_ store: any PersistentStore, employees count: Int = 250) throws {
    let model = store.model
    func entity(_ name: String) -> Entity { model.entity(named: name)! }
    func make(_ id: ObjectID, _ values: [String: Value]) -> Snapshot {
        let e = entity(id.entityName)
        var snapshot = Snapshot(objectID: id, entity: e)
        for (name, value) in values { snapshot.attributes[e.attributeIndex(named: name)!] = value }
        return snapshot
    }
    func link(_ snapshot: inout Snapshot, _ name: String, _ value: RelationshipValue) {
        snapshot.relationships[entity(snapshot.objectID.entityName).relationshipIndex(named: name)!] = value
    }
    let companyIDs = try store.obtainPermanentIDs(for: "Company", count: 2)
    let departmentIDs = try store.obtainPermanentIDs(for: "Department", count: 6)
    // Every third key is skipped, so keys have gaps.
    let employeeIDs = try store.obtainPermanentIDs(for: "Employee", count: count + count / 2).enumerated().filter {
        $0.offset % 3 != 2
    }.map(\.element).prefix(count)
    let projectIDs = try store.obtainPermanentIDs(for: "Project", count: 12)
    var companies = companyIDs.enumerated().map { i, id in
        make(
            id,
            [
                "name": .string(["Acme", "Ромашка"][i]),
                "founded": i == 0 ? .date(Date(timeIntervalSince1970: 631_152_000.125)) : .null,
            ])
    }
    var departments = departmentIDs.enumerated().map { i, id in
        make(
            id,
            [
                "name": .string("Dept \(i) 部"),
                "budget": i % 2 == 0 ? .decimal(Decimal(string: "12345.67")! * Decimal(i + 1)) : .null,
            ])
    }
    var people = Array(employeeIDs).enumerated().map { i, id in
        make(
            id,
            [
                "name": .string(i % 5 == 0 ? "Ана \(i)" : "Employee \(i) \"q\""),
                "height": .double(1.5 + Double(i % 40) / 100),
                "level": .integer(Int64(1 + i % 10)),
                "dateOfBirth": i % 4 == 0
                    ? .null : .date(Date(timeIntervalSince1970: 315_532_800 + Double(i) * 86_400.5)),
            ])
    }
    var projects = projectIDs.enumerated().map { i, id in
        make(
            id,
            [
                "title": .string("Project \(i)"),
                "deadline": .date(Date(timeIntervalSince1970: 1_800_000_000 + Double(i))),
            ])
    }
    for d in departments.indices {
        let company = d % 2
        link(&departments[d], "company", .toOne(companyIDs[company]))
        let members = people.indices.filter { $0 % departments.count == d }
        link(&departments[d], "employees", .toMany(members.map { people[$0].objectID }))
        for m in members { link(&people[m], "department", .toOne(departments[d].objectID)) }
    }
    for c in companies.indices {
        link(
            &companies[c], "departments",
            .toMany(departments.indices.filter { $0 % 2 == c }.map { departments[$0].objectID }))
    }
    var projectsOf: [[ObjectID]] = Array(repeating: [], count: people.count)
    for p in projects.indices {
        // Ordered members, not in key order.
        let members = people.indices.filter { ($0 + p) % 9 == 0 }.reversed()
        link(&projects[p], "members", .toMany(members.map { people[$0].objectID }))
        for m in members { projectsOf[m].append(projects[p].objectID) }
    }
    for m in people.indices { link(&people[m], "projects", .toMany(projectsOf[m])) }
    try store.save(SaveRequest(inserts: companies + departments + people + projects))
}

/// Runs the `strata` executable built beside the test bundle, from the repository root, with
/// `STRATA_MODEL` naming the repository's Company model (what creating a store needs).
func strata(_ arguments: [String], input: String? = nil) throws -> ProgramOutput {
    try runBuilt(
        "strata", arguments, in: Repository.root, input: input ?? "",
        environment: ["STRATA_MODEL": Repository.companyModelDirectory.path])
}

/// Parses `text` as one JSON document (the tool's `--json` output).
func parseJSON(_ text: String) throws -> JSONNode {
    try JSONNode.parse(Data(text.utf8))
}
