import Foundation
import Strata
import StrataTestSupport
import Testing

/// The seeds' import pattern on a container's three-tier stack: a background context imports in
/// chunks and, after each chunk, saves itself, has its parent save, and has the writer save, all
/// inside one perform block, on every backend.
///
/// The permanent IDs the writer's save gave to the first chunk's departments used to reach the
/// background context only after its block ended (through `perform`), so the second chunk's
/// save, which still named the departments by their temporary IDs, failed with a false
/// `conflict` on every department.
@Suite struct ThreeTierImportTests {
    /// Where the import context hangs: under the view context (as `ContextStack`'s workers do) or
    /// directly under the writer (as the container's background contexts do).
    enum Importer: String, CaseIterable, Sendable {
        case childOfTheViewContext, childOfTheWriter
    }

    static let chunks = 3, employeesPerChunk = 200, departmentCount = 10

    /// A store URL of `scheme` in a new temporary directory (`memory:` needs none).
    private func storeURL(_ scheme: String) throws -> String {
        guard scheme != "memory" else { return "memory:three-tier-\(UUID().uuidString)" }
        let name = ["sqlite": "company.sqlite", "lmdb": "company-lmdb", "xml": "company.xml"][scheme]!
        return "\(scheme):\(TemporaryDirectory().url.appendingPathComponent(name).path)"
    }

    /// Each employee's department, read by a new context on `coordinator` (from the stores).
    private func storedDepartments(_ coordinator: StoreCoordinator) throws -> (
        departments: Int, employees: [String: String]
    ) {
        let reader = ObjectContext(coordinator: coordinator)
        let departments = try reader.count(FetchRequest(entityName: "Department"))
        var employees: [String: String] = [:]
        for employee in try reader.fetch(Employee.self) {
            employees[employee.name] = employee.department?.name ?? "(none)"
        }
        return (departments, employees)
    }

    /// What the import should leave: employee `c-i` of chunk `c` in department `i % 10`.
    private var expected: [String: String] {
        var result: [String: String] = [:]
        for chunk in 0..<Self.chunks {
            for index in 0..<Self.employeesPerChunk {
                result["employee \(chunk)-\(index)"] = "department \(index % Self.departmentCount)"
            }
        }
        return result
    }

    @Test(arguments: ["memory", "sqlite", "lmdb", "xml"], Importer.allCases)
    func aChunkedImportSavingEveryLevelAfterEachChunkSavesEverything(scheme: String, importer: Importer) async throws {
        let model = try exampleCompanyModel()
        let container = PersistentContainer(
            name: "Company", model: model, storeDescriptions: [try StoreDescription(storeURL(scheme))], environment: [:]
        )
        try container.coordinator.registerClasses(companyClasses)
        try await container.loadPersistentStores()
        let view = container.viewContext
        let writer = container.stack.root
        let context =
            importer == .childOfTheViewContext
            ? container.stack.newWorkerContext(name: "import") : container.newBackgroundContext(name: "import")
        let parents = importer == .childOfTheViewContext ? [view, writer] : [writer]

        try await context.perform {
            var departments: [String: Department] = [:]
            for chunk in 0..<Self.chunks {
                for index in 0..<Self.employeesPerChunk {
                    let name = "department \(index % Self.departmentCount)"
                    let department =
                        departments[name]
                        ?? {
                            let new = context.insert(Department.self)
                            new.name = name
                            departments[name] = new
                            return new
                        }()
                    let employee = context.insert(Employee.self)
                    employee.name = "employee \(chunk)-\(index)"
                    employee.department = department
                }
                try context.save()
                for parent in parents { try parent.performAndWait { try parent.save() } }
            }
        }

        try await expectImported(container, model: model, scheme: scheme)
    }

    /// The same import, looking the departments up by name at the start of each chunk (a fetch
    /// through the parents) while still holding the ones it made: the fetch finds the same
    /// objects (one object per ID in a context), not copies under their permanent IDs.
    @Test(arguments: ["memory", "sqlite", "lmdb", "xml"])
    func aChunkedImportFetchingItsDepartmentsEachChunkSavesEverything(scheme: String) async throws {
        let model = try exampleCompanyModel()
        let container = PersistentContainer(
            name: "Company", model: model, storeDescriptions: [try StoreDescription(storeURL(scheme))], environment: [:]
        )
        try container.coordinator.registerClasses(companyClasses)
        try await container.loadPersistentStores()
        let view = container.viewContext
        let writer = container.stack.root
        let context = container.stack.newWorkerContext(name: "import")

        let duplicates = try await context.perform { () -> [String] in
            var departments: [String: Department] = [:]
            var duplicates: [String] = []
            for chunk in 0..<Self.chunks {
                let fetched = try context.fetch(Department.self)
                for department in fetched where departments[department.name] !== department {
                    duplicates.append(
                        "chunk \(chunk): \(department.objectID) is a second object for \(department.name)")
                    departments[department.name] = department
                }
                for index in 0..<Self.employeesPerChunk {
                    let name = "department \(index % Self.departmentCount)"
                    let department =
                        departments[name]
                        ?? {
                            let new = context.insert(Department.self)
                            new.name = name
                            departments[name] = new
                            return new
                        }()
                    let employee = context.insert(Employee.self)
                    employee.name = "employee \(chunk)-\(index)"
                    employee.department = department
                }
                try context.save()
                try view.performAndWait { try view.save() }
                try writer.performAndWait { try writer.save() }
            }
            return duplicates
        }
        #expect(duplicates.isEmpty)
        try await expectImported(container, model: model, scheme: scheme)
    }

    /// Checks the stores hold every department once and every employee in its department, and
    /// again after reopening a persistent store in a new container.
    private func expectImported(_ container: PersistentContainer, model: Model, scheme: String) async throws {
        let (departments, employees) = try storedDepartments(container.coordinator)
        #expect(departments == Self.departmentCount)
        #expect(employees.count == Self.chunks * Self.employeesPerChunk)
        #expect(employees == expected)
        guard scheme != "memory" else { return }
        let url = container.storeDescriptions[0].url
        try container.closeStores()
        let reopened = PersistentContainer(
            name: "Company", model: model, storeDescriptions: [StoreDescription(url: url)], environment: [:])
        try reopened.coordinator.registerClasses(companyClasses)
        try await reopened.loadPersistentStores()
        let (again, stored) = try storedDepartments(reopened.coordinator)
        #expect(again == Self.departmentCount && stored == expected)
        try reopened.closeStores()
    }
}
