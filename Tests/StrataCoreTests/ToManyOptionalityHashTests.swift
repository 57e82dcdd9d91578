import Foundation
import Testing

@testable import StrataCore

/// The optionality of a to-many is not structure (its count bounds say how many targets it
/// needs), so it is out of the version hash; a model that declares a to-many not optional keeps
/// matching the hash earlier releases recorded in its stores.
@Suite struct ToManyOptionalityHashTests {
    /// Teams and their members; `members` optional or not, `team` optional or not.
    static func model(membersOptional: Bool, teamOptional: Bool = true) throws -> Model {
        try Model(
            versionIdentifier: "v1",
            entities: [
                Entity(
                    "Team", attributes: [Attribute("name", .string)],
                    relationships: [
                        Relationship(
                            "members", to: "Person", inverse: "team", toMany: true, isOptional: membersOptional)
                    ]),
                Entity(
                    "Person", attributes: [Attribute("name", .string)],
                    relationships: [Relationship("team", to: "Team", inverse: "members", isOptional: teamOptional)]),
            ])
    }

    /// What releases before this one recorded for ``model(membersOptional:teamOptional:)`` with
    /// a required `members`: SHA-256 of its canonical text with `to-many unordered required`.
    static let earlierHash = "f7c33e05e433d5bc58a5fb4f5fe725af134cc22d052574a5aedb0500da09f3ef"
    /// The hash of the model with an optional `members`, then and now.
    static let optionalMembersHash = "f3cc06423dfce01afabee7a563c923fc87037d37551df32a0d18bcdd20857ac8"

    @Test func aToManysOptionalityLeavesTheHashAlone() throws {
        let optional = try Self.model(membersOptional: true)
        let required = try Self.model(membersOptional: false)
        #expect(optional.versionHash == Self.optionalMembersHash)
        #expect(required.versionHash == Self.optionalMembersHash)
        #expect(optional.previousVersionHashes.isEmpty)
        #expect(
            ModelVersionHash.canonicalText(entities: required.entities)
                .contains("relationship members Person inverse team to-many unordered optional"))
    }

    @Test func aToOnesOptionalityIsStructure() throws {
        let required = try Self.model(membersOptional: true, teamOptional: false)
        #expect(required.versionHash != Self.optionalMembersHash)
        #expect(required.previousVersionHashes.isEmpty)
    }

    @Test func aModelWithARequiredToManyMatchesItsEarlierHash() throws {
        let model = try Self.model(membersOptional: false)
        #expect(model.previousVersionHashes == [Self.earlierHash])
        #expect(model.matchesVersionHash(Self.earlierHash))
        #expect(model.matchesVersionHash(model.versionHash))
        #expect(!(try Self.model(membersOptional: true)).matchesVersionHash(Self.earlierHash))
        #expect(try VersionedModel(name: "Teams", versions: [model]).version(withHash: Self.earlierHash) != nil)
        let url = StoreURL(scheme: "memory", location: "teams")
        let earlier = StoreMetadata(
            storeIdentifier: "S", storeType: "memory", modelVersionHash: Self.earlierHash, modelVersionIdentifier: "v1")
        try earlier.checkCompatible(with: model, at: url)
        let other = StoreMetadata(
            storeIdentifier: "S", storeType: "memory", modelVersionHash: String(repeating: "0", count: 64),
            modelVersionIdentifier: "v0")
        #expect(throws: StrataError.self) { try other.checkCompatible(with: model, at: url) }
    }
}
