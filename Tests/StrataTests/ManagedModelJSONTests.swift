import Foundation
import Strata
import StrataTestSupport
import Testing

/// `@Managed` classes and the same model written as a JSON model file have one version hash, so
/// that a store made by either opens with the other, in a program and in the `strata` tool.
@Suite struct ManagedModelJSONTests {
    static let schemes = ["sqlite", "lmdb", "xml"]

    @Test func theClassesModelJSONReadsBackAsTheSameModel() throws {
        let model = try Model(versionIdentifier: "v3", classes: companyClasses)
        let back = try Model(jsonData: model.jsonData())
        #expect(back.entities == model.entities)
        #expect(back.versionHash == model.versionHash)
        #expect(back.versionHash == (try exampleCompanyModel()).versionHash)
    }

    /// A context on the store at `url`, opened with `model`, with the Company classes registered.
    static func context(_ url: StoreURL, _ model: Model) throws -> ObjectContext {
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addStore(BuiltInBackends.registry.open(url, model: model))
        try coordinator.registerClasses(companyClasses)
        return ObjectContext(coordinator: coordinator)
    }

    static func saveCompany(_ context: ObjectContext) throws {
        let acme = context.insert(Company.self)
        acme.name = "Acme"
        let lab = context.insert(Department.self)
        lab.name = "Lab"
        lab.budget = Decimal(string: "1234.5")
        lab.company = acme
        for (name, level) in [("Ada", Int16(7)), ("Brian", Int16(2))] {
            let person = context.insert(Employee.self)
            person.name = name
            person.level = level
            person.department = lab
        }
        let project = context.insert(Project.self)
        project.title = "Engine"
        project.members = try context.fetch(Employee.self).sorted { $0.name > $1.name }
        try context.save()
    }

    @Test(arguments: schemes)
    func theToolReadsAStoreMadeFromTheClasses(_ scheme: String) throws {
        try withTemporaryDirectory { directory in
            let model = try Model(versionIdentifier: "company", classes: companyClasses)
            let file = directory.appendingPathComponent("company.json")
            try model.jsonData().write(to: file)
            let url = storeURL(scheme, in: directory)
            try Self.saveCompany(try Self.context(url, model))

            for modelPath in [file.path, Repository.companyModelDirectory.path] {
                let inspect = try runBuilt("strata", ["inspect", url.description, "--model", modelPath])
                #expect(inspect.status == 0, "\(inspect.errors)")
                #expect(inspect.output.contains("objects:      5"), "\(inspect.output)")
                let export = try runBuilt("strata", ["export", url.description, "--model", modelPath])
                #expect(export.status == 0, "\(export.errors)")
                #expect(export.output.contains(#""name":"Ada""#))
                #expect(export.output.contains(#""level":7"#))
            }
            let inspect = try runBuilt("strata", ["inspect", url.description, "--model", file.path])
            #expect(inspect.output.contains("model:        company company (the current version)"), "\(inspect.output)")
        }
    }

    /// A store the tool imports with the example's JSON model opens with the classes' model.
    @Test(arguments: schemes)
    func aStoreMadeFromTheJSONFileOpensWithTheClasses(_ scheme: String) throws {
        try withTemporaryDirectory { directory in
            let source = storeURL(scheme, in: directory, name: "source")
            try Self.saveCompany(try Self.context(source, try Model(versionIdentifier: "v3", classes: companyClasses)))
            let export = try runBuilt("strata", ["export", source.description], in: Repository.root)
            #expect(export.status == 0, "\(export.errors)")
            let lines = directory.appendingPathComponent("company.jsonl")
            try Data(export.output.utf8).write(to: lines)
            let imported = storeURL(scheme, in: directory, name: "imported")
            let run = try runBuilt(
                "strata",
                ["import", imported.description, lines.path, "--model", Repository.companyModelDirectory.path])
            #expect(run.status == 0, "\(run.errors)")

            let context = try Self.context(imported, try Model(versionIdentifier: "v3", classes: companyClasses))
            let project = try #require(try context.fetch(Project.self).first)
            #expect(project.title == "Engine")
            #expect(project.members.map(\.name) == ["Brian", "Ada"])
            #expect(project.members.map(\.level) == [2, 7])
            #expect(project.members.first?.department?.budget == Decimal(string: "1234.5"))
            #expect(project.members.first?.department?.company?.name == "Acme")
        }
    }
}
