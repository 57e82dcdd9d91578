import Foundation
import StrataCore
import StrataLMDB
import StrataTestSupport

/// A fresh directory path (not created) in a new temporary directory, removed by `cleanUp`.
func temporaryStorePath(_ label: String = "store") -> String {
    TemporaryDirectory().file("\(label).lmdb")
}

/// Removes the temporary parent of a path made by `temporaryStorePath`.
func cleanUp(_ path: String) {
    TemporaryDirectory.remove(URL(fileURLWithPath: path).deletingLastPathComponent().path)
}

/// The test model: departments and employees, with every attribute type, an index, a unique
/// constraint, a to-one/to-many pair and an ordered to-many.
func companyModel() throws -> Model {
    try Model(
        versionIdentifier: "v1",
        entities: [
            Entity(
                "Department",
                attributes: [Attribute("name", .string), Attribute("budget", .double, isOptional: true)],
                relationships: [Relationship("employees", to: "Employee", inverse: "department", toMany: true)],
                uniqueConstraints: [["name"]]),
            Entity(
                "Employee",
                attributes: [
                    Attribute("name", .string),
                    Attribute("age", .integer32),
                    Attribute("height", .double, isOptional: true),
                    Attribute("hired", .date, isOptional: true),
                    Attribute("active", .boolean, defaultValue: .bool(true)),
                    Attribute("photo", .binary, isOptional: true),
                    Attribute("badge", .uuid, isOptional: true),
                    Attribute("site", .uri, isOptional: true),
                    Attribute("salary", .decimal, isOptional: true),
                    Attribute("rating", .float, isOptional: true),
                    Attribute("level", .integer16, isOptional: true),
                ],
                relationships: [
                    Relationship("department", to: "Department", inverse: "employees"),
                    Relationship("mentor", to: "Employee", inverse: "mentees"),
                    Relationship("mentees", to: "Employee", inverse: "mentor", toMany: true, ordered: true),
                ],
                indexes: [
                    Entity.Index(name: "byAge", properties: ["age"]),
                    Entity.Index(name: "byName", properties: ["name", "age"]),
                ]),
        ])
}

/// Opens an LMDB store at `path`.
func openStore(_ path: String, model: Model? = nil, options: StoreOptions = StoreOptions()) throws -> LMDBStore {
    try LMDBBackend().openStore(
        StoreURL(scheme: "lmdb", location: path), model: model ?? companyModel(), options: options)
}

/// An employee snapshot with the given values and everything else empty.
func employee(_ id: ObjectID, name: String, age: Int64, department: ObjectID? = nil, model: Model) -> Snapshot {
    let entity = model.entity(named: "Employee")!
    var snapshot = Snapshot(objectID: id, entity: entity)
    snapshot.attributes[0] = .string(name)
    snapshot.attributes[1] = .integer(age)
    snapshot.relationships[0] = .toOne(department)
    return snapshot
}

/// A department snapshot.
func department(_ id: ObjectID, name: String, employees: [ObjectID] = [], model: Model) -> Snapshot {
    let entity = model.entity(named: "Department")!
    var snapshot = Snapshot(objectID: id, entity: entity)
    snapshot.attributes[0] = .string(name)
    snapshot.relationships[0] = .toMany(employees)
    return snapshot
}

/// Runs the probe executable to its end.
func runProbe(_ arguments: [String]) throws -> ProgramOutput {
    try runBuilt("strata-lmdb-probe", arguments)
}
