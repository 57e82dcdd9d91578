import Foundation
import Strata
import StrataTestSupport
import Testing

/// Each way of configuring a container (code, file, environment) picks the expected backend, and
/// several stores route each entity to the store of its configuration.
@Suite struct ContainerConfigurationTests {
    private func storeType(of entity: String, in container: PersistentContainer) throws -> String {
        try container.coordinator.store(for: entity).metadata().storeType
    }

    @Test func aDescriptionInCodePicksTheBackendOfItsScheme() async throws {
        let dir = TemporaryDirectory().url
        for (scheme, location) in [
            ("memory", ""), ("sqlite", dir.appendingPathComponent("a.sqlite").path),
            ("lmdb", dir.appendingPathComponent("a-lmdb").path), ("xml", dir.appendingPathComponent("a.xml").path),
        ] {
            let description = StoreDescription(url: StoreURL(scheme: scheme, location: location))
            let container = PersistentContainer(
                name: "Notes", model: NotesModel.v2, storeDescriptions: [description], environment: [:])
            #expect(container.state == .notLoaded)
            try await container.loadPersistentStores()
            #expect(container.state == .ready)
            #expect(container.loadedStores.count == 1)
            #expect(try container.loadedStores[0].metadata().storeType == scheme)
            #expect(try storeType(of: "Note", in: container) == scheme && storeType(of: "Tag", in: container) == scheme)
            try container.closeStores()
        }
    }

    @Test func theDefaultStoreIsAnSQLiteFileNamedAfterTheContainer() {
        let container = PersistentContainer(name: "Inventory", model: NotesModel.v2, environment: [:])
        #expect(
            container.storeDescriptions == [
                StoreDescription(url: StoreURL(scheme: "sqlite", location: "Inventory.sqlite"))
            ])
        #expect(container.stackStyle == .threeTier)
    }

    @Test func aConfigFilePicksTheBackendOfEachStoreAndItsOptions() async throws {
        let dir = TemporaryDirectory().url
        let file = dir.appendingPathComponent("stores.json")
        let lmdb = dir.appendingPathComponent("notes-lmdb").path
        let sqlite = dir.appendingPathComponent("tags.sqlite").path
        try Data(
            """
            {
              "stores": [
                { "url": "lmdb:\(lmdb)", "configuration": "Notes", "lmdbMapSize": 2097152, "options": { "sync": "nometasync" } },
                { "url": "sqlite:\(sqlite)", "configuration": "Tags", "sqliteSynchronous": "full", "migratesAutomatically": false,
                  "options": { "busyTimeout": 250 } }
              ]
            }
            """.utf8
        ).write(to: file)
        let descriptions = try StoreDescription.load(contentsOf: file)
        #expect(descriptions.count == 2)
        #expect(
            descriptions[0].url == StoreURL(scheme: "lmdb", location: lmdb) && descriptions[0].configuration == "Notes")
        #expect(descriptions[0].lmdbMapSize == 2_097_152 && descriptions[0].options["sync"] == "nometasync")
        #expect(descriptions[1].sqliteSynchronous == .full && descriptions[1].options["busyTimeout"] == "250")
        #expect(descriptions[1].migratesAutomatically == false && descriptions[1].infersMappingAutomatically == true)

        let container = PersistentContainer(
            name: "Notes", model: NotesModel.v2, storeDescriptions: descriptions, environment: [:])
        try await container.loadPersistentStores()
        #expect(try storeType(of: "Note", in: container) == "lmdb")
        #expect(try storeType(of: "Tag", in: container) == "sqlite")
        try container.closeStores()
    }

    @Test func strataStoreOverridesThePrimaryStoreOnly() async throws {
        let dir = TemporaryDirectory().url
        var notes = try StoreDescription(
            "sqlite:\(dir.appendingPathComponent("notes.sqlite").path)", configuration: "Notes")
        notes.sqliteSynchronous = .full
        let tags = try StoreDescription("xml:\(dir.appendingPathComponent("tags.xml").path)", configuration: "Tags")
        let lmdb = "lmdb:\(dir.appendingPathComponent("override-lmdb").path)"

        // No description has the default configuration, so the first one is the primary store.
        let container = PersistentContainer(
            name: "Notes", model: NotesModel.v2, storeDescriptions: [notes, tags], environment: ["STRATA_STORE": lmdb])
        #expect(container.storeDescriptions[0].url.description == lmdb)
        #expect(container.storeDescriptions[0].options.isEmpty, "SQLite's options do not follow the store to LMDB")
        #expect(container.storeDescriptions[1] == tags)
        try await container.loadPersistentStores()
        #expect(try storeType(of: "Note", in: container) == "lmdb")
        #expect(try storeType(of: "Tag", in: container) == "xml")
        try container.closeStores()
    }

    @Test func aConfigurationVariableOverridesItsOwnStoreAndWinsOverStrataStore() throws {
        let main = try StoreDescription("sqlite:main.sqlite")
        var archive = try StoreDescription("sqlite:archive.sqlite", configuration: "Old archive")
        archive.sqliteSynchronous = .off
        #expect(StoreDescription.environmentVariable(forConfiguration: "Old archive") == "STRATA_STORE_OLD_ARCHIVE")
        let result = try StoreDescription.applyingEnvironment(
            [
                "STRATA_STORE": "memory:", "STRATA_STORE_OLD_ARCHIVE": "sqlite:/data/archive.sqlite",
                "STRATA_STORE_NOBODY": "xml:x.xml",
            ],
            to: [archive, main]
        )
        #expect(
            result[0].url.description == "sqlite:/data/archive.sqlite" && result[0].sqliteSynchronous == .off,
            "same scheme: options kept")
        #expect(result[1].url.description == "memory:", "the default configuration's store is the primary one")
        #expect(
            try StoreDescription.applyingEnvironment(["STRATA_STORE": ""], to: [main]) == [main],
            "an empty variable is ignored")
    }

    @Test func severalStoresEachHoldOnlyTheEntitiesOfTheirConfiguration() async throws {
        let dir = TemporaryDirectory().url
        let notesURL = try StoreURL.parse("sqlite:\(dir.appendingPathComponent("notes.sqlite").path)")
        let tagsURL = try StoreURL.parse("xml:\(dir.appendingPathComponent("tags.xml").path)")
        let container = PersistentContainer(
            name: "Notes", model: NotesModel.v2,
            storeDescriptions: [
                StoreDescription(url: notesURL, configuration: "Notes"),
                StoreDescription(url: tagsURL, configuration: "Tags"),
            ], environment: [:])
        try await container.loadPersistentStores()
        try await container.performBackgroundTask { context in
            for i in 0..<3 { try context.insert("Note")["text"] = .string("note \(i)") }
            try context.insert("Tag")["label"] = "urgent"
            try context.save()
        }
        let seen = try await container.viewContext.perform {
            (
                try container.viewContext.count(FetchRequest(entityName: "Note")),
                try container.viewContext.count(FetchRequest(entityName: "Tag"))
            )
        }
        #expect(seen == (3, 1))
        try container.closeStores()
        #expect(try countInStore(notesURL, model: NotesModel.v2, entity: "Note") == 3)
        #expect(try countInStore(notesURL, model: NotesModel.v2, entity: "Tag") == 0)
        #expect(try countInStore(tagsURL, model: NotesModel.v2, entity: "Tag") == 1)
        #expect(try countInStore(tagsURL, model: NotesModel.v2, entity: "Note") == 0)
    }

    @Test func storesThatShareEntitiesOrNameAnUnknownConfigurationFailTheLoad() async throws {
        let overlapping = PersistentContainer(
            name: "Notes", model: NotesModel.v2,
            storeDescriptions: [
                try StoreDescription("memory:"), try StoreDescription("memory:", configuration: "Tags"),
            ], environment: [:])
        let overlap = await loadResult(overlapping)
        #expect(overlap?.code == .invalidConfiguration && overlap?.message.contains("Tag") == true)
        #expect(overlapping.state.error == overlap)

        let unknown = PersistentContainer(
            name: "Notes", model: NotesModel.v2,
            storeDescriptions: [try StoreDescription("memory:", configuration: "Nope")], environment: [:])
        let error = await loadResult(unknown)
        #expect(error?.code == .invalidConfiguration && error?.message.contains("'Nope'") == true)

        let none = PersistentContainer(name: "Notes", model: NotesModel.v2, storeDescriptions: [], environment: [:])
        #expect(await loadResult(none)?.code == .invalidConfiguration)
    }
}
