import Foundation
import Strata

// The seeds' Company model (Examples/Models/Company.stratamodel, v3) as typed subclasses.

final class Company: ManagedObject {
    @Managed(validation: AttributeValidation(minimumLength: 1)) var name: String
    @Managed var founded: Date?
    @Related(inverse: "company", deleteRule: .cascade) var departments: Set<Department>
}

final class Department: ManagedObject {
    @Managed(validation: AttributeValidation(minimumLength: 1)) var name: String
    @Managed var budget: Decimal?
    @Related(inverse: "departments") var company: Company?
    @Related(inverse: "department") var employees: Set<Employee>
}

final class Employee: ManagedObject {
    @Managed(validation: AttributeValidation(minimumLength: 1, maximumLength: 100)) var name: String
    @Managed(renamedFrom: "birthday") var dateOfBirth: Date?
    @Managed(default: 1.7, validation: AttributeValidation(minimum: 0.0, maximum: 3.0)) var height: Double
    @Managed(default: 1, validation: AttributeValidation(minimum: 1, maximum: 10)) var level: Int16
    @Related(inverse: "employees") var department: Department?
    @Related(inverse: "members") var projects: Set<Project>

    override class var indexes: [Entity.Index] { [Entity.Index(name: "byName", properties: ["name"])] }
}

final class Project: ManagedObject {
    @Managed(validation: AttributeValidation(minimumLength: 1)) var title: String
    @Managed var deadline: Date?
    @Related(inverse: "projects") var members: [Employee]

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
    if model.entity(named: "Project") != nil { coordinator.registerClasses(companyClasses) }
    return ObjectContext(coordinator: coordinator)
}
