import Foundation
import StrataCore
import StrataTestSupport

@testable import StrataSQLite

/// A fresh directory (world-traversable, for the probe that drops privileges), unique per call.
func temporaryDirectory() -> String { TemporaryDirectory().path }

/// A `sqlite:` URL for a new file in a fresh directory.
func temporaryStoreURL(_ name: String = "store.sqlite") -> StoreURL {
    StoreURL(scheme: "sqlite", location: TemporaryDirectory().file(name))
}

/// The model most tests use: every attribute type, to-one/to-many, one-to-one, many-to-many,
/// ordered to-many, and relationships that are their own inverse.
func testModel(version: String = "v1", extraAttribute: Bool = false) throws -> Model {
    var employeeAttributes = [
        Attribute("name", .string),
        Attribute("age", .integer32, isOptional: true),
        Attribute("height", .double, isOptional: true),
        Attribute("weight", .float, isOptional: true),
        Attribute("salary", .decimal, isOptional: true),
        Attribute("active", .boolean, isOptional: true),
        Attribute("hired", .date, isOptional: true),
        Attribute("photo", .binary, isOptional: true),
        Attribute("badge", .uuid, isOptional: true),
        Attribute("homepage", .uri, isOptional: true),
        Attribute("small", .integer16, isOptional: true),
        Attribute("big", .integer64, isOptional: true),
    ]
    if extraAttribute { employeeAttributes.append(Attribute("nickname", .string, isOptional: true)) }
    return try Model(
        versionIdentifier: version,
        entities: [
            Entity(
                "Department", attributes: [Attribute("name", .string)],
                relationships: [
                    Relationship("employees", to: "Employee", inverse: "department", toMany: true)
                ]),
            Entity(
                "Employee", attributes: employeeAttributes,
                relationships: [
                    Relationship("department", to: "Department", inverse: "employees"),
                    Relationship("projects", to: "Project", inverse: "members", toMany: true),
                    Relationship("mentor", to: "Employee", inverse: "mentee"),
                    Relationship("mentee", to: "Employee", inverse: "mentor"),
                ], uniqueConstraints: [["big"]], indexes: [Entity.Index(name: "byName", properties: ["name"])]),
            Entity(
                "Project", attributes: [Attribute("title", .string)],
                relationships: [
                    Relationship("members", to: "Employee", inverse: "projects", toMany: true),
                    Relationship("tasks", to: "Task", inverse: "project", toMany: true, ordered: true),
                    Relationship("milestones", to: "Milestone", inverse: "projects", toMany: true, ordered: true),
                ]),
            Entity(
                "Task", attributes: [Attribute("title", .string)],
                relationships: [
                    Relationship("project", to: "Project", inverse: "tasks")
                ]),
            Entity(
                "Milestone", attributes: [Attribute("title", .string)],
                relationships: [
                    Relationship("projects", to: "Project", inverse: "milestones", toMany: true, ordered: true)
                ]),
            Entity(
                "Person", attributes: [Attribute("name", .string)],
                relationships: [
                    Relationship("friends", to: "Person", inverse: "friends", toMany: true),
                    Relationship("spouse", to: "Person", inverse: "spouse"),
                ]),
        ])
}

/// Opens (creating) an SQLite store.
func openStore(_ url: StoreURL, model: Model? = nil, options: StoreOptions = StoreOptions()) throws -> SQLiteStore {
    try SQLiteBackend().open(url, model: model ?? testModel(), options: options) as! SQLiteStore
}

/// A snapshot of `entity` with the given attribute values by name (others null / empty).
func makeSnapshot(
    _ id: ObjectID, in model: Model, _ values: [String: Value] = [:], relationships: [String: RelationshipValue] = [:]
) -> Snapshot {
    let entity = model.entity(named: id.entityName)!
    var snapshot = Snapshot(objectID: id, entity: entity)
    for (name, value) in values { snapshot.attributes[entity.attributeIndex(named: name)!] = value }
    for (name, value) in relationships { snapshot.relationships[entity.relationshipIndex(named: name)!] = value }
    return snapshot
}

/// Runs the probe executable built beside the test bundle to its end.
func runProbe(_ arguments: [String]) throws -> ProgramOutput {
    try runBuilt("strata-sqlite-probe", arguments)
}
