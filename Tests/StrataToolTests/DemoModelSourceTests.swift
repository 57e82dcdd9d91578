import Foundation
import Strata
import StrataTestSupport
import Testing

/// The Company model compiled into the tool (`Sources/strata/DemoCompanyModel.swift`) is the one
/// in `Examples/Models/Company.stratamodel`: the source is generated from the directory, and this
/// test fails when the two part. Run it with `STRATA_RECORD_DEMO_MODEL=1` to write the source anew.
@Suite struct DemoModelSourceTests {
    static let source = Repository.root.appendingPathComponent("Sources/strata/DemoCompanyModel.swift")

    /// The Swift source for the model directory.
    static func generatedSource() throws -> String {
        let directory = Repository.companyModelDirectory
        let versioned = try VersionedModel(directory: directory)
        var text = """
            // Generated from Examples/Models/Company.stratamodel: do not edit. DemoModelSourceTests checks that it
            // matches the directory; STRATA_RECORD_DEMO_MODEL=1 swift test --skip-build --filter DemoModelSourceTests
            // writes it anew.

            /// The Company example model, compiled into the tool so that `strata demo` runs in any directory.
            enum DemoCompanyModel {
                /// The model's name.
                static let name = "\(versioned.name)"
                /// The version new stores are written with.
                static let current = "\(versioned.current.versionIdentifier)"
                /// Every version's JSON file, oldest first.
                static let versions: [(identifier: String, json: String)] = [

            """
        for model in versioned.versions {
            var json = try String(
                contentsOf: directory.appendingPathComponent(model.versionIdentifier + ".json"), encoding: .utf8)
            #expect(!json.contains("\"#"), "\(model.versionIdentifier).json cannot go in a raw string literal")
            if !json.hasSuffix("\n") { json += "\n" }
            // The literal's lines are indented as swift-format wants them; the indentation is not
            // part of the string.
            let indented = json.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map {
                $0.isEmpty ? "\n" : "            \($0)\n"
            }
            text += "        (\n            \"\(model.versionIdentifier)\",\n            #\"\"\"\n"
            text += indented.joined() + "            \"\"\"#\n        ),\n"
        }
        return text + "    ]\n}\n"
    }

    @Test func theCompiledModelIsTheExampleDirectory() throws {
        let expected = try Self.generatedSource()
        if ProcessInfo.processInfo.environment["STRATA_RECORD_DEMO_MODEL"] == "1" {
            try Data(expected.utf8).write(to: Self.source)
            return
        }
        let recorded = try String(contentsOf: Self.source, encoding: .utf8)
        #expect(
            recorded == expected,
            "Sources/strata/DemoCompanyModel.swift differs from Examples/Models/Company.stratamodel; record it with STRATA_RECORD_DEMO_MODEL=1"
        )
    }

    /// The demo writes stores with the built-in model's current version, whose JSON is the
    /// directory's.
    @Test func theDemoWritesTheExamplesCurrentVersion() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let url = directory.storeURL("sqlite", name: "demo")
        let run = try runBuilt("strata", ["demo", "--store", url.description, "--objects", "10"], in: directory.url)
        #expect(run.status == 0, "\(run.errors)")
        let current = try Repository.companyVersions().current
        #expect(
            try StoreModelReader.model(at: url, registry: BuiltInBackends.registry).jsonData() == current.jsonData())
    }
}
