import Foundation
import StrataCore
import StrataMigrations
import StrataTestSupport
import Testing

/// What the planner and the migrator refuse, and that refusing touches nothing.
@Suite struct BadInputTests {
    @Test func typeChangeIsRefusedNamingEntityPropertyAndChange() throws {
        let v2 = try RuleModels.model(
            "v2",
            [
                RuleModels.person([Attribute("name", .string), Attribute("nick", .integer64, isOptional: true)]),
                RuleModels.pet(),
            ])
        for stage in [nil, MigrationStage(from: "v1", to: "v2")] {
            let error = try #require(throws: StrataError.self) {
                try MigrationStep.infer(from: RuleModels.v1, to: v2, stage: stage)
            }
            #expect(error.code == .migrationNotInferable)
            #expect(
                error.location["entity"] == "Person" && error.location["property"] == "nick"
                    && error.location["change"] == "changeAttributeType")
            #expect(error.message.contains("Person.nick changes type from string to integer64"))
            #expect(error.message.contains("stage"))
        }
    }

    @Test func destinationChangeIsRefused() throws {
        let v2 = try RuleModels.model(
            "v2",
            [RuleModels.person(relationships: [Relationship("pet", to: "Person", inverse: "pet")]), RuleModels.pet([])])
        let error = try #require(throws: StrataError.self) { try MigrationStep.infer(from: RuleModels.v1, to: v2) }
        #expect(error.location["change"] == "changeDestination")
    }

    @Test func newRequiredAttributeWithoutDefaultIsRefused() throws {
        let v2 = try RuleModels.model(
            "v2",
            [
                RuleModels.person([
                    Attribute("name", .string), Attribute("nick", .string, isOptional: true),
                    Attribute("age", .integer16),
                ]), RuleModels.pet(),
            ])
        let error = try #require(throws: StrataError.self) { try MigrationStep.infer(from: RuleModels.v1, to: v2) }
        #expect(error.location["property"] == "age" && error.location["change"] == "addAttribute")
        #expect(error.message.contains("default"))
    }

    @Test(arguments: [BackendKind.sqlite, .lmdb, .xml])
    func storeNewerThanTheNewestVersionIsRefusedAndUntouched(kind: BackendKind) throws {
        try withTemporaryDirectory { directory in
            let registry = builtInRegistry()
            let url = kind.url(in: directory)
            let v4 = try RuleModels.model(
                "v4", [RuleModels.person(), RuleModels.pet(), Entity("Future", attributes: [Attribute("x", .string)])])
            do {
                let store = try registry.open(url, model: v4)
                try RuleModels.seed(store)
                try store.close()
            }
            let before = try snapshotOfFiles(url)
            let migrator = try StoreMigrator(
                versions: VersionedModel(name: "Rules", versions: [RuleModels.v1]), registry: registry)
            let error = try #require(throws: StrataError.self) { try migrator.migrate(storeAt: url) }
            #expect(error.code == .modelMismatch)
            #expect(error.message.contains("v4") && error.message.contains("newer"))
            #expect(throws: StrataError.self) { try migrator.needsMigration(storeAt: url) }
            #expect(try snapshotOfFiles(url) == before)
        }
    }

    @Test func migratingBackwardsIsRefused() throws {
        let versions = try Repository.companyVersions()
        let metadata = StoreMetadata(
            storeIdentifier: "S", storeType: "sqlite", modelVersionHash: versions.current.versionHash,
            modelVersionIdentifier: "v3")
        let error = try #require(throws: StrataError.self) {
            try MigrationPlan.make(versions: versions, storeMetadata: metadata, target: "v1")
        }
        #expect(error.code == .modelMismatch && error.message.contains("only go forward"))
    }

    @Test func unknownTargetAndStrayStagesAreRefused() throws {
        let versions = try Repository.companyVersions()
        let metadata = StoreMetadata(
            storeIdentifier: "S", storeType: "sqlite", modelVersionHash: versions.versions[0].versionHash,
            modelVersionIdentifier: "v1")
        #expect(throws: StrataError.self) {
            try MigrationPlan.make(versions: versions, storeMetadata: metadata, target: "v9")
        }
        let stray = MigrationStage(from: "v1", to: "v3")
        let error = try #require(throws: StrataError.self) {
            try MigrationPlan.make(versions: versions, storeMetadata: metadata, stages: [stray])
        }
        #expect(error.message.contains("consecutive"))
    }

    @Test(arguments: [BackendKind.sqlite, .lmdb, .xml])
    func dryRunTouchesNothing(kind: BackendKind) throws {
        try withTemporaryDirectory { directory in
            let registry = builtInRegistry()
            let versions = try Repository.companyVersions()
            let url = kind.url(in: directory)
            do {
                let store = try registry.open(url, model: versions.versions[0])
                try CompanySeed.seed(store)
                try store.close()
            }
            let before = try snapshotOfFiles(url)
            let plan = try StoreMigrator(versions: versions, registry: registry).plan(forStoreAt: url)
            let text = plan.description
            #expect(text.hasPrefix("migrate from v1 to v3 in 2 steps"))
            #expect(text.contains("renameAttribute Employee.dateOfBirth: Employee.birthday is renamed to dateOfBirth"))
            #expect(text.contains("addAttribute Employee.level"))
            #expect(text.contains("attributeBecomesRequired Employee.height"))
            #expect(text.contains("addEntity Project"))
            #expect(plan.jsonNode().compactText().contains("\"kind\":\"toOneBecomesToMany\"") == false)
            #expect(try snapshotOfFiles(url) == before)
        }
    }

    @Test(arguments: [BackendKind.sqlite, .lmdb, .xml])
    func cancellationLeavesTheOldVersion(kind: BackendKind) throws {
        try withTemporaryDirectory { directory in
            let registry = builtInRegistry()
            let versions = try Repository.companyVersions()
            let url = kind.url(in: directory)
            do {
                let store = try registry.open(url, model: versions.versions[0])
                try CompanySeed.seed(store)
                try store.close()
            }
            var polls = 0
            let error = try #require(throws: StrataError.self) {
                try StoreMigrator(versions: versions, registry: registry, batchSize: 2).migrate(
                    storeAt: url,
                    isCancelled: {
                        polls += 1
                        return polls > 2
                    })
            }
            #expect(error.code == .cancelled)
            let store = try registry.open(url, model: versions.versions[0])
            defer { try? store.close() }
            #expect(try companyProblems(store, version: "v1") == [])
        }
    }
}

/// The bytes of every file of the store at `url` (a file, or a directory's files), by name.
func snapshotOfFiles(_ url: StoreURL) throws -> [String: Data] {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.location, isDirectory: &isDirectory) else { return [:] }
    if !isDirectory.boolValue { return [url.location: try Data(contentsOf: URL(fileURLWithPath: url.location))] }
    var result: [String: Data] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: url.location) where name != "lock.mdb" {
        result[name] = try Data(contentsOf: URL(fileURLWithPath: url.location).appendingPathComponent(name))
    }
    return result
}
