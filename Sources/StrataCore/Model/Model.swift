/// A model: the schema of a store, as data.
///
/// Build one in code, load one from the JSON format (``Model/init(jsonData:source:)``), or derive
/// one from typed subclasses. A model is checked when it is created: every name is valid and
/// unique, every relationship has a destination and an inverse that points back, every default
/// fits its attribute, every constraint and index names attributes that exist. A model that
/// exists is consistent.
///
/// ``versionHash`` identifies the *structure* (see ``ModelVersionHash``): stores record it, and
/// opening a store written with a different structure is a model mismatch.
public struct Model: Sendable {
    /// The name of this version (`"v1"`), free text. Not part of the version hash.
    public let versionIdentifier: String
    /// The entities, in declaration order.
    public let entities: [Entity]
    /// Named subsets of the entities, so that a coordinator can route each subset to its own
    /// store. Every model also has the implicit configuration ``defaultConfiguration`` with all
    /// entities.
    public let configurations: [String: [String]]
    /// The structural hash: 64 lowercase hex digits of SHA-256.
    public let versionHash: String
    /// The hashes earlier Strata releases gave this structure, where they differ from
    /// ``versionHash`` (see ``ModelVersionHash/previousHashes(entities:)``); usually empty.
    public let previousVersionHashes: [String]

    private let entityIndexes: [String: Int]

    /// The name of the configuration that holds every entity.
    public static let defaultConfiguration = "Default"

    /// Creates a model and checks its consistency.
    ///
    /// - Throws: ``StrataError`` with code ``StrataError/Code/invalidModel``; its `location`
    ///   holds the JSON path of the faulty part (`$.entities[2].relationships[0].inverse`).
    public init(versionIdentifier: String = "", entities: [Entity], configurations: [String: [String]] = [:]) throws {
        self.versionIdentifier = versionIdentifier
        self.entities = entities
        self.configurations = configurations
        var indexes: [String: Int] = [:]
        for (i, entity) in entities.enumerated() where indexes[entity.name] == nil { indexes[entity.name] = i }
        self.entityIndexes = indexes
        self.versionHash = ModelVersionHash.compute(entities: entities)
        self.previousVersionHashes = ModelVersionHash.previousHashes(entities: entities)
        try ModelValidator(model: self).validate()
    }

    /// Whether a store that records `hash` was written with this model's structure: `hash` is
    /// ``versionHash`` or one of ``previousVersionHashes``.
    public func matchesVersionHash(_ hash: String) -> Bool {
        hash == versionHash || previousVersionHashes.contains(hash)
    }

    /// The entity named `name`. O(1).
    public func entity(named name: String) -> Entity? { entityIndexes[name].map { entities[$0] } }

    /// The entity named `name`, or an ``StrataError/Code/unknownEntity`` error listing the known ones.
    public func requireEntity(_ name: String) throws -> Entity {
        guard let entity = entity(named: name) else {
            throw StrataError(
                .unknownEntity,
                "the model has no entity '\(name)'; it has: \(entities.map(\.name).sorted().joined(separator: ", "))",
                location: ["entity": name]
            )
        }
        return entity
    }

    /// The entity names of configuration `name` (every entity for ``defaultConfiguration``).
    public func entityNames(inConfiguration name: String) -> [String]? {
        if name == Self.defaultConfiguration && configurations[name] == nil { return entities.map(\.name) }
        return configurations[name]
    }
}

extension Model: Equatable {
    /// Models are equal when their declarations, configurations and version identifiers are equal.
    public static func == (lhs: Model, rhs: Model) -> Bool {
        lhs.versionIdentifier == rhs.versionIdentifier && lhs.entities == rhs.entities
            && lhs.configurations == rhs.configurations
    }
}
