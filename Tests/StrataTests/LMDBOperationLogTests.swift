import Foundation
import Logging
import Strata
import StrataTestSupport
import Testing

/// The LMDB store logs its reads and writes at `debug` under `strata.lmdb`: the operation, the
/// entity, how it found the rows (the index or key range it used, by name), how many, and the
/// time; never a value.
@Suite struct LMDBOperationLogTests {
    @Test func readsAndWritesAreLoggedWithoutValues() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let url = directory.storeURL("lmdb")
        let secret = "s3cret-lmdb"
        let records = try CapturingLogHandler.capture(at: .debug, mentioning: directory.path) {
            let store = try BuiltInBackends.registry.open(url, model: LoggedCompany.model)
            defer { try? store.close() }
            let ids = try LoggedCompany.insertEmployees([secret, "Ана", "Bo"], into: store)
            let byName = try store.fetch(
                FetchRequest(entityName: "Employee", predicate: ObjectPredicate(format: "name == %@", secret)))
            #expect(try byName.snapshots().count == 1)
            _ = try store.fetch(FetchRequest(entityName: "Employee")).snapshots()
            _ = try store.snapshots(of: "Employee", among: Array(ids.prefix(2)))
        }.labelled("strata.lmdb")

        let saves = records.filter { $0.message == "saved" }
        try #require(saves.count == 1, "\(records)")
        #expect(saves[0].metadata["inserts"] == "3")
        #expect(saves[0].metadata["entities"] == "Employee")
        let fetches = records.filter { $0.message == "fetched Employee" }
        #expect(fetches.map { $0.metadata["access"] } == ["index byName", "scan"], "\(records)")
        #expect(fetches.map { $0.metadata["rows"] } == ["1", "3"])
        #expect(fetches.allSatisfy { $0.metadata["recordsRead"] != nil })
        let reads = records.filter { $0.message == "read Employee" }
        #expect(reads.map { $0.metadata["rows"] } == ["2"])
        #expect(records.allSatisfy { $0.level == .debug && $0.metadata["ms"].flatMap(Double.init) != nil })
        #expect(records.neverMention(secret))
    }

    @Test func aLoggerAtInfoLogsNoOperation() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let records = try CapturingLogHandler.capture(at: .info, mentioning: directory.path) {
            let store = try BuiltInBackends.registry.open(directory.storeURL("lmdb"), model: LoggedCompany.model)
            defer { try? store.close() }
            _ = try LoggedCompany.insertEmployees(["x"], into: store)
            _ = try store.fetch(FetchRequest(entityName: "Employee")).snapshots()
        }
        #expect(records.labelled("strata.lmdb").isEmpty)
    }
}
