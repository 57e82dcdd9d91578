import Foundation
import StrataCore
import StrataMigrations
import StrataTestSupport
import Testing

/// One test per lightweight rule, each executed on every built-in backend.
@Suite struct InferenceRuleTests {
    @Test(arguments: BackendKind.allCases)
    func addedAttributeTakesItsDefault(kind: BackendKind) throws {
        let v2 = try RuleModels.model(
            "v2",
            [
                RuleModels.person([
                    Attribute("name", .string), Attribute("nick", .string, isOptional: true),
                    Attribute("score", .integer32, defaultValue: .integer(5)),
                    Attribute("note", .string, isOptional: true),
                ]), RuleModels.pet(),
            ])
        #expect(
            try MigrationStep.infer(from: RuleModels.v1, to: v2).changes.map(\.kind) == [.addAttribute, .addAttribute])
        try migrate(kind, versions: [RuleModels.v1, v2]) { (store: any PersistentStore) throws in
            #expect(try values(store, "Person", "score") == [.integer(5), .integer(5), .integer(5)])
            #expect(try values(store, "Person", "note") == [.null, .null, .null])
            #expect(try values(store, "Person", "nick") == [.string("nick 1"), .null, .string("nick 3")])
        }
    }

    @Test(arguments: BackendKind.allCases)
    func removedAttributeIsDropped(kind: BackendKind) throws {
        let v2 = try RuleModels.model("v2", [RuleModels.person([Attribute("name", .string)]), RuleModels.pet()])
        #expect(try MigrationStep.infer(from: RuleModels.v1, to: v2).changes.map(\.kind) == [.removeAttribute])
        try migrate(kind, versions: [RuleModels.v1, v2]) { (store: any PersistentStore) throws in
            #expect(
                try values(store, "Person", "name") == [.string("person 1"), .string("person 2"), .string("person 3")])
            #expect(try links(store, "Person", "pet") == [[1], [2], []])
        }
    }

    @Test(arguments: BackendKind.allCases)
    func requiredAttributeBecomesOptional(kind: BackendKind) throws {
        let v2 = try RuleModels.model(
            "v2",
            [
                RuleModels.person([
                    Attribute("name", .string, isOptional: true), Attribute("nick", .string, isOptional: true),
                ]), RuleModels.pet(),
            ])
        #expect(try MigrationStep.infer(from: RuleModels.v1, to: v2).changes.map(\.kind) == [.attributeBecomesOptional])
        try migrate(kind, versions: [RuleModels.v1, v2]) { (store: any PersistentStore) throws in
            #expect(
                try values(store, "Person", "name") == [.string("person 1"), .string("person 2"), .string("person 3")])
            var first = try all(store, "Person")[0]
            first.attributes[0] = .null
            try store.save(SaveRequest(updates: [SaveRequest.Update(first, expectedVersion: first.version)]))
            #expect(try values(store, "Person", "name")[0] == .null)
        }
    }

    @Test(arguments: BackendKind.allCases)
    func optionalAttributeBecomesRequiredWithItsDefault(kind: BackendKind) throws {
        let v2 = try RuleModels.model(
            "v2",
            [
                RuleModels.person([
                    Attribute("name", .string), Attribute("nick", .string, defaultValue: .string("none")),
                ]), RuleModels.pet(),
            ])
        #expect(try MigrationStep.infer(from: RuleModels.v1, to: v2).changes.map(\.kind) == [.attributeBecomesRequired])
        try migrate(kind, versions: [RuleModels.v1, v2]) { (store: any PersistentStore) throws in
            #expect(try values(store, "Person", "nick") == [.string("nick 1"), .string("none"), .string("nick 3")])
        }
    }

    @Test(arguments: BackendKind.allCases)
    func attributeIsRenamedThroughItsRenamingIdentifier(kind: BackendKind) throws {
        let v2 = try RuleModels.model(
            "v2",
            [
                RuleModels.person([
                    Attribute("name", .string),
                    Attribute("nickname", .string, isOptional: true, renamingIdentifier: "nick"),
                ]), RuleModels.pet(),
            ])
        #expect(try MigrationStep.infer(from: RuleModels.v1, to: v2).changes.map(\.kind) == [.renameAttribute])
        try migrate(kind, versions: [RuleModels.v1, v2]) { (store: any PersistentStore) throws in
            #expect(try values(store, "Person", "nickname") == [.string("nick 1"), .null, .string("nick 3")])
        }
    }

    @Test(arguments: BackendKind.allCases)
    func renameChainsAcrossVersions(kind: BackendKind) throws {
        let v2 = try RuleModels.model(
            "v2",
            [
                RuleModels.person([
                    Attribute("name", .string),
                    Attribute("nickname", .string, isOptional: true, renamingIdentifier: "nick"),
                ]), RuleModels.pet(),
            ])
        // v3 renames again and still carries its own renaming identifier only.
        let v3 = try RuleModels.model(
            "v3",
            [
                RuleModels.person([
                    Attribute("name", .string),
                    Attribute("alias", .string, isOptional: true, renamingIdentifier: "nickname"),
                ]), RuleModels.pet(),
            ])
        try migrate(kind, versions: [RuleModels.v1, v2, v3]) { (store: any PersistentStore) throws in
            #expect(try values(store, "Person", "alias") == [.string("nick 1"), .null, .string("nick 3")])
        }
    }

    @Test(arguments: BackendKind.allCases)
    func entityIsRenamedWithItsLinks(kind: BackendKind) throws {
        let v2 = try RuleModels.model(
            "v2",
            [
                RuleModels.person(relationships: [Relationship("pet", to: "Animal", inverse: "owner")]),
                RuleModels.pet(name: "Animal", renamingIdentifier: "Pet"),
            ])
        #expect(try MigrationStep.infer(from: RuleModels.v1, to: v2).changes.map(\.kind) == [.renameEntity])
        try migrate(kind, versions: [RuleModels.v1, v2]) { (store: any PersistentStore) throws in
            #expect(try values(store, "Animal", "name") == [.string("pet 1"), .string("pet 2")])
            #expect(try links(store, "Animal", "owner") == [[1], [2]])
            #expect(try links(store, "Person", "pet") == [[1], [2], []])
            #expect(try store.obtainPermanentIDs(for: "Animal", count: 1)[0].primaryKey! > 2)
        }
    }

    @Test(arguments: BackendKind.allCases)
    func relationshipIsRenamedThroughItsRenamingIdentifier(kind: BackendKind) throws {
        let v2 = try RuleModels.model(
            "v2",
            [
                RuleModels.person(relationships: [
                    Relationship("companion", to: "Pet", inverse: "owner", renamingIdentifier: "pet")
                ]),
                RuleModels.pet([Relationship("owner", to: "Person", inverse: "companion")]),
            ])
        #expect(try MigrationStep.infer(from: RuleModels.v1, to: v2).changes.map(\.kind) == [.renameRelationship])
        try migrate(kind, versions: [RuleModels.v1, v2]) { (store: any PersistentStore) throws in
            #expect(try links(store, "Person", "companion") == [[1], [2], []])
            #expect(try links(store, "Pet", "owner") == [[1], [2]])
        }
    }

    @Test(arguments: BackendKind.allCases)
    func addedEntityStartsEmpty(kind: BackendKind) throws {
        let v2 = try RuleModels.model(
            "v2", [RuleModels.person(), RuleModels.pet(), Entity("Tag", attributes: [Attribute("label", .string)])])
        #expect(try MigrationStep.infer(from: RuleModels.v1, to: v2).changes.map(\.kind) == [.addEntity])
        try migrate(kind, versions: [RuleModels.v1, v2]) { (store: any PersistentStore) throws in
            #expect(try all(store, "Tag").isEmpty)
            try insert(store) { ids in
                [Snapshot(objectID: try ids("Tag", 1)[0], version: 0, attributes: [.string("t")], relationships: [])]
            }
            #expect(try values(store, "Tag", "label") == [.string("t")])
            #expect(try links(store, "Person", "pet") == [[1], [2], []])
        }
    }

    @Test(arguments: BackendKind.allCases)
    func removedEntityTakesItsRelationshipsAlong(kind: BackendKind) throws {
        let v2 = try RuleModels.model("v2", [RuleModels.person(relationships: [])])
        #expect(
            Set(try MigrationStep.infer(from: RuleModels.v1, to: v2).changes.map(\.kind)) == [
                .removeEntity, .removeRelationship,
            ])
        try migrate(kind, versions: [RuleModels.v1, v2]) { (store: any PersistentStore) throws in
            #expect(try values(store, "Person", "nick") == [.string("nick 1"), .null, .string("nick 3")])
            #expect(throws: StrataError.self) { try all(store, "Pet") }
        }
    }

    @Test(arguments: BackendKind.allCases)
    func addedRelationshipStartsEmpty(kind: BackendKind) throws {
        let v2 = try RuleModels.model(
            "v2",
            [
                RuleModels.person(relationships: [
                    Relationship("pet", to: "Pet", inverse: "owner"),
                    Relationship("favorite", to: "Pet", inverse: "fans"),
                ]),
                RuleModels.pet([
                    Relationship("owner", to: "Person", inverse: "pet"),
                    Relationship("fans", to: "Person", inverse: "favorite", toMany: true),
                ]),
            ])
        #expect(
            try MigrationStep.infer(from: RuleModels.v1, to: v2).changes.map(\.kind) == [
                .addRelationship, .addRelationship,
            ])
        try migrate(kind, versions: [RuleModels.v1, v2]) { (store: any PersistentStore) throws in
            #expect(try links(store, "Person", "favorite") == [[], [], []])
            #expect(try links(store, "Pet", "fans") == [[], []])
            #expect(try links(store, "Person", "pet") == [[1], [2], []])
        }
    }

    @Test(arguments: BackendKind.allCases)
    func removedRelationshipLeavesBothEntities(kind: BackendKind) throws {
        let v2 = try RuleModels.model("v2", [RuleModels.person(relationships: []), RuleModels.pet([])])
        #expect(
            try MigrationStep.infer(from: RuleModels.v1, to: v2).changes.map(\.kind) == [
                .removeRelationship, .removeRelationship,
            ])
        try migrate(kind, versions: [RuleModels.v1, v2]) { (store: any PersistentStore) throws in
            #expect(try values(store, "Pet", "name") == [.string("pet 1"), .string("pet 2")])
            #expect(try values(store, "Person", "name").count == 3)
        }
    }

    @Test(arguments: BackendKind.allCases)
    func toOneBecomesToManyKeepingEachTarget(kind: BackendKind) throws {
        let v2 = try RuleModels.model(
            "v2",
            [
                RuleModels.person(relationships: [
                    Relationship("pets", to: "Pet", inverse: "owner", toMany: true, renamingIdentifier: "pet")
                ]),
                RuleModels.pet([Relationship("owner", to: "Person", inverse: "pets")]),
            ])
        #expect(
            try MigrationStep.infer(from: RuleModels.v1, to: v2).changes.map(\.kind) == [
                .renameRelationship, .toOneBecomesToMany,
            ])
        try migrate(kind, versions: [RuleModels.v1, v2]) { (store: any PersistentStore) throws in
            #expect(try links(store, "Person", "pets") == [[1], [2], []])
            #expect(try links(store, "Pet", "owner") == [[1], [2]])
        }
    }

    @Test(arguments: BackendKind.allCases)
    func unorderedToManyBecomesOrderedInKeyOrder(kind: BackendKind) throws {
        let v1 = try RuleModels.model(
            "v1",
            [
                RuleModels.person(relationships: [Relationship("pets", to: "Pet", inverse: "owner", toMany: true)]),
                RuleModels.pet([Relationship("owner", to: "Person", inverse: "pets")]),
            ])
        let v2 = try RuleModels.model(
            "v2",
            [
                RuleModels.person(relationships: [
                    Relationship("pets", to: "Pet", inverse: "owner", toMany: true, ordered: true)
                ]),
                RuleModels.pet([Relationship("owner", to: "Person", inverse: "pets")]),
            ])
        #expect(try MigrationStep.infer(from: v1, to: v2).changes.map(\.kind) == [.becomesOrdered])
        let seed: (any PersistentStore) throws -> Void = { store in
            let person = try store.model.requireEntity("Person")
            let pet = try store.model.requireEntity("Pet")
            let p = try store.obtainPermanentIDs(for: "Person", count: 1)[0]
            let pets = try store.obtainPermanentIDs(for: "Pet", count: 3)
            var owner = Snapshot(objectID: p, entity: person)
            owner.attributes = [.string("owner"), .null]
            owner.relationships = [.toMany(pets.reversed())]
            let animals = pets.enumerated().map { i, id in
                Snapshot(objectID: id, version: 0, attributes: [.string("pet \(i + 1)")], relationships: [.toOne(p)])
            }
            _ = pet
            try store.save(SaveRequest(inserts: [owner] + animals))
        }
        try migrate(kind, versions: [v1, v2], seed: seed) { (store: any PersistentStore) throws in
            #expect(try links(store, "Person", "pets") == [[1, 2, 3]])
            // The order is now kept as saved.
            var owner = try all(store, "Person")[0]
            let ids = owner.relationships[0].targets
            owner.relationships[0] = .toMany([ids[2], ids[0], ids[1]])
            try store.save(SaveRequest(updates: [SaveRequest.Update(owner, expectedVersion: owner.version)]))
            #expect(try links(store, "Person", "pets") == [[3, 1, 2]])
        }
    }
}

/// Several rules at once, and a new unique constraint the data breaks.
@Suite struct CombinedRuleTests {
    @Test(arguments: BackendKind.allCases)
    func relationshipRenamedAndMadeOrderedInOneStep(kind: BackendKind) throws {
        let v1 = try RuleModels.model(
            "v1",
            [
                RuleModels.person(relationships: [Relationship("pets", to: "Pet", inverse: "owner", toMany: true)]),
                RuleModels.pet([Relationship("owner", to: "Person", inverse: "pets")]),
            ])
        let v2 = try RuleModels.model(
            "v2",
            [
                RuleModels.person(relationships: [
                    Relationship(
                        "animals", to: "Pet", inverse: "keeper", toMany: true, ordered: true, renamingIdentifier: "pets"
                    )
                ]),
                RuleModels.pet([Relationship("keeper", to: "Person", inverse: "animals", renamingIdentifier: "owner")]),
            ])
        let seed: (any PersistentStore) throws -> Void = { store in
            let person = try store.model.requireEntity("Person")
            let p = try store.obtainPermanentIDs(for: "Person", count: 1)[0]
            let pets = try store.obtainPermanentIDs(for: "Pet", count: 2)
            var owner = Snapshot(objectID: p, entity: person)
            owner.attributes = [.string("owner"), .null]
            owner.relationships = [.toMany(pets)]
            try store.save(
                SaveRequest(
                    inserts: [owner]
                        + pets.map {
                            Snapshot(objectID: $0, version: 0, attributes: [.string("pet")], relationships: [.toOne(p)])
                        }))
        }
        try migrate(kind, versions: [v1, v2], seed: seed) { (store: any PersistentStore) throws in
            #expect(try links(store, "Person", "animals") == [[1, 2]])
            #expect(try links(store, "Pet", "keeper") == [[1], [1]])
        }
    }

    @Test(arguments: BackendKind.allCases)
    func newUniqueConstraintBrokenByTheDataFailsAndChangesNothing(kind: BackendKind) throws {
        try withTemporaryDirectory { directory in
            let registry = builtInRegistry()
            let url = kind.url(in: directory)
            defer { if kind.outlivesDirectory { try? registry.backend(for: url.scheme).destroyStore(at: url) } }
            let v2 = try RuleModels.model(
                "v2",
                [
                    RuleModels.pet(),
                    Entity(
                        "Person",
                        attributes: [Attribute("name", .string), Attribute("nick", .string, isOptional: true)],
                        relationships: [Relationship("pet", to: "Pet", inverse: "owner")], uniqueConstraints: [["name"]]
                    ),
                ])
            do {
                let store = try registry.open(url, model: RuleModels.v1)
                try RuleModels.seed(store)
                var second = try all(store, "Person")[1]
                second.attributes[0] = .string("person 1")
                try store.save(SaveRequest(updates: [SaveRequest.Update(second, expectedVersion: second.version)]))
                try store.close()
            }
            let migrator = try StoreMigrator(
                versions: VersionedModel(name: "Rules", versions: [RuleModels.v1, v2]), registry: registry)
            #expect(try MigrationStep.infer(from: RuleModels.v1, to: v2).changes.map(\.kind) == [.changeIndexes])
            let error = try #require(throws: StrataError.self) { try migrator.migrate(storeAt: url) }
            #expect(error.code == .uniqueConstraint)
            let store = try registry.open(url, model: RuleModels.v1)
            defer { try? store.close() }
            #expect(
                try values(store, "Person", "name") == [.string("person 1"), .string("person 1"), .string("person 3")])
        }
    }
}
