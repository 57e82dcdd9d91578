import Foundation
import Strata
import StrataTestSupport
import Testing

/// The `strata` commands, run as the built executable.
@Suite struct CommandTests {
    /// A seeded SQLite store and its canonical export.
    static func seededStore(in directory: URL, employees: Int = 60) throws -> (url: StoreURL, export: String) {
        let url = storeURL("sqlite", in: directory, name: "seeded")
        let store = try Fixture.open(url)
        defer { try? store.close() }
        try seedCompany(store, employees: employees)
        return (url, try Fixture.export(store))
    }

    @Test(arguments: ["inspect", "import", "export", "validate", "copy"])
    func helpNamesTheCommonOptions(_ command: String) throws {
        let run = try strata([command, "--help"])
        #expect(run.status == 0)
        #expect(run.output.contains("--model <DIR>"), "\(command): \(run.output)")
        #expect(run.output.contains("--json"), "\(command)")
        #expect(run.output.contains("USAGE: strata \(command)"), "\(command)")
    }

    @Test func helpTextsSayWhatMatters() throws {
        // Words as a reader sees them, whatever the width the help was wrapped to.
        func words(_ arguments: [String]) throws -> String {
            try strata(arguments).output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }
        #expect(try words(["import", "--help"]).contains("nothing is imported"))
        #expect(try words(["import", "--help"]).contains("--model-version <VERSION>"))
        #expect(try words(["export", "--help"]).contains("--where <PREDICATE>"))
        #expect(try words(["copy", "--help"]).contains("--replace"))
        #expect(try words(["validate", "--help"]).contains("Exit code 0 when every object passes, 2"))
        let top = try strata(["--help"]).output
        for command in ["demo", "inspect", "import", "export", "validate", "copy"] {
            #expect(top.contains("  \(command) "), "\(command)")
        }
        #expect(try words(["--help"]).contains("2 validate found violations, 64 bad usage."))
    }

    @Test func importThenExportThroughTheToolRoundTripsByteForByte() throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let (_, file) = try Self.seededStore(in: directory)
        let path = directory.appendingPathComponent("data.jsonl").path
        try Data(file.utf8).write(to: URL(fileURLWithPath: path))
        for scheme in ["sqlite", "lmdb", "xml"] {
            let url = storeURL(scheme, in: directory, name: "imported").description
            let imported = try strata(["import", url, path])
            #expect(imported.status == 0, "\(scheme): \(imported.errors)")
            #expect(
                imported.output
                    == "imported 80 objects into \(url) (model v3): Company 2, Department 6, Employee 60, Project 12\n")
            let exported = try strata(["export", url])
            #expect(exported.status == 0, "\(scheme): \(exported.errors)")
            #expect(exported.output == file, "\(scheme)")
        }
        let fromStandardInput = try strata(
            ["import", storeURL("lmdb", in: directory, name: "stdin").description, "-", "--json"], input: file)
        #expect(fromStandardInput.status == 0)
        let json = try parseJSON(fromStandardInput.output)
        #expect(json["imported"] == .integer(80))
        #expect(json["entities"]?["Employee"] == .integer(60))
    }

    @Test func malformedImportExitsOneNamingTheLineAndImportsNothing() throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = storeURL("sqlite", in: directory).description
        let input =
            #"{"entity":"Company","ref":"c1","attributes":{"name":"Acme"}}"# + "\n"
            + #"{"entity":"Employee","ref":"e1","attributes":{"name":"x"},"relationships":{"department":"d9"}}"# + "\n"
        let run = try strata(["import", url, "-"], input: input)
        #expect(run.status == 1)
        #expect(run.errors.hasPrefix("strata: invalidObjectID: line 2: "), "\(run.errors)")
        let json = try strata(["import", url, "-", "--json"], input: input)
        #expect(json.status == 1)
        #expect(try parseJSON(json.output)["error"]?["location"]?["line"] == .string("2"))
        // The store the failed import created is removed again.
        let inspect = try parseJSON(try strata(["inspect", url, "--json"]).output)
        #expect(inspect["error"]?["code"] == .string("storeNotFound"), "\(inspect)")
    }

    @Test func inspectReportsTypeVersionHashCountsAndSize() throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let (url, _) = try Self.seededStore(in: directory)
        let text = try strata(["inspect", url.description])
        #expect(text.status == 0, "\(text.errors)")
        #expect(text.output.contains("type:         sqlite\n"))
        #expect(text.output.contains("model:        Company v3 (the current version)\n"))
        #expect(text.output.contains("model hash:   \(Fixture.model.versionHash)\n"))
        #expect(text.output.contains("  Employee    60\n"))
        #expect(text.output.contains("objects:      80\n"))

        let json = try parseJSON(try strata(["inspect", url.description, "--json"]).output)
        #expect(json["storeType"] == .string("sqlite"))
        #expect(json["modelVersion"] == .string("v3"))
        #expect(json["modelVersionHash"] == .string(Fixture.model.versionHash))
        #expect(
            json["entities"]
                == .object([
                    ("Company", .integer(2)), ("Department", .integer(6)), ("Employee", .integer(60)),
                    ("Project", .integer(12)),
                ]))
        guard case .integer(let size)? = json["sizeOnDisk"] else {
            Issue.record("no size: \(json)")
            return
        }
        let file = try FileManager.default.attributesOfItem(atPath: url.location)[.size] as! NSNumber
        #expect(size >= file.int64Value && size > 0)
    }

    @Test func importAtAnOlderVersionWritesThatVersion() throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = storeURL("xml", in: directory).description
        let v1 = #"{"entity":"Employee","ref":"e1","attributes":{"name":"lxz","birthday":"1990-05-01T08:30:00.000Z"}}"#
        let run = try strata(["import", url, "-", "--model-version", "v1"], input: v1 + "\n")
        #expect(run.status == 0, "\(run.errors)")
        let json = try parseJSON(try strata(["inspect", url, "--json"]).output)
        #expect(json["modelVersion"] == .string("v1"))
        #expect(json["currentModelVersion"] == .string("v3"))
        #expect(try strata(["inspect", url]).output.contains("model:        Company v1 (older than the current v3)"))
        let exported = try strata(["export", url])
        #expect(
            exported.output
                == #"{"entity":"Employee","ref":"Employee/1","attributes":{"name":"lxz","birthday":"1990-05-01T08:30:00.000Z","height":null},"relationships":{"department":null}}"#
                + "\n")
        let unknown = try strata(["import", url, "-", "--model-version", "v9"], input: "")
        #expect(unknown.status == 1)
        #expect(unknown.errors.contains("no version 'v9' (it has v1, v2, v3)"))
    }

    @Test func exportFiltersByEntityAndPredicate() throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let (url, _) = try Self.seededStore(in: directory)
        let run = try strata([
            "export", url.description, "--entity", "Employee", "--where", "level >= 9 AND height < 1.6",
        ])
        #expect(run.status == 0, "\(run.errors)")
        let store = try Fixture.open(url)
        defer { try? store.close() }
        let expected = try Fixture.export(
            store, entities: ["Employee"], predicate: ObjectPredicate(format: "level >= 9 AND height < 1.6"))
        #expect(run.output == expected)
        #expect(!expected.isEmpty)
        let badPredicate = try strata(["export", url.description, "--entity", "Employee", "--where", "salary > 3"])
        #expect(badPredicate.status == 1)
        #expect(badPredicate.errors.contains("salary"))
    }

    @Test func validateListsViolationsAndExitsTwo() throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let storeURL = storeURL("lmdb", in: directory)
        let url = storeURL.description
        // Import refuses what the rules forbid: the store protocol alone writes it, as another tool would.
        do {
            let store = try Fixture.open(storeURL)
            defer { try? store.close() }
            let employee = Fixture.model.entity(named: "Employee")!
            let ids = try store.obtainPermanentIDs(for: "Employee", count: 2)
            var bad = Snapshot(objectID: ids[0], entity: employee)
            var fine = Snapshot(objectID: ids[1], entity: employee)
            for (name, value) in [("name", Value.string("")), ("height", .double(3.5)), ("level", .integer(0))] {
                bad.attributes[employee.attributeIndex(named: name)!] = value
            }
            for (name, value) in [("name", Value.string("fine")), ("height", .double(1.7)), ("level", .integer(1))] {
                fine.attributes[employee.attributeIndex(named: name)!] = value
            }
            try store.save(SaveRequest(inserts: [bad, fine]))
        }
        let run = try strata(["validate", url])
        #expect(run.status == 2)
        #expect(run.output.contains("Employee p1.name: is 0 characters long, shorter than 1"), "\(run.output)")
        #expect(run.output.contains("Employee p1.height: 3.5 is more than the maximum"), "\(run.output)")
        #expect(run.output.contains("Employee p1.level:"), "\(run.output)")
        #expect(run.output.hasSuffix("2 objects checked, 3 violations\n"))
        let json = try strata(["validate", url, "--json"])
        #expect(json.status == 2)
        let parsed = try parseJSON(json.output)
        #expect(parsed["checked"] == .integer(2))
        guard case .array(let violations)? = parsed["violations"] else {
            Issue.record("no violations array")
            return
        }
        #expect(violations.count == 3)
        #expect(violations.first?["property"] == .string("name"))

        let (clean, _) = try Self.seededStore(in: directory)
        let ok = try strata(["validate", clean.description])
        #expect(ok.status == 0, "\(ok.output)")
        #expect(ok.output == "80 objects checked, 0 violations\n")
    }

    @Test func copyCommandCopiesAndRefusesANonEmptyDestination() throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let (source, file) = try Self.seededStore(in: directory)
        let target = storeURL("lmdb", in: directory, name: "target").description
        let run = try strata(["copy", source.description, target, "--batch-size", "7"])
        #expect(run.status == 0, "\(run.errors)")
        #expect(
            run.output
                == "copied 80 objects from \(source) to \(target): Company 2, Department 6, Employee 60, Project 12\n")
        #expect(try strata(["export", target]).output == file)
        let again = try strata(["copy", source.description, target])
        #expect(again.status == 1)
        #expect(again.errors.hasPrefix("strata: invalidRequest: the destination \(target) already holds 80 objects"))
        let replaced = try strata(["copy", source.description, target, "--replace", "--json"])
        #expect(replaced.status == 0)
        #expect(try parseJSON(replaced.output)["copied"] == .integer(80))
    }

    @Test func exitCodesForUsageAndStrataErrors() throws {
        let missing = try strata(["inspect", "sqlite:/nonexistent/strata-none.sqlite"])
        #expect(missing.status == 1)
        #expect(missing.errors.hasPrefix("strata: storeNotFound: "))
        let json = try strata(["inspect", "sqlite:/nonexistent/strata-none.sqlite", "--json"])
        #expect(try parseJSON(json.output)["error"]?["code"] == .string("storeNotFound"))
        #expect(try strata(["inspect", "nosuch:x"]).errors.hasPrefix("strata: unknownStoreScheme: "))
        #expect(try strata(["inspect", "sqlite:/tmp/x.sqlite", "--model", "/nonexistent.stratamodel"]).status == 1)
        #expect(try strata(["export", "sqlite:/tmp/x.sqlite", "--where", "height > 1"]).status == 64)
        #expect(try strata(["copy", "memory:a", "memory:b", "--batch-size", "0"]).status == 64)
        #expect(try strata(["inspect"]).status == 64)
        #expect(try strata(["inspect", "memory:x", "--frobnicate"]).status == 64)
    }
}
