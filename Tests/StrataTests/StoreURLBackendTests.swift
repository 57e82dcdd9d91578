import Foundation
import Strata
import Testing

@Suite struct StoreURLBackendTests {
    @Test(arguments: ["sqlite", "lmdb", "xml", "memory"])
    func fileBackendsRefuseAnAuthorityTheyDoNotUse(_ scheme: String) throws {
        let model = try Model(entities: [Entity("Note", attributes: [Attribute("text", .string)])])
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-url-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let backend = try BuiltInBackends.registry.backend(for: scheme)
        for (text, part) in [
            ("\(scheme)://files.example.com\(directory)/a", "host"),
            ("\(scheme)://me:s3cret@localhost\(directory)/a", "user"),
            ("\(scheme)://localhost:8080\(directory)/a", "port"),
        ] + (scheme == "memory" ? [("\(scheme)://\(directory)/a?journal=off", "query")] : []) {
            let url = try StoreURL.parse(text)
            let error = #expect(throws: StrataError.self, "\(text)") {
                _ = try backend.open(url, model: model, options: StoreOptions())
            }
            #expect(
                error?.code == .invalidStoreURL && error?.location["part"] == part, "\(text): \(error?.message ?? "")")
            #expect(error.map { !"\($0)".contains("s3cret") } == true)
            #expect(throws: StrataError.self) { _ = try backend.metadata(at: url) }
        }
        #expect(!FileManager.default.fileExists(atPath: directory), "nothing was created")
    }

    @Test func aPlainFileURLWithLocalhostOpensTheStore() throws {
        let model = try Model(entities: [Entity("Note", attributes: [Attribute("text", .string)])])
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-url-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try StoreURL.parse("sqlite://localhost\(directory.path)/a%20b.sqlite")
        try BuiltInBackends.registry.open(url, model: model).close()
        #expect(FileManager.default.fileExists(atPath: directory.path + "/a b.sqlite"))
    }
}
