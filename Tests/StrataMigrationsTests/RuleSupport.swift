import Foundation
import StrataCore
import StrataMigrations
import StrataTestSupport

/// Small models for the inference-rule tests: Person(name, nick?) and Pet(name), linked by
/// Person.pet <-> Pet.owner (one-to-one) unless a test says otherwise.
enum RuleModels {
    static func person(
        _ attributes: [Attribute]? = nil, relationships: [Relationship]? = nil, renamingIdentifier: String? = nil
    ) -> Entity {
        Entity(
            "Person",
            attributes: attributes ?? [Attribute("name", .string), Attribute("nick", .string, isOptional: true)],
            relationships: relationships ?? [Relationship("pet", to: "Pet", inverse: "owner")],
            renamingIdentifier: renamingIdentifier)
    }

    static func pet(_ relationships: [Relationship]? = nil, name: String = "Pet", renamingIdentifier: String? = nil)
        -> Entity
    {
        Entity(
            name, attributes: [Attribute("name", .string)],
            relationships: relationships ?? [Relationship("owner", to: "Person", inverse: "pet")],
            renamingIdentifier: renamingIdentifier)
    }

    static func model(_ version: String, _ entities: [Entity]) throws -> Model {
        try Model(versionIdentifier: version, entities: entities)
    }

    static let v1: Model = try! model("v1", [person(), pet()])

    /// Three people (p1 has pet 1, p2 has pet 2 and no nick, p3 has no pet) and two pets.
    static func seed(_ store: any PersistentStore) throws {
        let model = store.model
        let person = try model.requireEntity("Person")
        let pet = try model.requireEntity("Pet")
        let people = try store.obtainPermanentIDs(for: "Person", count: 3)
        let pets = try store.obtainPermanentIDs(for: "Pet", count: 2)
        var inserts: [Snapshot] = []
        for i in 0..<3 {
            var s = Snapshot(objectID: people[i], entity: person)
            s.attributes = [.string("person \(i + 1)"), i == 1 ? .null : .string("nick \(i + 1)")]
            s.relationships = [.toOne(i < 2 ? pets[i] : nil)]
            inserts.append(s)
        }
        for i in 0..<2 {
            var s = Snapshot(objectID: pets[i], entity: pet)
            s.attributes = [.string("pet \(i + 1)")]
            s.relationships = [.toOne(people[i])]
            inserts.append(s)
        }
        try store.save(SaveRequest(inserts: inserts))
    }
}

/// Seeds a store at `versions[0]` with `seed`, migrates it to the last version with
/// `stages`, and opens it at that version for `check`.
func migrate(
    _ kind: BackendKind, versions models: [Model], stages: [MigrationStage] = [],
    check: (any PersistentStore) throws -> Void
) throws {
    try migrate(kind, versions: models, stages: stages, seed: RuleModels.seed, check: check)
}

/// ``migrate(_:versions:stages:check:)`` with a seed of the test's own.
func migrate(
    _ kind: BackendKind,
    versions models: [Model],
    stages: [MigrationStage] = [],
    seed: (any PersistentStore) throws -> Void,
    check: (any PersistentStore) throws -> Void
) throws {
    try withTemporaryDirectory { directory in
        let registry = builtInRegistry()
        let url = kind.url(in: directory)
        defer { if kind.outlivesDirectory { try? registry.backend(for: url.scheme).destroyStore(at: url) } }
        do {
            let store = try registry.open(url, model: models[0])
            try seed(store)
            try store.close()
        }
        let versions = try VersionedModel(name: "Rules", versions: models)
        try StoreMigrator(versions: versions, stages: stages, registry: registry).migrate(storeAt: url)
        let store = try registry.open(url, model: models.last!)
        defer { try? store.close() }
        try check(store)
    }
}

/// The attribute `name` of every object of `entity`, in key order.
func values(_ store: any PersistentStore, _ entity: String, _ name: String) throws -> [Value] {
    let e = try store.model.requireEntity(entity)
    return try all(store, entity).map { $0.value(of: name, in: e) ?? .null }
}

/// The target keys of relationship `name` of every object of `entity`, in key order.
func links(_ store: any PersistentStore, _ entity: String, _ name: String) throws -> [[Int64]] {
    let e = try store.model.requireEntity(entity)
    return try all(store, entity).map { $0.relationship(name, in: e)?.targets.compactMap(\.primaryKey) ?? [] }
}
