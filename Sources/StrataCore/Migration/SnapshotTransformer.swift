/// Turns snapshots of the source version into snapshots of the destination version, following
/// a step's mapping: attributes moved, renamed, filled or dropped; relationships renamed,
/// reshaped (to-one -> to-many), targets renamed with their entity. Keys never change.
///
/// Used by the streaming executor and by backends that migrate record by record (LMDB).
/// O(properties) per snapshot; no lookup by name on the way.
public struct SnapshotTransformer: Sendable {
    /// The step being executed.
    public let step: MigrationStep
    /// The identifier the transformed IDs carry (the destination store's).
    public let storeIdentifier: String
    private let renamedEntities: [String: String]
    private let plans: [String: EntityPlan]

    struct EntityPlan: Sendable {
        let mapping: EntityMapping
        let entity: Entity
        /// Per destination relationship: whether its targets keep the order they come in (the
        /// destination and the source are both ordered).
        let keepsOrder: [Bool]
    }

    /// Prepares the transformation of `step` for a destination store with `storeIdentifier`.
    public init(step: MigrationStep, storeIdentifier: String) {
        self.step = step
        self.storeIdentifier = storeIdentifier
        var renamed: [String: String] = [:]
        var plans: [String: EntityPlan] = [:]
        for mapping in step.entityMappings {
            guard let source = mapping.sourceEntity,
                let entity = step.destination.entity(named: mapping.destinationEntity)
            else { continue }
            renamed[source] = mapping.destinationEntity
            let old = step.source.entity(named: source)
            let keepsOrder = zip(entity.relationships, mapping.relationships).map { relationship, m in
                relationship.isOrdered && (m.source.flatMap { old?.relationship(named: $0)?.isOrdered } ?? false)
            }
            plans[source] = EntityPlan(mapping: mapping, entity: entity, keepsOrder: keepsOrder)
        }
        self.renamedEntities = renamed
        self.plans = plans
    }

    /// The destination entity the objects of source entity `name` become, or `nil` when the
    /// entity is removed.
    public func destinationEntity(of name: String) -> String? { renamedEntities[name] }

    /// The ID an object of the source version has in the destination.
    @inline(__always)
    public func transform(_ id: ObjectID) -> ObjectID {
        ObjectID(
            entityName: renamedEntities[id.entityName] ?? id.entityName, storeIdentifier: storeIdentifier,
            primaryKey: id.primaryKey ?? 0)
    }

    /// The destination snapshot of `snapshot` (of a source entity that has a destination), at
    /// the same version.
    ///
    /// - Throws: ``StrataError/Code/missingValue`` for a null left in an attribute that becomes
    ///   required with no default, ``StrataError/Code/migrationNotInferable`` for an object with
    ///   several targets in a to-many that becomes to-one (what the stage should have fixed).
    public func transform(_ snapshot: Snapshot) throws -> Snapshot {
        guard let plan = plans[snapshot.objectID.entityName] else {
            throw StrataError(
                .unknownEntity, "the migration \(step.name) has no destination for \(snapshot.objectID)",
                location: ["entity": snapshot.objectID.entityName])
        }
        var attributes: [Value] = []
        attributes.reserveCapacity(plan.mapping.attributes.count)
        for (i, a) in plan.mapping.attributes.enumerated() {
            var value = a.sourceIndex.map { snapshot.attributes[$0] } ?? a.initialValue
            if value.isNull {
                if let fill = a.fillNulls {
                    value = fill
                } else if !plan.entity.attributes[i].isOptional {
                    throw StrataError(
                        .missingValue,
                        "migrating \(step.name): \(snapshot.objectID) has no value for '\(plan.entity.name).\(a.name)', which becomes required; the custom stage must fill it",
                        location: [
                            "object": snapshot.objectID.uriRepresentation, "entity": plan.entity.name, "key": a.name,
                        ])
                }
            }
            attributes.append(value)
        }
        var relationships: [RelationshipValue] = []
        relationships.reserveCapacity(plan.mapping.relationships.count)
        for (i, r) in plan.mapping.relationships.enumerated() {
            guard let index = r.sourceIndex else {
                relationships.append(plan.entity.relationships[i].isToMany ? .toMany([]) : .toOne(nil))
                continue
            }
            switch (snapshot.relationships[index], r.conversion) {
            case (.toOne(let target), .none):
                relationships.append(.toOne(target.map(transform)))
            case (.toOne(let target), .toOneToMany):
                relationships.append(.toMany(target.map { [transform($0)] } ?? []))
            case (.toMany(let targets), .toManyToOne):
                guard targets.count <= 1 else {
                    throw StrataError(
                        .migrationNotInferable,
                        "migrating \(step.name): \(snapshot.objectID) has \(targets.count) targets in '\(plan.entity.name).\(r.name)', which becomes to-one; the custom stage must leave at most one",
                        location: [
                            "object": snapshot.objectID.uriRepresentation, "entity": plan.entity.name,
                            "property": r.name,
                        ])
                }
                relationships.append(.toOne(targets.first.map(transform)))
            case (.toMany(let targets), _):
                var mapped = targets.map(transform)
                if !plan.keepsOrder[i] { mapped.sort() }
                relationships.append(.toMany(mapped))
            case (.toOne(let target), .toManyToOne):
                relationships.append(.toOne(target.map(transform)))
            }
        }
        return Snapshot(
            objectID: transform(snapshot.objectID), version: snapshot.version, attributes: attributes,
            relationships: relationships)
    }
}
