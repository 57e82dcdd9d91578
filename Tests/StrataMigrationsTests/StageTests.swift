import Foundation
import StrataCore
import StrataMigrations
import StrataTestSupport
import Testing

/// Custom stages: what inference refuses, done with a will-migrate or did-migrate closure.
@Suite struct StageTests {
    /// v2 makes `nick` required with no default: inference alone refuses it.
    static let v2 = try! RuleModels.model(
        "v2", [RuleModels.person([Attribute("name", .string), Attribute("nick", .string)]), RuleModels.pet()])

    @Test func requiredWithoutDefaultIsRefusedWithoutAStage() throws {
        let error = try #require(throws: StrataError.self) { try MigrationStep.infer(from: RuleModels.v1, to: Self.v2) }
        #expect(error.code == .migrationNotInferable)
        #expect(error.location["entity"] == "Person")
        #expect(error.location["property"] == "nick")
        #expect(error.location["change"] == "attributeBecomesRequired")
        #expect(error.message.contains("custom stage"))
    }

    @Test(arguments: BackendKind.allCases)
    func stageFillsValuesBeforeAPropertyBecomesRequired(kind: BackendKind) throws {
        let stage = MigrationStage(
            from: "v1", to: "v2",
            willMigrate: { context in
                let predicate = try ObjectPredicate(format: "nick == nil")
                try context.updateEach("Person", where: predicate) { person in
                    if case .string(let name) = person["name"] { person["nick"] = .string("filled " + name) }
                }
            })
        try migrate(kind, versions: [RuleModels.v1, Self.v2], stages: [stage]) { (store: any PersistentStore) throws in
            #expect(
                try values(store, "Person", "nick") == [
                    .string("nick 1"), .string("filled person 2"), .string("nick 3"),
                ])
        }
    }

    @Test(arguments: [BackendKind.sqlite, .lmdb, .xml])
    func stageThatLeavesNullsFailsAndTheStoreStaysAtTheOldVersion(kind: BackendKind) throws {
        try withTemporaryDirectory { directory in
            let registry = builtInRegistry()
            let url = kind.url(in: directory)
            do {
                let store = try registry.open(url, model: RuleModels.v1)
                try RuleModels.seed(store)
                try store.close()
            }
            let versions = try VersionedModel(name: "Rules", versions: [RuleModels.v1, Self.v2])
            let lazy = MigrationStage(from: "v1", to: "v2", willMigrate: { _ in })
            #expect(throws: StrataError.self) {
                try StoreMigrator(versions: versions, stages: [lazy], registry: registry).migrate(storeAt: url)
            }
            let store = try registry.open(url, model: RuleModels.v1)
            defer { try? store.close() }
            #expect(try store.metadata().modelVersionIdentifier == "v1")
            #expect(try values(store, "Person", "nick") == [.string("nick 1"), .null, .string("nick 3")])
        }
    }

    @Test(arguments: BackendKind.allCases)
    func didMigrateComputesNewValuesAndRunsOnce(kind: BackendKind) throws {
        let v2 = try RuleModels.model(
            "v2",
            [
                RuleModels.person([
                    Attribute("name", .string), Attribute("nick", .string, isOptional: true),
                    Attribute("display", .string, isOptional: true),
                ]), RuleModels.pet(),
            ])
        let stage = MigrationStage(
            from: "v1", to: "v2",
            didMigrate: { context in
                try context.updateEach("Person") { person in
                    if case .string(let name) = person["name"] { person["display"] = .string(name.uppercased()) }
                }
            })
        try migrate(kind, versions: [RuleModels.v1, v2], stages: [stage]) { (store: any PersistentStore) throws in
            #expect(
                try values(store, "Person", "display") == [
                    .string("PERSON 1"), .string("PERSON 2"), .string("PERSON 3"),
                ])
            #expect(try store.metadata().userInfo[pendingDidMigrateKey] == nil)
        }
    }

    @Test func toManyBecomingToOneNeedsAStageThatLeavesOneTarget() throws {
        let v1 = try RuleModels.model(
            "v1",
            [
                RuleModels.person(relationships: [Relationship("pets", to: "Pet", inverse: "owner", toMany: true)]),
                RuleModels.pet([Relationship("owner", to: "Person", inverse: "pets")]),
            ])
        let v2 = try RuleModels.model(
            "v2",
            [
                RuleModels.person(relationships: [Relationship("pets", to: "Pet", inverse: "owner")]),
                RuleModels.pet([Relationship("owner", to: "Person", inverse: "pets")]),
            ])
        let error = try #require(throws: StrataError.self) { try MigrationStep.infer(from: v1, to: v2) }
        #expect(error.location["change"] == "toManyBecomesToOne")
        #expect(
            try MigrationStep.infer(from: v1, to: v2, stage: MigrationStage(from: "v1", to: "v2")).changes.map(\.kind)
                == [.toManyBecomesToOne])
    }
}

/// A did-migrate that fails is run again by the next migration.
@Suite struct PendingStageTests {
    final class Attempts: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func next() -> Int {
            lock.lock()
            defer { lock.unlock() }
            count += 1
            return count
        }
    }

    @Test(arguments: BackendKind.allCases)
    func failedDidMigrateRunsAgainAtTheNextMigration(kind: BackendKind) throws {
        try withTemporaryDirectory { directory in
            let registry = builtInRegistry()
            let url = kind.url(in: directory)
            defer { if kind.outlivesDirectory { try? registry.backend(for: url.scheme).destroyStore(at: url) } }
            let v2 = try RuleModels.model(
                "v2",
                [
                    RuleModels.person([
                        Attribute("name", .string), Attribute("nick", .string, isOptional: true),
                        Attribute("display", .string, isOptional: true),
                    ]), RuleModels.pet(),
                ])
            do {
                let store = try registry.open(url, model: RuleModels.v1)
                try RuleModels.seed(store)
                try store.close()
            }
            let attempts = Attempts()
            let stage = MigrationStage(
                from: "v1", to: "v2",
                didMigrate: { context in
                    if attempts.next() == 1 { throw StrataError(.io, "simulated failure") }
                    try context.updateEach("Person") { person in person["display"] = .string("done") }
                })
            let migrator = try StoreMigrator(
                versions: VersionedModel(name: "Rules", versions: [RuleModels.v1, v2]), stages: [stage],
                registry: registry)
            #expect(throws: StrataError.self) { try migrator.migrate(storeAt: url) }
            #expect(try registry.backend(for: url.scheme).metadata(at: url)?.userInfo[pendingDidMigrateKey] == "v1->v2")
            #expect(try migrator.needsMigration(storeAt: url))
            try migrator.migrate(storeAt: url)
            #expect(try !migrator.needsMigration(storeAt: url))
            let store = try registry.open(url, model: v2)
            defer { try? store.close() }
            #expect(try values(store, "Person", "display") == [.string("done"), .string("done"), .string("done")])
        }
    }
}
