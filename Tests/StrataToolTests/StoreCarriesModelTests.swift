import Foundation
import Strata
import StrataTestSupport
import Testing

/// A store carries the model it was written with, so the tool reads it from any directory
/// without `--model`, and a given model must agree with it.
@Suite struct StoreCarriesModelTests {
    static let persistentSchemes = ["sqlite", "lmdb", "xml"]

    /// Runs `strata` in `directory`, which holds no model, without `--model` unless given.
    func strata(in directory: TemporaryDirectory, _ arguments: [String]) throws -> ProgramOutput {
        try runBuilt("strata", arguments, in: URL(fileURLWithPath: directory.path))
    }

    /// A new empty directory to run the tool in.
    func emptyDirectory() throws -> TemporaryDirectory {
        let directory = TemporaryDirectory()
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        return directory
    }

    @Test func demoRunsInAnEmptyDirectory() throws {
        let directory = try emptyDirectory()
        defer { directory.cleanUp() }
        let run = try strata(in: directory, ["demo", "--store", "memory:", "--objects", "30"])
        #expect(run.status == 0, "\(run.errors)")
        let model = try Repository.companyVersions().current
        #expect(run.output.contains("model Company v3 (hash \(model.versionHash.prefix(12))...)"), "\(run.output)")
    }

    @Test(arguments: persistentSchemes)
    func readCommandsNeedNoModel(_ scheme: String) throws {
        let elsewhere = TemporaryDirectory()
        defer { elsewhere.cleanUp() }
        let url = elsewhere.storeURL(scheme, name: "made-elsewhere")
        let store = try Fixture.open(url)
        try seedCompany(store, employees: 40)
        let export = try Fixture.export(store)
        try store.close()
        let directory = try emptyDirectory()
        defer { directory.cleanUp() }

        let inspect = try strata(in: directory, ["inspect", url.description, "--json"])
        #expect(inspect.status == 0, "\(inspect.errors)")
        let node = try parseJSON(inspect.output)
        #expect(node["modelVersion"] == .string("v3"))
        #expect(node["modelVersionHash"] == .string(Fixture.model.versionHash))
        #expect(node["modelSource"] == .string("store"))
        #expect(node["objects"] == .integer(60))
        let text = try strata(in: directory, ["inspect", url.description])
        #expect(text.output.contains("model:        v3 (carried by the store)"), "\(text.output)")

        let exported = try strata(in: directory, ["export", url.description])
        #expect(exported.status == 0, "\(exported.errors)")
        #expect(exported.output == export)

        let query = try strata(in: directory, ["query", url.description, "--entity", "Employee", "--count"])
        #expect(query.status == 0, "\(query.errors)")
        #expect(query.output == "40\n")

        let validate = try strata(in: directory, ["validate", url.description])
        #expect(validate.status == 0, "\(validate.errors)")

        // The copy is created with the model the source carries, and carries it in turn.
        let copy = directory.storeURL("sqlite", name: "copy")
        let copied = try strata(in: directory, ["copy", url.description, copy.description])
        #expect(copied.status == 0, "\(copied.errors)")
        #expect(
            try StoreModelReader.model(at: copy, registry: BuiltInBackends.registry).jsonData()
                == Fixture.model.jsonData())
    }

    @Test(arguments: persistentSchemes)
    func aStoreCarriesTheBytesOfItsModelsJSON(_ scheme: String) throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let url = directory.storeURL(scheme)
        try Fixture.open(url).close()
        let carried = try BuiltInBackends.registry.backend(for: scheme).storedModelJSON(
            at: url, versionHash: Fixture.model.versionHash)
        #expect(carried == Fixture.model.jsonData())
    }

    @Test func aGivenModelMustBeTheStoresOne() throws {
        let directory = try emptyDirectory()
        defer { directory.cleanUp() }
        let url = directory.storeURL("sqlite", name: "v1")
        try Fixture.open(url, model: Fixture.versioned.versions[0]).close()
        let v3 = Repository.companyModelDirectory.appendingPathComponent("v3.json").path
        let run = try strata(in: directory, ["inspect", url.description, "--model", v3])
        #expect(run.status == 1)
        #expect(run.errors.hasPrefix("strata: modelMismatch"), "\(run.errors)")
        let fromVariable = try runBuilt(
            "strata", ["export", url.description], in: URL(fileURLWithPath: directory.path),
            environment: ["STRATA_MODEL": v3])
        #expect(fromVariable.errors.hasPrefix("strata: modelMismatch"), "\(fromVariable.errors)")
        let withoutModel = try strata(in: directory, ["inspect", url.description])
        #expect(withoutModel.status == 0, "\(withoutModel.errors)")
        #expect(withoutModel.output.contains("model:        v1 (carried by the store)"))
    }

    @Test func creatingAStoreNeedsAModel() throws {
        let directory = try emptyDirectory()
        defer { directory.cleanUp() }
        let input = directory.file("data.jsonl")
        try Data().write(to: URL(fileURLWithPath: input))
        let url = directory.storeURL("sqlite", name: "new")
        let run = try strata(in: directory, ["import", url.description, input])
        #expect(run.status == 1)
        #expect(run.errors.hasPrefix("strata: invalidRequest"), "\(run.errors)")
        #expect(run.errors.contains("--model"))
        #expect(try BuiltInBackends.registry.backend(for: "sqlite").metadata(at: url) == nil)
    }

    @Test func aStoreMadeByASwiftModelIsInspectedByTheTool() throws {
        let directory = try emptyDirectory()
        defer { directory.cleanUp() }
        let url = "sqlite:" + directory.file("trips.sqlite")
        let made = try runBuilt("TripPlanner", [url])
        #expect(made.status == 0, "\(made.errors)")
        let inspect = try strata(in: directory, ["inspect", url, "--json"])
        #expect(inspect.status == 0, "\(inspect.errors)")
        let node = try parseJSON(inspect.output)
        let metadata = try #require(
            try BuiltInBackends.registry.backend(for: "sqlite").metadata(at: StoreURL.parse(url)))
        #expect(node["modelVersionHash"] == .string(metadata.modelVersionHash))
        #expect(node["modelSource"] == .string("store"))
        let export = try strata(in: directory, ["export", url])
        #expect(export.status == 0, "\(export.errors)")
        #expect(export.output.contains(#"{"entity":"Trip""#), "\(export.output)")
    }

    @Test(arguments: persistentSchemes)
    func aMigratedStoreCarriesItsNewModel(_ scheme: String) throws {
        let directory = try emptyDirectory()
        defer { directory.cleanUp() }
        let url = directory.storeURL(scheme, name: "migrated")
        let versions = Fixture.versioned.versions
        try Fixture.open(url, model: versions[0]).close()
        let run = try strata(
            in: directory, ["migrate", url.description, "--model", Repository.companyModelDirectory.path, "--yes"])
        #expect(run.status == 0, "\(run.errors)")
        let carried = try StoreModelReader.model(at: url, registry: BuiltInBackends.registry)
        #expect(carried.jsonData() == versions[2].jsonData())
        let inspect = try strata(in: directory, ["inspect", url.description])
        #expect(inspect.output.contains("model:        v3 (carried by the store)"), "\(inspect.output)")
        // SQLite and LMDB keep the versions a store went through; XML only its current one.
        for old in versions.dropLast() where scheme != "xml" {
            let kept = try StoreModelReader.model(
                at: url, versionHash: old.versionHash, registry: BuiltInBackends.registry)
            #expect(kept?.jsonData() == old.jsonData(), "\(scheme) \(old.versionIdentifier)")
        }
    }

    @Test func migratingNeedsAModel() throws {
        let directory = try emptyDirectory()
        defer { directory.cleanUp() }
        let url = directory.storeURL("sqlite")
        try Fixture.open(url, model: Fixture.versioned.versions[0]).close()
        let run = try strata(in: directory, ["migrate", url.description, "--yes"])
        #expect(run.status == 1)
        #expect(run.errors.hasPrefix("strata: invalidRequest"), "\(run.errors)")
        #expect(run.errors.contains("--model"))
    }

    @Test func anInMemoryStoreKeepsItsModelInTheProcess() throws {
        let url = try StoreURL.parse("memory:carries-model-\(UUID().uuidString)")
        let store = try Fixture.open(url)
        defer { try? BuiltInBackends.registry.backend(for: "memory").destroyStore(at: url) }
        try store.close()
        #expect(
            try StoreModelReader.model(at: url, registry: BuiltInBackends.registry).jsonData()
                == Fixture.model.jsonData())
    }
}
