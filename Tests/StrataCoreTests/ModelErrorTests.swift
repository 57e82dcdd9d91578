import Foundation
import StrataCore
import Testing

/// Malformed model files: each error names the file, the JSON path and the problem.
@Suite struct ModelErrorTests {
    static let cases: [(json: String, path: String, says: String)] = [
        (
            #"{"entities": [{"name": "E", "attributes": [{"name": "a", "type": "strng"}]}]}"#,
            "$.entities[0].attributes[0].type", "not an attribute type"
        ),
        (
            #"{"entities": [{"name": "E", "attributes": [{"name": "a"}]}]}"#, "$.entities[0].attributes[0].type",
            "missing"
        ),
        (#"{"entities": [{"name": "1E"}]}"#, "$.entities[0].name", "not a valid entity name"),
        (#"{"entities": [{"name": "E"}, {"name": "E"}]}"#, "$.entities[1].name", "declared twice"),
        (
            #"{"entities": [{"name": "E", "attributes": [{"name": "a", "type": "string"}, {"name": "a", "type": "double"}]}]}"#,
            "$.entities[0].attributes[1].name", "declared twice"
        ),
        (
            #"{"entities": [{"name": "E", "relationships": [{"name": "r", "destination": "F", "inverse": "x"}]}]}"#,
            "$.entities[0].relationships[0].destination", "unknown entity 'F'"
        ),
        (
            #"{"entities": [{"name": "E", "relationships": [{"name": "r", "destination": "E", "inverse": "x"}]}]}"#,
            "$.entities[0].relationships[0].inverse", "not a relationship"
        ),
        (
            #"{"entities": [{"name": "E", "attributes": [{"name": "a", "type": "integer16", "default": 70000}]}]}"#,
            "$.entities[0].attributes[0].default", "does not fit"
        ),
        (
            #"{"entities": [{"name": "E", "attributes": [{"name": "a", "type": "string", "default": 5}]}]}"#,
            "$.entities[0].attributes[0].default", "must be a string"
        ),
        (
            #"{"entities": [{"name": "E", "attributes": [{"name": "a", "type": "string", "validation": {"pattern": "("}}]}]}"#,
            "$.entities[0].attributes[0].validation.pattern", "not a valid regular expression"
        ),
        (
            #"{"entities": [{"name": "E", "attributes": [{"name": "a", "type": "string", "validation": {"min": "x"}}]}]}"#,
            "$.entities[0].attributes[0].validation.min", "applies to numbers"
        ),
        (
            #"{"entities": [{"name": "E", "attributes": [{"name": "a", "type": "string", "colour": "red"}]}]}"#,
            "$.entities[0].attributes[0]", "unknown key 'colour'"
        ),
        (
            #"{"entities": [{"name": "E", "uniqueConstraints": [["nope"]]}]}"#, "$.entities[0].uniqueConstraints[0]",
            "not an attribute"
        ),
        (
            #"{"entities": [{"name": "E", "relationships": [{"name": "r", "destination": "E", "inverse": "r", "deleteRule": "explode"}]}]}"#,
            "$.entities[0].relationships[0].deleteRule", "not a delete rule"
        ),
        (#"{"formatVersion": 2, "entities": []}"#, "$.formatVersion", "not supported"),
        (#"{"version": "v1"}"#, "$", "entities"),
        (#"{"entities": {}}"#, "$.entities", "expected an array"),
        (
            #"{"entities": [{"name": "E", "attributes": [{"name": "a", "type": "string", "optional": "yes"}]}]}"#,
            "$.entities[0].attributes[0].optional", "true or false"
        ),
    ]

    @Test(arguments: 0..<cases.count)
    func malformedModelNamesFilePathAndProblem(_ index: Int) throws {
        let (json, path, says) = Self.cases[index]
        let error = #expect(throws: StrataError.self) {
            _ = try Model(jsonData: Data(json.utf8), source: "models/bad.json")
        }
        #expect(error?.code == .invalidModel)
        #expect(error?.location["file"] == "models/bad.json")
        #expect(error?.location["path"] == path, "\(error?.description ?? "")")
        #expect(error?.message.contains(says) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("models/bad.json") == true)
    }

    @Test func invalidJSONGivesLineAndColumn() {
        let error = #expect(throws: StrataError.self) {
            _ = try Model(jsonData: Data("{\n  \"entities\": [\n    {\"name\": \"E\",}\n  ]\n}".utf8), source: "m.json")
        }
        #expect(error?.code == .invalidModel)
        #expect(error?.location["line"] == "3")
        #expect(error?.location["file"] == "m.json")
    }

    @Test func deeplyNestedJSONIsRejectedNotACrash() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: StrataError.self) { _ = try Model(jsonData: Data(deep.utf8)) }
    }

    @Test func versionedDirectoryErrorsNameTheVersion() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("strata-models-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let dir = root.appendingPathComponent("App.stratamodel")
        let v1 = try Model(versionIdentifier: "v1", entities: [Entity("E", attributes: [Attribute("a", .string)])])
        try VersionedModel(name: "App", versions: [v1]).write(to: dir)
        #expect(try VersionedModel(directory: dir).current == v1)

        try Data(#"{"current": "v2", "versions": ["v1", "v2"]}"#.utf8).write(
            to: dir.appendingPathComponent("versions.json"))
        let missing = #expect(throws: StrataError.self) { _ = try VersionedModel(directory: dir) }
        #expect(missing?.message.contains("v2") == true && missing?.message.contains("missing") == true)

        try Data(#"{"current": "v1", "versions": ["v1", "v1"]}"#.utf8).write(
            to: dir.appendingPathComponent("versions.json"))
        let duplicated = #expect(throws: StrataError.self) { _ = try VersionedModel(directory: dir) }
        #expect(duplicated?.message.contains("listed twice") == true)

        try Data(#"{"current": "v1", "versions": ["v1"]}"#.utf8).write(to: dir.appendingPathComponent("versions.json"))
        try v1.jsonData().write(to: dir.appendingPathComponent("v7.json"))
        let unlisted = #expect(throws: StrataError.self) { _ = try VersionedModel(directory: dir) }
        #expect(unlisted?.message.contains("v7.json") == true)

        try FileManager.default.removeItem(at: dir.appendingPathComponent("v7.json"))
        try Data(#"{"version": "v9", "entities": []}"#.utf8).write(to: dir.appendingPathComponent("v1.json"))
        let renamed = #expect(throws: StrataError.self) { _ = try VersionedModel(directory: dir) }
        #expect(renamed?.message.contains("v9") == true)
    }

    @Test func modelInCodeIsCheckedToo() {
        let error = #expect(throws: StrataError.self) {
            _ = try Model(entities: [
                Entity("A", relationships: [Relationship("b", to: "B", inverse: "a")]),
                Entity("B", relationships: [Relationship("a", to: "A", inverse: "other")]),
            ])
        }
        #expect(error?.location["path"] == "$.entities[0].relationships[0].inverse")
    }
}
