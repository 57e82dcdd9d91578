import Foundation
import Logging
import Strata
import StrataTestSupport
import Testing

/// Every built-in backend logs each store open at `info` under `strata.store`: the URL (no
/// secret of it), the backend, the model version.
@Suite struct StoreOpenLogTests {
    @Test(arguments: ["memory", "sqlite", "lmdb", "xml"])
    func eachOpenIsLoggedAtDebug(_ scheme: String) throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let url =
            scheme == "memory"
            ? try StoreURL.parse("memory:open-log-\(UUID().uuidString)") : directory.storeURL(scheme, name: "opened")
        let token = scheme == "memory" ? url.location : directory.path
        let records = try CapturingLogHandler.capture(at: .debug, mentioning: token) {
            let store = try BuiltInBackends.registry.open(url, model: LoggedCompany.model)
            try store.close()
        }.labelled("strata.store")
        try #require(records.count == 1, "\(records)")
        #expect(records[0].level == .debug)
        #expect(records[0].metadata["backend"] == scheme)
        #expect(records[0].metadata["model"] == LoggedCompany.model.versionIdentifier)
        #expect(records[0].metadata["url"] == url.description)
        #expect(records[0].metadata["readOnly"] == "false")
        #expect(records[0].metadata["ms"].flatMap(Double.init) != nil)
    }

    @Test func aLoggerAtInfoLogsNoOpen() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let records = try CapturingLogHandler.capture(at: .info, mentioning: directory.path) {
            try BuiltInBackends.registry.open(directory.storeURL("sqlite"), model: LoggedCompany.model).close()
        }
        #expect(records.isEmpty, "\(records)")
    }

    @Test func theLoggedURLHidesPasswordsAndSecretQueryOptions() throws {
        let url = try StoreURL.parse(
            "postgres://app:hunter2@db.example.com/app?sslmode=require&password=s3cret&apiKey=k3y&authToken=t0k")
        let shown = url.loggedDescription
        for secret in ["hunter2", "s3cret", "k3y", "t0k"] { #expect(!shown.contains(secret), "\(shown)") }
        #expect(shown.contains("sslmode=require"))
        #expect(shown.contains("db.example.com/app"))
    }
}
