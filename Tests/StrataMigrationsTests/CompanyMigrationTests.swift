import Foundation
import StrataCore
import StrataMigrations
import StrataTestSupport
import Testing

/// Company v1 -> v2 -> v3 on every built-in backend, data checked after each step.
@Suite struct CompanyMigrationTests {
    @Test(arguments: BackendKind.allCases)
    func companyMigratesStepByStepWithEveryObjectIntact(kind: BackendKind) throws {
        try withTemporaryDirectory { directory in
            let versions = try Repository.companyVersions()
            let registry = builtInRegistry()
            let url = kind.url(in: directory)
            let v1 = versions.version(named: "v1")!
            do {
                let store = try registry.open(url, model: v1)
                try CompanySeed.seed(store)
                try store.close()
            }
            for target in ["v2", "v3"] {
                let migrator = try StoreMigrator(versions: versions, target: target, registry: registry)
                #expect(try migrator.needsMigration(storeAt: url))
                var reports: [StoreProgress] = []
                try migrator.migrate(storeAt: url, progress: { reports.append($0) })
                #expect(!reports.isEmpty)
                #expect(try !migrator.needsMigration(storeAt: url))
                let store = try registry.open(url, model: versions.version(named: target)!)
                defer { try? store.close() }
                #expect(try store.metadata().modelVersionIdentifier == target)
                #expect(try companyProblems(store, version: target) == [])
            }
            if kind.outlivesDirectory { try registry.backend(for: url.scheme).destroyStore(at: url) }
        }
    }

    @Test(arguments: BackendKind.allCases)
    func companyMigratesFromV1ToV3InOneCall(kind: BackendKind) throws {
        try withTemporaryDirectory { directory in
            let versions = try Repository.companyVersions()
            let registry = builtInRegistry()
            let url = kind.url(in: directory)
            let identifier: String
            do {
                let store = try registry.open(url, model: versions.version(named: "v1")!)
                try CompanySeed.seed(store, employees: 30)
                identifier = store.identifier
                try store.close()
            }
            let plan = try StoreMigrator(versions: versions, registry: registry).migrate(storeAt: url)
            #expect(plan.steps.map(\.name) == ["v1 -> v2", "v2 -> v3"])
            let store = try registry.open(url, model: versions.current)
            defer { try? store.close() }
            #expect(
                store.identifier == identifier,
                "a migrated store keeps its identifier, so saved object ID URIs stay valid")
            #expect(try companyProblems(store, version: "v3", employees: 30) == [])
            // The migrated store keeps working: a new employee gets a key never handed out before.
            let id = try store.obtainPermanentIDs(for: "Employee", count: 1)[0]
            #expect(id.primaryKey! > 30)
            if kind.outlivesDirectory { try registry.backend(for: url.scheme).destroyStore(at: url) }
        }
    }

    /// The streaming executor writes objects in two passes, so versions differ (2 instead of 1);
    /// everything else is equal.
    @Test(arguments: [BackendKind.sqlite, .lmdb])
    func nativeAndStreamingExecutionsGiveTheSameStore(kind: BackendKind) throws {
        try withTemporaryDirectory { directory in
            let versions = try Repository.companyVersions()
            let registry = builtInRegistry()
            var results: [[Snapshot]] = []
            for native in [true, false] where native || kind == .sqlite {
                let url = kind.url(in: directory, name: native ? "native" : "streamed")
                do {
                    let store = try registry.open(url, model: versions.version(named: "v1")!)
                    try CompanySeed.seed(store)
                    try store.close()
                }
                try StoreMigrator(versions: versions, registry: registry, allowsNativeExecution: native).migrate(
                    storeAt: url)
                let store = try registry.open(url, model: versions.current)
                results.append(
                    try ["Company", "Department", "Employee"].flatMap { try all(store, $0) }.map {
                        Snapshot(
                            objectID: ObjectID(
                                entityName: $0.objectID.entityName, storeIdentifier: "x",
                                primaryKey: $0.objectID.primaryKey!), version: 0, attributes: $0.attributes,
                            relationships: $0.relationships.map { r in
                                switch r {
                                case .toOne(let t):
                                    return .toOne(
                                        t.map {
                                            ObjectID(
                                                entityName: $0.entityName, storeIdentifier: "x",
                                                primaryKey: $0.primaryKey!)
                                        })
                                case .toMany(let ts):
                                    return .toMany(
                                        ts.map {
                                            ObjectID(
                                                entityName: $0.entityName, storeIdentifier: "x",
                                                primaryKey: $0.primaryKey!)
                                        })
                                }
                            })
                    })
                try store.close()
            }
            if results.count == 2 { #expect(results[0] == results[1]) }
            #expect(results[0].count == 17)
        }
    }
}
