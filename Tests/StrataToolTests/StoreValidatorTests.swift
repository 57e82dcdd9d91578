import Foundation
import Strata
import StrataTestSupport
import StrataTransfer
import Testing

/// A store holding what its model forbids: it answers with the snapshots of a store opened
/// with a model that lacks the rules, as a store written by another tool would.
private final class UncheckedStore: WrappingStore {
    let inner: any PersistentStore
    let model: Model
    init(inner: any PersistentStore, model: Model) {
        self.inner = inner
        self.model = model
    }
}

@Suite struct StoreValidatorTests {
    static let lax = try! Model(
        versionIdentifier: "lax",
        entities: [
            Entity(
                "Tag",
                attributes: [
                    Attribute("label", .string, isOptional: true), Attribute("code", .string, isOptional: true),
                ],
                relationships: [
                    Relationship("owner", to: "Tag", inverse: "owned"),
                    Relationship("owned", to: "Tag", inverse: "owner", toMany: true),
                ])
        ])
    static let strict = try! Model(
        versionIdentifier: "strict",
        entities: [
            Entity(
                "Tag",
                attributes: [
                    Attribute("label", .string, validation: AttributeValidation(pattern: "[a-z]+")),
                    Attribute("code", .string, isOptional: true),
                ],
                relationships: [
                    Relationship("owner", to: "Tag", inverse: "owned", isOptional: false),
                    Relationship("owned", to: "Tag", inverse: "owner", toMany: true, maximumCount: 1),
                ],
                uniqueConstraints: [["code"]])
        ])

    @Test func reportsPatternRequiredCountAndUniqueViolationsInKeyOrder() throws {
        let inner = try BuiltInBackends.registry.open(
            StoreURL(scheme: "memory", location: "lax-\(UUID())"), model: Self.lax)
        let file = """
            {"entity":"Tag","ref":"a","attributes":{"label":"ok","code":"X"},"relationships":{"owner":"a","owned":["a","b"]}}
            {"entity":"Tag","ref":"b","attributes":{"label":"NOT ok","code":"X"},"relationships":{"owner":"a"}}
            {"entity":"Tag","ref":"c","attributes":{"code":null}}
            """
        try JSONLinesImporter().importLines(Data(file.utf8), into: inner)
        let report = try StoreValidator(batchSize: 2).validate(UncheckedStore(inner: inner, model: Self.strict))
        #expect(report.checked == ["Tag": 3])
        #expect(
            report.violations.map(\.description) == [
                "Tag p1.owned: has 2 targets, more than the maximum 1",
                "Tag p2.label: \"NOT ok\" does not match the pattern [a-z]+",
                "Tag p2.code: \"X\" is also used by Tag p1; 'Tag' requires it to be unique",
                "Tag p3.label: is required but has no value",
                "Tag p3.owner: is a required relationship but has no target",
            ])
    }
}
