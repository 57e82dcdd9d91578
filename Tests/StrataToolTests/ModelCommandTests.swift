import Foundation
import Strata
import StrataMigrations
import StrataTestSupport
import Testing

/// `strata model hash|diff|lint`: a model's hashes, the plan between two versions in the words of
/// `migrate --dry-run`, and the warnings of each lint rule, without a store.
@Suite struct ModelCommandTests {
    static let company = "Examples/Models/Company.stratamodel"

    @Test func hashPrintsEachVersionAndItsHash() throws {
        let run = try strata(["model", "hash", Self.company])
        #expect(run.status == 0, "\(run.errors)")
        let expected = Fixture.versioned.versions.map { "\($0.versionIdentifier) \($0.versionHash)" }
        #expect(run.output.split(separator: "\n").map(String.init) == expected)

        let json = try strata(["model", "hash", Self.company, "--json"])
        guard case .object(let members) = try parseJSON(json.output) else {
            Issue.record("not a JSON object: \(json.output)")
            return
        }
        let object = Dictionary(members, uniquingKeysWith: { first, _ in first })
        #expect(object["current"] == .string(Fixture.versioned.current.versionIdentifier))
        guard case .array(let versions)? = object["versions"] else {
            Issue.record("no versions: \(json.output)")
            return
        }
        #expect(
            versions
                == Fixture.versioned.versions.map {
                    .object([("version", .string($0.versionIdentifier)), ("hash", .string($0.versionHash))])
                })
    }

    @Test func diffSaysWhatMigrateDryRunSaysForAStoreAtTheFirstVersion() throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = storeURL("sqlite", in: directory)
        try Fixture.open(url, model: try #require(Fixture.versioned.version(named: "v1"))).close()

        let dryRun = try strata(["migrate", url.description, "--dry-run", "--model", Self.company])
        #expect(dryRun.status == 0, "\(dryRun.errors)")
        let diff = try strata(["model", "diff", Self.company, "--from", "v1", "--to", "v3"])
        #expect(diff.status == 0, "\(diff.errors)")
        #expect(diff.output == dryRun.output)
        #expect(diff.output.hasPrefix("migrate from v1 to v3 in 2 steps\n"))

        let dryRunJSON = try strata(["migrate", url.description, "--dry-run", "--model", Self.company, "--json"])
        let diffJSON = try strata(["model", "diff", Self.company, "--from", "v1", "--to", "v3", "--json"])
        guard case .object(let members) = try parseJSON(dryRunJSON.output) else {
            Issue.record("not a JSON object: \(dryRunJSON.output)")
            return
        }
        #expect(members.first { $0.0 == "plan" }?.1 == (try parseJSON(diffJSON.output)))
    }

    @Test func diffDefaultsToTheStepIntoTheCurrentVersion() throws {
        let run = try strata(["model", "diff", Self.company])
        #expect(run.status == 0, "\(run.errors)")
        let plan = try MigrationPlan.make(versions: Fixture.versioned, from: "v2", to: "v3")
        #expect(run.output == plan.description + "\n")
        #expect(run.output.hasPrefix("migrate from v2 to v3 in 1 step\n"))
    }

    @Test func diffRefusesToGoBackwardsOrToAnUnknownVersion() throws {
        let backwards = try strata(["model", "diff", Self.company, "--from", "v3", "--to", "v1"])
        #expect(backwards.status == 1)
        #expect(backwards.errors.contains("invalidRequest"))
        #expect(backwards.errors.contains("migrations only go forward"))
        let unknown = try strata(["model", "diff", Self.company, "--from", "v9", "--json"])
        #expect(unknown.status == 1)
        #expect(unknown.output.contains("\"code\":\"invalidRequest\""))
        #expect(unknown.errors.contains("'v9'"))
    }

    @Test func theCompanyModelHasNoLintWarning() throws {
        let run = try strata(["model", "lint", Self.company])
        #expect(run.status == 0, "\(run.output)\(run.errors)")
        #expect(run.output == "Company: 0 warnings\n")
    }

    @Test func lintFindsEveryRuleOnceAndExitsWithOne() throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("Shop.stratamodel")
        try Self.shop().write(to: path)

        let run = try strata(["model", "lint", path.path, "--json"])
        #expect(run.status == 1, "\(run.errors)")
        guard case .object(let members) = try parseJSON(run.output),
            case .array(let warnings)? = members.first(where: { $0.0 == "warnings" })?.1
        else {
            Issue.record("no warnings: \(run.output)")
            return
        }
        let found = warnings.compactMap { warning -> String? in
            guard case .object(let fields) = warning else { return nil }
            let field = Dictionary(fields, uniquingKeysWith: { first, _ in first })
            guard case .string(let rule)? = field["rule"], case .string(let entity)? = field["entity"] else {
                return nil
            }
            if case .string(let property)? = field["property"] { return "\(rule) \(entity).\(property)" }
            return "\(rule) \(entity)"
        }
        #expect(
            found.sorted() == [
                "attributeBecomesRequiredWithoutDefault Item.price",
                "attributeTypeChanges Item.count",
                "cascadeAcrossManyToMany Tag.items",
                "deleteRuleNoAction Owner.items",
                "indexRepeatsAnother Item.byName",
                "indexRepeatsAnother Item.bySku",
                "indexUnusable Item.byPrice",
                "renamingIdentifierMatchesNothing Item.title",
                "requiredAttributeWithoutDefault Item.sku",
                "requiredToOneAdded Item.owner",
                "uniqueConstraintRepeatsAnother Item",
            ])

        let text = try strata(["model", "lint", path.path])
        #expect(text.status == 1)
        #expect(text.output.hasSuffix("Shop: 11 warnings\n"))
        #expect(text.output.contains("warning: v2 Item.sku: requiredAttributeWithoutDefault: "))
    }

    @Test func aModelThatIsNotValidIsTheTypedError() throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("broken.json")
        // Item.tags names an inverse Tag does not have.
        let json = """
            {"format": "strata-model", "formatVersion": 1, "version": "v1", "entities": [
              {"name": "Item", "relationships": [{"name": "tags", "destination": "Tag", "inverse": "items", "toMany": true}]},
              {"name": "Tag", "attributes": [{"name": "label", "type": "string"}]}]}
            """
        try Data(json.utf8).write(to: file)
        for command in ["hash", "diff", "lint"] {
            let run = try strata(["model", command, file.path, "--json"])
            #expect(run.status == 1, "\(command)")
            #expect(run.output.contains("\"code\":\"invalidModel\""), "\(command): \(run.output)")
            #expect(run.output.contains("$.entities[0].relationships[0].inverse"), "\(command): \(run.output)")
        }
    }

    /// Two versions of a shop model that break every lint rule once.
    static func shop() throws -> VersionedModel {
        let v1 = try Model(
            versionIdentifier: "v1",
            entities: [
                Entity(
                    "Item",
                    attributes: [
                        Attribute("name", .string), Attribute("price", .decimal, isOptional: true),
                        Attribute("count", .integer32, isOptional: true),
                    ],
                    relationships: [Relationship("tags", to: "Tag", inverse: "items", toMany: true)]),
                Entity(
                    "Tag", attributes: [Attribute("label", .string)],
                    relationships: [Relationship("items", to: "Item", inverse: "tags", toMany: true)]),
            ])
        let v2 = try Model(
            versionIdentifier: "v2",
            entities: [
                Entity(
                    "Item",
                    attributes: [
                        Attribute("name", .string), Attribute("price", .decimal),
                        Attribute("count", .string, isOptional: true), Attribute("sku", .string),
                        Attribute("title", .string, isOptional: true, renamingIdentifier: "titel"),
                    ],
                    relationships: [
                        Relationship("tags", to: "Tag", inverse: "items", toMany: true),
                        Relationship("owner", to: "Owner", inverse: "items", isOptional: false),
                    ],
                    uniqueConstraints: [["sku"], ["sku", "name"]],
                    indexes: [
                        Entity.Index(name: "byPrice", properties: ["price"]),
                        Entity.Index(name: "byName", properties: ["name"]),
                        Entity.Index(name: "byNameAndSku", properties: ["name", "sku"]),
                        Entity.Index(name: "bySku", properties: ["sku"]),
                    ]),
                Entity(
                    "Tag", attributes: [Attribute("label", .string)],
                    relationships: [
                        Relationship("items", to: "Item", inverse: "tags", toMany: true, deleteRule: .cascade)
                    ]),
                Entity(
                    "Owner", attributes: [Attribute("name", .string)],
                    relationships: [
                        Relationship("items", to: "Item", inverse: "owner", toMany: true, deleteRule: .noAction)
                    ]),
            ])
        return try VersionedModel(name: "Shop", versions: [v1, v2])
    }
}
