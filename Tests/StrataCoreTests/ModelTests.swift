import Foundation
import Testing

@testable import StrataCore

/// The repository's `Examples/Models` directory, found from this file's path.
let examplesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
    .appendingPathComponent("Examples/Models")

@Suite struct ModelTests {
    static let employee = Entity(
        "Employee",
        attributes: [Attribute("name", .string), Attribute("height", .double, isOptional: true)],
        relationships: [Relationship("department", to: "Department", inverse: "employees")],
        indexes: [Entity.Index(name: "byName", properties: ["name"])])
    static let department = Entity(
        "Department",
        attributes: [Attribute("name", .string)],
        relationships: [Relationship("employees", to: "Employee", inverse: "department", toMany: true)])

    @Test func versionHashIsPinned() throws {
        let model = try Model(versionIdentifier: "v1", entities: [Self.employee, Self.department])
        // Pinned: a change here means every existing store would be seen as another version.
        #expect(model.versionHash == "304720f3037a1ba5fda827799c207aa9cdea570a2bc2502bba66e1dcce65e2fd")
        #expect(model.versionHash == ModelVersionHash.compute(entities: [Self.employee, Self.department]))
    }

    @Test func versionHashIgnoresDeclarationOrder() throws {
        let a = try Model(entities: [Self.employee, Self.department])
        let reorderedEmployee = Entity(
            "Employee",
            attributes: [Attribute("height", .double, isOptional: true), Attribute("name", .string)],
            relationships: Self.employee.relationships, indexes: Self.employee.indexes)
        let b = try Model(entities: [Self.department, reorderedEmployee])
        #expect(a.versionHash == b.versionHash)
    }

    @Test func versionHashIgnoresNonStructuralParts() throws {
        let a = try Model(versionIdentifier: "v1", entities: [Self.employee, Self.department])
        let decorated = Entity(
            "Employee",
            attributes: [
                Attribute(
                    "name", .string, defaultValue: "x", renamingIdentifier: "fullName",
                    validation: AttributeValidation(minimumLength: 1)),
                Attribute("height", .double, isOptional: true, validation: AttributeValidation(minimum: .double(0))),
            ],
            relationships: [
                Relationship(
                    "department", to: "Department", inverse: "employees", deleteRule: .cascade,
                    renamingIdentifier: "dept")
            ],
            indexes: Self.employee.indexes)
        let b = try Model(
            versionIdentifier: "v9", entities: [decorated, Self.department], configurations: ["Main": ["Employee"]])
        #expect(a.versionHash == b.versionHash)
    }

    @Test(arguments: [
        Entity(
            "Employee",
            attributes: [Attribute("name", .string, isOptional: true), Attribute("height", .double, isOptional: true)],
            relationships: employee.relationships, indexes: employee.indexes),
        Entity(
            "Employee", attributes: [Attribute("name", .string), Attribute("height", .float, isOptional: true)],
            relationships: employee.relationships, indexes: employee.indexes),
        Entity(
            "Employee", attributes: [Attribute("name", .string)], relationships: employee.relationships,
            indexes: employee.indexes),
        Entity("Employee", attributes: employee.attributes, relationships: employee.relationships),
        Entity(
            "Employee", attributes: employee.attributes, relationships: employee.relationships,
            uniqueConstraints: [["name"]], indexes: employee.indexes),
    ])
    func versionHashChangesWithStructure(_ changed: Entity) throws {
        let a = try Model(entities: [Self.employee, Self.department])
        let b = try Model(entities: [changed, Self.department])
        #expect(a.versionHash != b.versionHash)
    }

    @Test func sha256MatchesKnownVectors() {
        #expect(ModelVersionHash.compute(entities: []) == ModelVersionHash.compute(entities: []))
        // FIPS 180-4 examples, through the canonical-text-free path used by the hash.
        #expect(sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(sha256Hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            sha256Hex(String(repeating: "a", count: 1000))
                == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }

    @Test func jsonRoundTripsExactly() throws {
        let model = try Model(
            versionIdentifier: "v1", entities: [Self.employee, Self.department],
            configurations: ["Main": ["Employee", "Department"]])
        let data = model.jsonData()
        let back = try Model(jsonData: data)
        #expect(back == model)
        #expect(back.versionHash == model.versionHash)
        #expect(back.jsonData() == data)
    }

    @Test func exampleModelVersionsLoadAndRoundTrip() throws {
        let versioned = try VersionedModel(directory: examplesDirectory.appendingPathComponent("Company.stratamodel"))
        #expect(versioned.versions.map(\.versionIdentifier) == ["v1", "v2", "v3"])
        #expect(versioned.current.versionIdentifier == "v3")
        #expect(Set(versioned.versions.map(\.versionHash)).count == 3)
        for model in versioned.versions {
            #expect(try Model(jsonData: model.jsonData()) == model)
        }
        let v2 = try #require(versioned.version(named: "v2"))
        #expect(v2.entity(named: "Employee")?.attribute(named: "dateOfBirth")?.renamingIdentifier == "birthday")
        #expect(v2.entity(named: "Employee")?.attribute(named: "level")?.defaultValue == .integer(1))
        #expect(versioned.version(withHash: v2.versionHash)?.versionIdentifier == "v2")
    }

    @Test func everyAttributeTypeDefaultRoundTripsThroughJSON() throws {
        let defaults: [(AttributeType, Value)] = [
            (.integer16, .integer(-7)), (.integer32, .integer(70_000)), (.integer64, .integer(.max)),
            (.double, .double(.nan)),
            (.float, .float(-.infinity)), (.decimal, .decimal(Decimal(string: "12.50")!)), (.string, "数据"),
            (.boolean, true),
            (.date, .date(Date(timeIntervalSince1970: -1234.5))), (.binary, .binary(Data([0, 1, 255]))),
            (.uuid, .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)),
            (.uri, .uri(URL(string: "https://example.com/a?b=c")!)),
        ]
        let entity = Entity(
            "Defaults",
            attributes: defaults.enumerated().map {
                Attribute("a\($0.offset)", $0.element.0, defaultValue: $0.element.1)
            })
        let model = try Model(entities: [entity])
        let back = try Model(jsonData: model.jsonData())
        #expect(back.entity(named: "Defaults")!.attributes.map(\.defaultValue) == defaults.map { Optional($0.1) })
    }
}

private func sha256Hex(_ text: String) -> String {
    SHA256.hexDigest(of: Array(text.utf8))
}
