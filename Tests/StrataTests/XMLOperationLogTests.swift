import Foundation
import Logging
import Strata
import StrataTestSupport
import Testing

/// The XML store logs each load and save of its file at `debug` under `strata.xml`: the file,
/// the objects, the bytes and the time; never a value.
@Suite struct XMLOperationLogTests {
    @Test func loadsAndSavesAreLoggedWithoutValues() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let url = directory.storeURL("xml")
        let secret = "s3cret-xml"
        let records = try CapturingLogHandler.capture(at: .debug, mentioning: directory.path) {
            let store = try BuiltInBackends.registry.open(url, model: LoggedCompany.model)
            _ = try LoggedCompany.insertEmployees([secret, "Bo"], into: store)
            try store.close()
            try BuiltInBackends.registry.open(url, model: LoggedCompany.model).close()
        }.labelled("strata.xml")

        let path = try #require(records.first?.metadata["file"])
        #expect(path.hasPrefix(directory.path))
        let size = try #require(
            (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue)
        let saves = records.filter { $0.message.hasPrefix("saved") }
        try #require(saves.count == 1, "\(records)")
        #expect(saves[0].metadata["objects"] == "2")
        #expect(saves[0].metadata["inserts"] == "2")
        #expect(saves[0].metadata["bytes"] == String(size))
        let loads = records.filter { $0.message.hasPrefix("loaded") }
        try #require(loads.count == 1, "\(records)")
        #expect(loads[0].metadata["objects"] == "2")
        #expect(loads[0].metadata["bytes"] == String(size))
        #expect(records.allSatisfy { $0.level == .debug && $0.metadata["ms"].flatMap(Double.init) != nil })
        #expect(records.neverMention(secret))
    }
}
