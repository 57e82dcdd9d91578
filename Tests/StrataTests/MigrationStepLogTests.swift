import Foundation
import Logging
import Strata
import StrataTestSupport
import Testing

/// Each migration step is logged at `info` under `strata.migration`: the versions, the objects
/// of each entity after the step, how it ran, and its time.
@Suite struct MigrationStepLogTests {
    @Test(arguments: ["sqlite", "lmdb", "xml"])
    func eachStepIsLoggedWithItsCounts(_ scheme: String) throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let url = directory.storeURL(scheme)
        let v1 = try #require(LoggedCompany.versions.version(named: "v1"))
        do {
            let store = try BuiltInBackends.registry.open(url, model: v1)
            defer { try? store.close() }
            let entity = try v1.requireEntity("Employee")
            let ids = try store.obtainPermanentIDs(for: "Employee", count: 3)
            try store.save(
                SaveRequest(
                    inserts: ids.map { id in
                        var snapshot = Snapshot(objectID: id, entity: entity)
                        snapshot.attributes[entity.attributeIndex(named: "name")!] = .string("s3cret-migration")
                        return snapshot
                    }))
        }
        let records = try CapturingLogHandler.capture(at: .debug, mentioning: directory.path) {
            try StoreMigrator(versions: LoggedCompany.versions, registry: BuiltInBackends.registry).migrate(
                storeAt: url)
        }.labelled("strata.migration")
        #expect(
            records.map { "\($0.metadata["from"] ?? "") -> \($0.metadata["to"] ?? "")" } == ["v1 -> v2", "v2 -> v3"])
        #expect(records.allSatisfy { $0.level == .debug && $0.metadata["ms"].flatMap(Double.init) != nil })
        #expect(records.allSatisfy { $0.metadata["objects"]?.contains("Employee=3") == true }, "\(records)")
        #expect(records.allSatisfy { $0.metadata["url"] == url.description })
        #expect(records.neverMention("s3cret"))
    }
}
