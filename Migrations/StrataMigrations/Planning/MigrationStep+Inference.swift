import StrataCore

extension MigrationStep {
    /// Infers the mapping from `source` to `destination` by Core Data's lightweight rules.
    ///
    /// Inferred: added and removed entities, attributes and relationships; renames through
    /// renaming identifiers (a destination property whose renaming identifier the source does
    /// not have falls back to its own name, so chains like v1 -> v2 -> v3 work step by step);
    /// required -> optional; optional -> required when the attribute has a default (nulls take
    /// it); to-one -> to-many; unordered -> ordered; index and unique-constraint changes.
    ///
    /// Accepted only with a `stage` (which must leave the data fit for the change): optional ->
    /// required with no default (attributes and to-ones), to-many -> to-one, ordered ->
    /// unordered, a new required to-one.
    ///
    /// - Throws: ``StrataError/Code/migrationNotInferable`` naming the entity, the property and
    ///   the change, with a suggestion; type and destination changes are refused even with a
    ///   stage (split them into versions: add the new property, copy values in a stage, remove
    ///   the old one).
    public static func infer(from source: Model, to destination: Model, stage: MigrationStage? = nil) throws
        -> MigrationStep
    {
        var inference = Inference(source: source, destination: destination, stage: stage)
        try inference.run()
        return MigrationStep(
            source: source, destination: destination, entityMappings: inference.mappings,
            removedEntities: inference.removedEntities, changes: inference.changes, stage: stage)
    }
}

/// The work of ``MigrationStep/infer(from:to:stage:)``.
private struct Inference {
    let source: Model
    let destination: Model
    let stage: MigrationStage?
    var mappings: [EntityMapping] = []
    var removedEntities: [String] = []
    var changes: [MigrationChange] = []
    /// Source entity name -> destination entity name.
    var entityNames: [String: String] = [:]

    init(source: Model, destination: Model, stage: MigrationStage?) {
        self.source = source
        self.destination = destination
        self.stage = stage
    }

    var step: String { "\(source.versionIdentifier) -> \(destination.versionIdentifier)" }

    func refuse(_ kind: MigrationChange.Kind, entity: String, property: String?, _ what: String, suggestion: String)
        -> StrataError
    {
        var location = ["entity": entity, "change": kind.rawValue, "step": step]
        if let property { location["property"] = property }
        return StrataError(
            .migrationNotInferable,
            "migrating \(step): \(entity)\(property.map { "." + $0 } ?? "") \(what), which inference cannot map; \(suggestion)",
            location: location)
    }

    var stageSuggestion: String {
        "add a custom stage (MigrationStage(from: \"\(source.versionIdentifier)\", to: \"\(destination.versionIdentifier)\", willMigrate: ...)) that prepares the data"
    }

    mutating func run() throws {
        // Entities: by renaming identifier first, then by name.
        var claimed: Set<String> = []
        var pairs: [(Entity, Entity?)] = []
        for entity in destination.entities {
            var match: Entity?
            if let old = entity.renamingIdentifier, let e = source.entity(named: old), !claimed.contains(old) {
                match = e
            }
            if match == nil, let e = source.entity(named: entity.name), !claimed.contains(entity.name) { match = e }
            if let match {
                claimed.insert(match.name)
                entityNames[match.name] = entity.name
            }
            pairs.append((entity, match))
        }
        for entity in source.entities where !claimed.contains(entity.name) {
            removedEntities.append(entity.name)
            changes.append(
                MigrationChange(
                    .removeEntity, entity: entity.name, detail: "\(entity.name) and its objects are removed"))
        }
        for (entity, match) in pairs {
            guard let match else {
                changes.append(MigrationChange(.addEntity, entity: entity.name, detail: "\(entity.name) is added"))
                mappings.append(
                    EntityMapping(
                        destinationEntity: entity.name, sourceEntity: nil,
                        attributes: entity.attributes.map {
                            AttributeMapping(
                                name: $0.name, source: nil, sourceIndex: nil, initialValue: $0.defaultValue ?? .null,
                                fillNulls: nil)
                        },
                        relationships: entity.relationships.map {
                            RelationshipMapping(name: $0.name, source: nil, sourceIndex: nil, conversion: .none)
                        }))
                continue
            }
            if match.name != entity.name {
                changes.append(
                    MigrationChange(
                        .renameEntity, entity: entity.name, detail: "\(match.name) is renamed to \(entity.name)"))
            }
            mappings.append(try map(entity, from: match))
        }
    }

    mutating func map(_ entity: Entity, from old: Entity) throws -> EntityMapping {
        var attributeMappings: [AttributeMapping] = []
        var claimed: Set<String> = []
        for attribute in entity.attributes {
            var match: Attribute?
            if let r = attribute.renamingIdentifier, let a = old.attribute(named: r), !claimed.contains(r) { match = a }
            if match == nil, let a = old.attribute(named: attribute.name), !claimed.contains(attribute.name) {
                match = a
            }
            guard let match else {
                if !attribute.isOptional && attribute.defaultValue == nil {
                    throw refuse(
                        .addAttribute, entity: entity.name, property: attribute.name,
                        "is a new required attribute with no default",
                        suggestion:
                            "give it a default value, or add it as optional, fill it in a custom stage's didMigrate, and make it required in a later version"
                    )
                }
                changes.append(
                    MigrationChange(
                        .addAttribute, entity: entity.name, property: attribute.name,
                        detail: "\(entity.name).\(attribute.name) (\(attribute.type.rawValue)) is added"
                            + (attribute.defaultValue.map { " with the default \($0)" } ?? ", empty")))
                attributeMappings.append(
                    AttributeMapping(
                        name: attribute.name, source: nil, sourceIndex: nil,
                        initialValue: attribute.defaultValue ?? .null, fillNulls: nil))
                continue
            }
            claimed.insert(match.name)
            guard match.type == attribute.type else {
                throw refuse(
                    .changeAttributeType, entity: entity.name, property: attribute.name,
                    "changes type from \(match.type.rawValue) to \(attribute.type.rawValue)",
                    suggestion:
                        "split it into versions: add a new attribute, copy and convert the values in a custom stage's didMigrate, then remove the old attribute in a later version"
                )
            }
            if match.name != attribute.name {
                changes.append(
                    MigrationChange(
                        .renameAttribute, entity: entity.name, property: attribute.name,
                        detail: "\(entity.name).\(match.name) is renamed to \(attribute.name)"))
            }
            var fill: Value?
            if match.isOptional && !attribute.isOptional {
                if let value = attribute.defaultValue {
                    fill = value
                    changes.append(
                        MigrationChange(
                            .attributeBecomesRequired, entity: entity.name, property: attribute.name,
                            detail:
                                "\(entity.name).\(attribute.name) becomes required; objects without a value get \(value)"
                        ))
                } else if stage != nil {
                    changes.append(
                        MigrationChange(
                            .attributeBecomesRequired, entity: entity.name, property: attribute.name,
                            detail:
                                "\(entity.name).\(attribute.name) becomes required; the custom stage fills the missing values (checked before the change)"
                        ))
                } else {
                    throw refuse(
                        .attributeBecomesRequired, entity: entity.name, property: attribute.name,
                        "becomes required and has no default value",
                        suggestion: "give it a default value, or \(stageSuggestion)")
                }
            } else if !match.isOptional && attribute.isOptional {
                changes.append(
                    MigrationChange(
                        .attributeBecomesOptional, entity: entity.name, property: attribute.name,
                        detail: "\(entity.name).\(attribute.name) becomes optional"))
            }
            attributeMappings.append(
                AttributeMapping(
                    name: attribute.name, source: match.name, sourceIndex: old.attributeIndex(named: match.name),
                    initialValue: attribute.defaultValue ?? .null, fillNulls: fill))
        }
        for attribute in old.attributes where !claimed.contains(attribute.name) {
            changes.append(
                MigrationChange(
                    .removeAttribute, entity: entity.name, property: attribute.name,
                    detail: "\(entity.name).\(attribute.name) and its values are removed"))
        }

        var relationshipMappings: [RelationshipMapping] = []
        claimed = []
        for relationship in entity.relationships {
            var match: Relationship?
            if let r = relationship.renamingIdentifier, let m = old.relationship(named: r), !claimed.contains(r) {
                match = m
            }
            if match == nil, let m = old.relationship(named: relationship.name), !claimed.contains(relationship.name) {
                match = m
            }
            guard let match else {
                if !relationship.isToMany && !relationship.isOptional && stage == nil {
                    throw refuse(
                        .addRelationship, entity: entity.name, property: relationship.name,
                        "is a new required to-one relationship, which existing objects would not have",
                        suggestion: "add it as optional, or add a custom stage whose didMigrate sets it")
                }
                changes.append(
                    MigrationChange(
                        .addRelationship, entity: entity.name, property: relationship.name,
                        detail:
                            "\(entity.name).\(relationship.name) (\(relationship.isToMany ? "to-many" : "to-one") \(relationship.destination)) is added, empty"
                    ))
                relationshipMappings.append(
                    RelationshipMapping(name: relationship.name, source: nil, sourceIndex: nil, conversion: .none))
                continue
            }
            claimed.insert(match.name)
            let mappedDestination = entityNames[match.destination]
            guard mappedDestination == relationship.destination else {
                throw refuse(
                    .changeDestination, entity: entity.name, property: relationship.name,
                    "changes its destination from \(match.destination) to \(relationship.destination)",
                    suggestion:
                        "split it into versions: add a new relationship, link the objects in a custom stage's didMigrate, then remove the old one in a later version"
                )
            }
            if match.name != relationship.name {
                changes.append(
                    MigrationChange(
                        .renameRelationship, entity: entity.name, property: relationship.name,
                        detail: "\(entity.name).\(match.name) is renamed to \(relationship.name)"))
            }
            var conversion = RelationshipMapping.Conversion.none
            switch (match.isToMany, relationship.isToMany) {
            case (false, true):
                conversion = .toOneToMany
                changes.append(
                    MigrationChange(
                        .toOneBecomesToMany, entity: entity.name, property: relationship.name,
                        detail: "\(entity.name).\(relationship.name) becomes to-many; each object keeps its target"))
                if relationship.isOrdered {
                    changes.append(
                        MigrationChange(
                            .becomesOrdered, entity: entity.name, property: relationship.name,
                            detail: "\(entity.name).\(relationship.name) becomes ordered"))
                }
            case (true, false):
                guard stage != nil else {
                    throw refuse(
                        .toManyBecomesToOne, entity: entity.name, property: relationship.name,
                        "becomes to-one; objects with several targets would lose all but one",
                        suggestion: "\(stageSuggestion) (leave at most one target per object)")
                }
                conversion = .toManyToOne
                changes.append(
                    MigrationChange(
                        .toManyBecomesToOne, entity: entity.name, property: relationship.name,
                        detail:
                            "\(entity.name).\(relationship.name) becomes to-one; the custom stage leaves at most one target (checked before the change)"
                    ))
            case (true, true):
                if !match.isOrdered && relationship.isOrdered {
                    changes.append(
                        MigrationChange(
                            .becomesOrdered, entity: entity.name, property: relationship.name,
                            detail:
                                "\(entity.name).\(relationship.name) becomes ordered; the order starts as primary-key order"
                        ))
                } else if match.isOrdered && !relationship.isOrdered {
                    guard stage != nil else {
                        throw refuse(
                            .becomesUnordered, entity: entity.name, property: relationship.name,
                            "becomes unordered; its order would be lost",
                            suggestion:
                                "add a custom stage for this step to accept the loss (MigrationStage(from: \"\(source.versionIdentifier)\", to: \"\(destination.versionIdentifier)\"))"
                        )
                    }
                    changes.append(
                        MigrationChange(
                            .becomesUnordered, entity: entity.name, property: relationship.name,
                            detail:
                                "\(entity.name).\(relationship.name) becomes unordered (the stage accepts the loss of the order)"
                        ))
                }
            case (false, false):
                if match.isOptional && !relationship.isOptional {
                    guard stage != nil else {
                        throw refuse(
                            .relationshipBecomesRequired, entity: entity.name, property: relationship.name,
                            "becomes required; objects without a target would break it",
                            suggestion: "\(stageSuggestion) (give every object a target)")
                    }
                    changes.append(
                        MigrationChange(
                            .relationshipBecomesRequired, entity: entity.name, property: relationship.name,
                            detail:
                                "\(entity.name).\(relationship.name) becomes required; the custom stage sets the missing targets"
                        ))
                } else if !match.isOptional && relationship.isOptional {
                    changes.append(
                        MigrationChange(
                            .relationshipBecomesOptional, entity: entity.name, property: relationship.name,
                            detail: "\(entity.name).\(relationship.name) becomes optional"))
                }
            }
            relationshipMappings.append(
                RelationshipMapping(
                    name: relationship.name, source: match.name, sourceIndex: old.relationshipIndex(named: match.name),
                    conversion: conversion))
        }
        for relationship in old.relationships where !claimed.contains(relationship.name) {
            changes.append(
                MigrationChange(
                    .removeRelationship, entity: entity.name, property: relationship.name,
                    detail: "\(entity.name).\(relationship.name) and its links are removed"))
        }

        let renamedIndexes = old.indexes.map { index in
            Entity.Index(
                name: index.name,
                properties: index.properties.map { p in attributeMappings.first { $0.source == p }?.name ?? p })
        }
        let renamedConstraints = old.uniqueConstraints.map { group in
            group.map { p in attributeMappings.first { $0.source == p }?.name ?? p }.sorted()
        }
        if Set(renamedIndexes) != Set(entity.indexes)
            || Set(renamedConstraints) != Set(entity.uniqueConstraints.map { $0.sorted() })
        {
            changes.append(
                MigrationChange(
                    .changeIndexes, entity: entity.name,
                    detail:
                        "the indexes or unique constraints of \(entity.name) change; they are rebuilt (a new unique constraint is checked)"
                ))
        }
        return EntityMapping(
            destinationEntity: entity.name, sourceEntity: old.name, attributes: attributeMappings,
            relationships: relationshipMappings)
    }
}
