import Foundation
import Strata

// The Company model (Examples/Models/Company.stratamodel, v3) as typed subclasses.

@Managed
final class Company: ManagedObject {
    @Attribute(validation: AttributeValidation(minimumLength: 1)) var name: String
    var founded: Date?
    @Relationship(inverse: "company", deleteRule: .cascade) var departments: Set<Department>
}

@Managed
final class Department: ManagedObject {
    @Attribute(validation: AttributeValidation(minimumLength: 1)) var name: String
    var budget: Decimal?
    @Relationship(inverse: "departments") var company: Company?
    @Relationship(inverse: "department") var employees: Set<Employee>
}

@Managed
final class Employee: ManagedObject {
    @Attribute(validation: AttributeValidation(minimumLength: 1, maximumLength: 100)) var name: String
    @Attribute(renamedFrom: "birthday") var dateOfBirth: Date?
    @Attribute(default: 1.7, validation: AttributeValidation(minimum: 0.0, maximum: 3.0)) var height: Double
    @Attribute(default: 1, validation: AttributeValidation(minimum: 1, maximum: 10)) var level: Int16
    @Relationship(inverse: "employees") var department: Department?
    @Relationship(inverse: "members") var projects: Set<Project>

    override class var indexes: [Entity.Index] { [Entity.Index(name: "byName", properties: ["name"])] }
}

@Managed
final class Project: ManagedObject {
    @Attribute(validation: AttributeValidation(minimumLength: 1)) var title: String
    var deadline: Date?
    @Relationship(inverse: "projects") var members: [Employee]

    override class var uniqueConstraints: [[String]] { [["title"]] }
}

let companyClasses: [ManagedObject.Type] = [Company.self, Department.self, Employee.self, Project.self]

/// The Company model, v3, read from the example directory.
func exampleCompanyModel() throws -> Model {
    let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Examples/Models/Company.stratamodel")
    return try VersionedModel(directory: directory).current
}

/// A context on a fresh in-memory store of `model`, with the typed classes registered.
func makeContext(_ model: Model? = nil, rowCacheCapacity: Int = 50_000) throws -> ObjectContext {
    let model = try model ?? exampleCompanyModel()
    let coordinator = StoreCoordinator(model: model, rowCacheCapacity: rowCacheCapacity)
    try coordinator.addStore(BuiltInBackends.registry.open("memory:", model: model))
    if model.entity(named: "Project") != nil { try coordinator.registerClasses(companyClasses) }
    return ObjectContext(coordinator: coordinator)
}
