import Foundation
import StrataCore
import StrataTestSupport
import StrataTortureKit
import Testing

/// The model JSON reader and the versioned-model directory reader under seeded random input:
/// mutated real model files, random JSON in the shape of a model, extreme nesting, broken
/// directories. Every input is a model (which then round-trips) or an `invalidModel` error
/// naming the file; nothing crashes or hangs.
@Suite struct ModelFuzzTests {
    /// The Company example's three versions and the torture model, as JSON.
    static func seeds() throws -> [[UInt8]] {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("Examples/Models/Company.stratamodel")
        var seeds = try ["v1", "v2", "v3"].map {
            Array(try Data(contentsOf: directory.appendingPathComponent("\($0).json")))
        }
        seeds.append(Array(try TortureModel.model().jsonData()))
        return seeds
    }

    /// Parses `bytes`; true when it was a model or a proper `invalidModel` error.
    static func check(_ bytes: [UInt8], _ label: @autoclosure () -> String) -> Bool {
        do {
            let model = try Model(jsonData: Data(bytes), source: "fuzz.json")
            let again = try Model(jsonData: model.jsonData(), source: "again.json")
            #expect(again.versionHash == model.versionHash, "\(label()): the model does not round-trip")
            return again.versionHash == model.versionHash
        } catch let error as StrataError {
            #expect(error.code == .invalidModel, "\(label()): \(error)")
            #expect(error.location["file"] == "fuzz.json", "\(label()): \(error)")
            return error.code == .invalidModel
        } catch {
            Issue.record("\(label()): an untyped error \(error)")
            return false
        }
    }

    @Test func mutatedModelFilesAreModelsOrInvalidModelErrors() throws {
        var random = SeededGenerator(seed: 61)
        let seeds = try Self.seeds()
        let tokens = [
            "{", "}", "[", "]", ",", ":", "\"", "\\", "null", "true", "-1", "1e999", "\"\\u0000\"", "\"\\ud800\"",
            "\"name\"", "\"type\"",
            "\"entities\"", "\"attributes\"", "\"relationships\"", "\"destination\"", "\"inverse\"", "\"toMany\"",
            "\"string\"", "\"integer64\"",
            "\"formatVersion\"", "99999999999999999999", "0.5", "\"\"", "\u{FEFF}", "\u{0}",
        ]
        var models = 0
        let count = 3_000
        for i in 0..<count {
            var bytes = seeds[i % seeds.count]
            bytes.mutate(edits: 1...4, longestCut: 40, tokens: tokens, using: &random)
            guard Self.check(bytes, "mutation \(i)") else { return }
            if (try? Model(jsonData: Data(bytes))) != nil { models += 1 }
        }
        reportCount("model fuzz (mutated files): \(count) inputs tried, \(models) were models")
    }

    /// Random JSON built from the model format's own vocabulary.
    static func randomNode(_ random: inout SeededGenerator, depth: Int) -> String {
        let keys = [
            "format", "formatVersion", "version", "entities", "name", "attributes", "relationships", "type", "optional",
            "destination",
            "inverse", "toMany", "ordered", "deleteRule", "minCount", "maxCount", "indexes", "uniqueConstraints",
            "properties", "default",
            "validation", "minimum", "maximum", "minLength", "maxLength", "pattern", "renamingIdentifier",
            "configurations", "abstract", "parent",
        ]
        let scalars = [
            "\"strata-model\"", "1", "0", "-1", "2", "\"v1\"", "\"E\"", "\"a\"", "\"string\"", "\"integer16\"",
            "\"decimal\"", "\"date\"", "\"binary\"",
            "\"cascade\"", "\"deny\"", "\"nope\"", "true", "false", "null", "1.5", "1e308", "\"[\"", "\"(a\"", "\"\"",
            "\"" + String(repeating: "x", count: 300) + "\"",
        ]
        if depth > 5 || Int.random(in: 0..<3, using: &random) == 0 { return scalars.randomElement(using: &random)! }
        if Bool.random(using: &random) {
            let fields = (0..<Int.random(in: 0...6, using: &random)).map { _ in
                "\"\(keys.randomElement(using: &random)!)\": \(randomNode(&random, depth: depth + 1))"
            }
            return "{" + fields.joined(separator: ", ") + "}"
        }
        return "["
            + (0..<Int.random(in: 0...4, using: &random)).map { _ in randomNode(&random, depth: depth + 1) }.joined(
                separator: ", ") + "]"
    }

    @Test func randomJSONInTheShapeOfAModelIsAModelOrAnInvalidModelError() {
        var random = SeededGenerator(seed: 62)
        let count = 3_000
        for i in 0..<count {
            var text = "{\"format\": \"strata-model\", \"formatVersion\": 1, \"version\": \"v\", \"entities\": ["
            text +=
                (0..<Int.random(in: 0...3, using: &random)).map { _ in Self.randomNode(&random, depth: 1) }.joined(
                    separator: ", ") + "]"
            if Bool.random(using: &random) {
                text +=
                    ", \"\(["configurations", "extra", "entities"].randomElement(using: &random)!)\": \(Self.randomNode(&random, depth: 1))"
            }
            text += "}"
            guard Self.check(Array(text.utf8), "random \(i): \(text.prefix(300))") else { return }
        }
        reportCount("model fuzz (random model-shaped JSON): \(count) inputs tried")
    }

    @Test func extremeNestingAndSizesAreRefusedWithoutExhaustingTheStack() {
        let cases: [(String, [UInt8])] = [
            (
                "511 nested arrays",
                Array((String(repeating: "[", count: 511) + String(repeating: "]", count: 511)).utf8)
            ),
            (
                "513 nested arrays",
                Array((String(repeating: "[", count: 513) + String(repeating: "]", count: 513)).utf8)
            ),
            ("100,000 nested objects", Array(String(repeating: "{\"a\":", count: 100_000).utf8)),
            ("100,000 open brackets", Array(String(repeating: "[", count: 100_000).utf8)),
            ("a 5 MB string", Array(("{\"version\": \"" + String(repeating: "v", count: 5_000_000) + "\"}").utf8)),
            (
                "20,000 entities named alike",
                Array(
                    ("{\"format\": \"strata-model\", \"formatVersion\": 1, \"version\": \"v\", \"entities\": ["
                        + Array(repeating: "{\"name\": \"E\"}", count: 20_000).joined(separator: ",") + "]}").utf8)
            ),
            ("an empty file", []),
            ("a UTF-16 file", Array("{\"version\": 1}".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })),
        ]
        for (label, bytes) in cases {
            let start = Date()
            #expect(Self.check(bytes, label))
            #expect(Date().timeIntervalSince(start) < 10, "\(label) took \(Date().timeIntervalSince(start)) s")
        }
        reportCount("model fuzz (extreme nesting and sizes): \(cases.count) inputs tried")
    }

    @Test func brokenModelDirectoriesAreInvalidModelErrorsNamingTheFile() throws {
        let valid = Array(try TortureModel.model().jsonData())
        let cases: [(String, [String: [UInt8]?])] = [
            ("no manifest", ["torture.json": valid]),
            ("a manifest that is not JSON", ["versions.json": Array("{versions".utf8), "torture.json": valid]),
            (
                "versions not an array",
                ["versions.json": Array("{\"versions\": \"torture\"}".utf8), "torture.json": valid]
            ),
            (
                "a listed version without a file",
                ["versions.json": Array("{\"versions\": [\"torture\", \"v9\"]}".utf8), "torture.json": valid]
            ),
            (
                "a version listed twice",
                ["versions.json": Array("{\"versions\": [\"torture\", \"torture\"]}".utf8), "torture.json": valid]
            ),
            ("a path in a version name", ["versions.json": Array("{\"versions\": [\"../../etc/passwd\"]}".utf8)]),
            (
                "an unknown current version",
                [
                    "versions.json": Array("{\"versions\": [\"torture\"], \"current\": \"v9\"}".utf8),
                    "torture.json": valid,
                ]
            ),
            (
                "an unlisted model file",
                ["versions.json": Array("{\"versions\": [\"torture\"]}".utf8), "torture.json": valid, "v2.json": valid]
            ),
            (
                "a file whose version differs from its name",
                ["versions.json": Array("{\"versions\": [\"other\"]}".utf8), "other.json": valid]
            ),
            (
                "a model file that is a directory",
                ["versions.json": Array("{\"versions\": [\"torture\"]}".utf8), "torture.json": nil]
            ),
            ("an empty version list", ["versions.json": Array("{\"versions\": []}".utf8)]),
        ]
        for (label, files) in cases {
            let directory = temporaryDirectory() + "/Broken.stratamodel"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            for (name, bytes) in files {
                if let bytes {
                    try Data(bytes).write(to: URL(fileURLWithPath: directory + "/" + name))
                } else {
                    try FileManager.default.createDirectory(
                        atPath: directory + "/" + name, withIntermediateDirectories: true)
                }
            }
            do {
                _ = try VersionedModel(directory: URL(fileURLWithPath: directory))
                Issue.record("\(label): read as a model")
            } catch let error as StrataError {
                #expect(
                    error.code == .invalidModel && error.location["file"]?.hasPrefix(directory) == true,
                    "\(label): \(error)")
            } catch {
                Issue.record("\(label): an untyped error \(error)")
            }
        }
        reportCount("broken model directories: \(cases.count) inputs tried")
    }
}
