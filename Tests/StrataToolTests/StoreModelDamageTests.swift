import Foundation
import Strata
import StrataTestSupport
import Testing

/// A store whose carried model is damaged, disagrees with its hash, or is missing (a store
/// written before stores kept their model): typed errors naming the store, never a crash.
@Suite struct StoreModelDamageTests {
    /// An XML store of the Company model, whose text the tests edit.
    func xmlStore(in directory: TemporaryDirectory) throws -> (url: StoreURL, path: String) {
        let url = directory.storeURL("xml")
        let store = try Fixture.open(url)
        try seedCompany(store, employees: 5)
        try store.close()
        return (url, url.location)
    }

    /// Rewrites the root element's `model` attribute of the XML store at `path`; `nil` removes it.
    func rewriteModelAttribute(at path: String, _ change: (String) -> String?) throws {
        var text = try String(contentsOfFile: path, encoding: .utf8)
        let start = try #require(text.range(of: #" model=""#))
        let end = try #require(text[start.upperBound...].firstIndex(of: "\""))
        let value = String(text[start.upperBound..<end])
        if let changed = change(value) {
            text.replaceSubrange(start.upperBound..<end, with: changed)
        } else {
            text.removeSubrange(start.lowerBound...end)
        }
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    func inspect(_ url: StoreURL, in directory: TemporaryDirectory, _ extra: [String] = []) throws -> ProgramOutput {
        try runBuilt("strata", ["inspect", url.description] + extra, in: directory.url)
    }

    @Test func aDamagedModelIsStoreCorrupt() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let (url, path) = try xmlStore(in: directory)
        try rewriteModelAttribute(at: path) { $0.replacingOccurrences(of: "strata-model", with: "not-a-model") }
        #expect {
            try StoreModelReader.model(at: url, registry: BuiltInBackends.registry)
        } throws: { error in
            guard let error = error as? StrataError else { return false }
            return error.code == .storeCorrupt && error.message.contains(url.description)
                && error.location["storeHash"] == Fixture.model.versionHash
        }
        let run = try inspect(url, in: directory)
        #expect(run.status == 1)
        #expect(run.errors.hasPrefix("strata: storeCorrupt"), "\(run.errors)")
        #expect(run.errors.contains("damaged"), "\(run.errors)")
    }

    @Test func aModelOfAnotherHashIsStoreCorruptNamingBothHashes() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let (url, path) = try xmlStore(in: directory)
        let other = Fixture.versioned.versions[0]
        try rewriteModelAttribute(at: path) { _ in
            String(decoding: other.jsonData(), as: UTF8.self).replacingOccurrences(of: "\"", with: "&quot;")
                .replacingOccurrences(of: "\n", with: "&#10;")
        }
        let run = try inspect(url, in: directory, ["--json"])
        #expect(run.status == 1)
        #expect(run.errors.hasPrefix("strata: storeCorrupt"), "\(run.errors)")
        #expect(
            run.errors.contains(other.versionHash) && run.errors.contains(Fixture.model.versionHash), "\(run.errors)")
        // With the model given, the store still opens: its objects are intact.
        let given = try inspect(url, in: directory, ["--model", Repository.companyModelDirectory.path])
        #expect(given.status == 0, "\(given.errors)")
    }

    @Test func aStoreWithoutAModelNeedsOneGiven() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let (url, path) = try xmlStore(in: directory)
        try rewriteModelAttribute(at: path) { _ in nil }
        #expect(
            try BuiltInBackends.registry.backend(for: "xml").metadata(at: url)?.modelVersionHash
                == Fixture.model.versionHash)
        let run = try inspect(url, in: directory)
        #expect(run.status == 1)
        #expect(run.errors.hasPrefix("strata: storeHasNoModel"), "\(run.errors)")
        #expect(run.errors.contains("carries no model") && run.errors.contains("--model"), "\(run.errors)")
        let export = try runBuilt(
            "strata", ["export", url.description, "--model", Repository.companyModelDirectory.path], in: directory.url)
        #expect(export.status == 0, "\(export.errors)")
        #expect(export.output.contains(#"{"entity":"Employee""#))
    }
}
