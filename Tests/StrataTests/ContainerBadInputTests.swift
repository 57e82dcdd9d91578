import Foundation
import Strata
import StrataTestSupport
import Testing

/// Every bad input of issue 8 fails the load with a typed error that the container's state
/// reports, and leaves the store as it was.
@Suite struct ContainerBadInputTests {
    private func failedLoad(
        _ description: StoreDescription, model: Model = NotesModel.v2, versions: VersionedModel? = nil,
        migrator: (any StoreMigrating)? = nil, environment: [String: String] = [:]
    ) async -> (StrataError?, PersistentContainer) {
        let container =
            versions.map {
                PersistentContainer(
                    name: "Notes", versionedModel: $0, storeDescriptions: [description], migrator: migrator,
                    environment: environment)
            }
            ?? PersistentContainer(
                name: "Notes", model: model, storeDescriptions: [description], migrator: migrator,
                environment: environment)
        let error = await loadResult(container)
        #expect(container.state == (error.map(ContainerState.failed) ?? .ready))
        #expect(container.loadedStores.isEmpty)
        return (error, container)
    }

    @Test func anUnknownSchemeListsTheRegisteredOnes() async throws {
        let (unknown, _) = await failedLoad(try StoreDescription("cassandra://db/app"))
        #expect(unknown?.code == .unknownStoreScheme)
        #expect(unknown?.message.contains("lmdb, memory, postgres, postgresql, sqlite, xml") == true)
    }

    @Test func aPathThatCannotBeOpenedFailsNamingIt() async throws {
        let path = "/nonexistent-\(UUID().uuidString)/notes.sqlite"
        let (error, container) = await failedLoad(try StoreDescription("sqlite:\(path)"))
        #expect(error != nil && [.io, .storeNotFound].contains(error!.code))
        #expect(error?.description.contains(path) == true)
        let saveError = await #expect(throws: StrataError.self) {
            try await container.performBackgroundTask { context in
                try context.insert("Note")["text"] = "x"
                try context.save()
            }
        }
        #expect(saveError?.code == .storeNotFound && saveError?.message.contains("failed to load") == true)
    }

    @Test func aMissingStoreThatMayNotBeCreatedIsNotFound() async throws {
        var description = try StoreDescription(
            "sqlite:\(TemporaryDirectory().url.appendingPathComponent("absent.sqlite").path)")
        description.createsIfMissing = false
        #expect(await failedLoad(description).0?.code == .storeNotFound)
    }

    @Test func aStoreWhoseModelMatchesNoKnownVersionIsAMismatchListingTheVersions() async throws {
        let url = try StoreURL.parse("sqlite:\(TemporaryDirectory().url.appendingPathComponent("x.sqlite").path)")
        _ = try BuiltInBackends.registry.open(url, model: NotesModel.stranger).close()
        let before = try Data(contentsOf: URL(fileURLWithPath: url.location))
        let (error, _) = await failedLoad(StoreDescription(url: url), versions: NotesModel.versioned)
        #expect(error?.code == .modelMismatch)
        #expect(error?.message.contains("v1, v2") == true && error?.location["knownVersions"] == "v1, v2")
        #expect(try Data(contentsOf: URL(fileURLWithPath: url.location)) == before)
        // The migrator is asked when there is one, and refuses too.
        #expect(
            await failedLoad(StoreDescription(url: url), versions: NotesModel.versioned, migrator: TestMigrator()).0?
                .code == .modelMismatch)
    }

    @Test func anOlderStoreIsAMismatchWithoutVersionsOrWithMigrationOff() async throws {
        let url = try StoreURL.parse("sqlite:\(TemporaryDirectory().url.appendingPathComponent("v1.sqlite").path)")
        try seedNotes(at: url, model: NotesModel.v1, count: 2)
        let before = try Data(contentsOf: URL(fileURLWithPath: url.location))
        let noVersions = await failedLoad(StoreDescription(url: url), model: NotesModel.v2).0
        #expect(noVersions?.code == .modelMismatch, "a container built from one model version cannot migrate")

        let migrator = TestMigrator()
        var off = StoreDescription(url: url)
        off.migratesAutomatically = false
        #expect(
            await failedLoad(off, versions: NotesModel.versioned, migrator: migrator).0?.message.contains(
                "migratesAutomatically") == true)
        var noInference = StoreDescription(url: url)
        noInference.infersMappingAutomatically = false
        #expect(
            await failedLoad(noInference, versions: NotesModel.versioned, migrator: migrator).0?.message.contains(
                "infersMappingAutomatically") == true)
        var readOnly = StoreDescription(url: url)
        readOnly.isReadOnly = true
        #expect(
            await failedLoad(readOnly, versions: NotesModel.versioned, migrator: migrator).0?.message.contains(
                "read-only") == true)
        #expect(migrator.calls.values.isEmpty)
        #expect(try Data(contentsOf: URL(fileURLWithPath: url.location)) == before)
    }

    @Test func aCorruptStoreFailsAndIsLeftAsItWas() async throws {
        let dir = TemporaryDirectory().url
        for (scheme, name) in [("sqlite", "bad.sqlite"), ("xml", "bad.xml")] {
            let file = dir.appendingPathComponent(name)
            let garbage = Data("this is not a store, just some bytes that happen to be here\n".utf8)
            try garbage.write(to: file)
            let (error, _) = await failedLoad(StoreDescription(url: StoreURL(scheme: scheme, location: file.path)))
            #expect(error?.code == .storeCorrupt, "\(scheme): \(String(describing: error))")
            #expect(try Data(contentsOf: file) == garbage)
        }
    }

    @Test func aMalformedStrataStoreVariableFailsTheLoadNamingTheVariable() async throws {
        let (error, _) = await failedLoad(
            try StoreDescription("memory:"), environment: ["STRATA_STORE": "/var/data/app.sqlite"])
        #expect(error?.code == .invalidStoreURL && error?.location["environment"] == "STRATA_STORE")
        #expect(error?.message.contains("/var/data/app.sqlite") == true)
    }

    @Test func aBackendOptionTheStoreRejectsFailsTheLoad() async throws {
        var description = try StoreDescription(
            "sqlite:\(TemporaryDirectory().url.appendingPathComponent("o.sqlite").path)")
        description.options["synchronous"] = "sometimes"
        #expect(await failedLoad(description).0?.code == .invalidOption)
    }
}
