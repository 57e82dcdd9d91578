/// One step of a plan: from a model version to the next, with the inferred mapping and the
/// custom stage, if any.
public struct MigrationStep: Sendable {
    /// The version the step starts from.
    public let source: Model
    /// The version the step ends at.
    public let destination: Model
    /// One mapping per destination entity, in the destination's declaration order.
    public let entityMappings: [EntityMapping]
    /// Source entities with no destination (their objects are dropped).
    public let removedEntities: [String]
    /// Every difference, for people and for `--json`.
    public let changes: [MigrationChange]
    /// The custom stage for this step, if one was given.
    public let stage: MigrationStage?

    /// The mapping of destination entity `name`.
    public func mapping(for name: String) -> EntityMapping? { entityMappings.first { $0.destinationEntity == name } }

    /// Whether the objects of `mapping` can be copied as they are stored: same entity name, and
    /// every property maps to the one of the same name, position, type and shape, with no value
    /// to fill or check. Backends that rewrite records skip such entities.
    public func keepsRecordsUnchanged(_ mapping: EntityMapping) -> Bool {
        guard let sourceName = mapping.sourceEntity, sourceName == mapping.destinationEntity,
            let old = source.entity(named: sourceName), let new = destination.entity(named: mapping.destinationEntity),
            old.attributes.count == new.attributes.count, old.relationships.count == new.relationships.count
        else { return false }
        for (i, a) in mapping.attributes.enumerated() {
            guard a.sourceIndex == i, a.source == a.name, a.fillNulls == nil,
                !old.attributes[i].isOptional || new.attributes[i].isOptional
            else { return false }
        }
        for (i, r) in mapping.relationships.enumerated() {
            guard r.sourceIndex == i, r.source == r.name, r.conversion == .none,
                old.relationships[i].isOrdered == new.relationships[i].isOrdered
            else { return false }
        }
        return true
    }

    /// `"v1 -> v2"`.
    public var name: String { "\(source.versionIdentifier) -> \(destination.versionIdentifier)" }

    /// Whether the step changes nothing that is stored (same structure): only the version
    /// recorded in the metadata moves.
    public var isStructurallyEmpty: Bool { source.versionHash == destination.versionHash }

    /// Creates a step; StrataMigrations' `MigrationStep.infer(from:to:stage:)` is how steps are made.
    package init(
        source: Model,
        destination: Model,
        entityMappings: [EntityMapping],
        removedEntities: [String],
        changes: [MigrationChange],
        stage: MigrationStage?
    ) {
        self.source = source
        self.destination = destination
        self.entityMappings = entityMappings
        self.removedEntities = removedEntities
        self.changes = changes
        self.stage = stage
    }
}
