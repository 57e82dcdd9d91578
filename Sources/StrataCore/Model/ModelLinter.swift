/// Finds what is valid in a model but usually a mistake (`strata model lint`): changes between
/// versions that existing stores cannot follow without help, indexes no store uses or that repeat
/// another, unique constraints another implies, and delete rules that leave or delete more than
/// meant.
///
/// A model that is not valid never gets here: ``Model/init(versionIdentifier:entities:configurations:)``
/// refuses it (a relationship without an inverse, a constraint naming no attribute, ...).
///
/// ```swift
/// for warning in ModelLinter.warnings(in: try VersionedModel(directory: url)) { print(warning) }
/// ```
public enum ModelLinter {
    /// The warnings of a versioned model: those of its current version (``warnings(in:)-(Model)``)
    /// and those of each step from one version to the next (``warnings(from:to:)``), oldest
    /// first. Earlier versions are not linted on their own: stores written with them exist, so
    /// they stay as they are.
    public static func warnings(in versions: VersionedModel) -> [ModelLintWarning] {
        var warnings: [ModelLintWarning] = []
        for (old, new) in zip(versions.versions, versions.versions.dropFirst()) {
            warnings += self.warnings(from: old, to: new)
        }
        return warnings + self.warnings(in: versions.current)
    }

    /// The warnings of one version on its own: indexes and unique constraints, delete rules.
    public static func warnings(in model: Model) -> [ModelLintWarning] {
        var warnings: [ModelLintWarning] = []
        for entity in model.entities {
            warnings += indexWarnings(entity, in: model)
            warnings += uniqueConstraintWarnings(entity, in: model)
            warnings += deleteRuleWarnings(entity, in: model)
        }
        return warnings
    }

    /// The warnings of the step from `old` to `new`: what a store at `old` cannot follow
    /// without a custom stage, and renaming identifiers that rename nothing. Entities and
    /// properties are matched as an inferred migration matches them: by renaming identifier,
    /// then by name.
    public static func warnings(from old: Model, to new: Model) -> [ModelLintWarning] {
        var warnings: [ModelLintWarning] = []
        let step = "\(old.versionIdentifier) -> \(new.versionIdentifier)"
        func warn(_ rule: ModelLintWarning.Rule, _ entity: String, _ property: String?, _ message: String) {
            warnings.append(
                ModelLintWarning(
                    rule, version: new.versionIdentifier, entity: entity, property: property, message: message))
        }
        for entity in new.entities {
            let renamed = entity.renamingIdentifier.flatMap { old.entity(named: $0) }
            guard let previous = renamed ?? old.entity(named: entity.name) else {
                if let identifier = entity.renamingIdentifier {
                    warn(
                        .renamingIdentifierMatchesNothing, entity.name, nil,
                        "the renaming identifier '\(identifier)' names no entity of \(old.versionIdentifier), so \(step) adds \(entity.name) empty; correct the identifier or remove it"
                    )
                }
                continue
            }
            for attribute in entity.attributes {
                let renamed = attribute.renamingIdentifier.flatMap { previous.attribute(named: $0) }
                guard let match = renamed ?? previous.attribute(named: attribute.name) else {
                    if let identifier = attribute.renamingIdentifier {
                        warn(
                            .renamingIdentifierMatchesNothing, entity.name, attribute.name,
                            "the renaming identifier '\(identifier)' names no attribute of \(previous.name) in \(old.versionIdentifier), so \(step) adds \(entity.name).\(attribute.name) empty; correct the identifier or remove it"
                        )
                    }
                    if !attribute.isOptional && attribute.defaultValue == nil {
                        warn(
                            .requiredAttributeWithoutDefault, entity.name, attribute.name,
                            "\(entity.name).\(attribute.name) is added in \(new.versionIdentifier) as a required attribute with no default value, so existing objects have none and \(step) cannot be inferred; give it a default, or add it as optional and fill it in a custom stage"
                        )
                    }
                    continue
                }
                if match.type != attribute.type {
                    warn(
                        .attributeTypeChanges, entity.name, attribute.name,
                        "\(entity.name).\(attribute.name) changes from \(match.type.rawValue) to \(attribute.type.rawValue) in \(step), which no inferred migration maps; add a new attribute, copy the values in a custom stage, and remove the old one"
                    )
                }
                if match.isOptional && !attribute.isOptional && attribute.defaultValue == nil {
                    warn(
                        .attributeBecomesRequiredWithoutDefault, entity.name, attribute.name,
                        "\(entity.name).\(attribute.name) becomes required in \(step) with no default value, so objects without a value break it; give it a default, or fill the values in a custom stage"
                    )
                }
            }
            for relationship in entity.relationships {
                let renamed = relationship.renamingIdentifier.flatMap { previous.relationship(named: $0) }
                guard (renamed ?? previous.relationship(named: relationship.name)) == nil else { continue }
                if let identifier = relationship.renamingIdentifier {
                    warn(
                        .renamingIdentifierMatchesNothing, entity.name, relationship.name,
                        "the renaming identifier '\(identifier)' names no relationship of \(previous.name) in \(old.versionIdentifier), so \(step) adds \(entity.name).\(relationship.name) empty; correct the identifier or remove it"
                    )
                }
                if !relationship.isToMany && !relationship.isOptional {
                    warn(
                        .requiredToOneAdded, entity.name, relationship.name,
                        "\(entity.name).\(relationship.name) is added in \(new.versionIdentifier) as a required to-one relationship, which existing objects do not have; add it as optional and set it in a custom stage"
                    )
                }
            }
        }
        return warnings
    }

    /// Indexes no built-in store uses, and indexes another index or a unique constraint gives.
    ///
    /// Stores use an index for the comparisons on the attribute that leads it (SQLite for any
    /// leading part of it), so an index whose attributes start another index or a unique
    /// constraint (which stores index too) adds writes and no faster read. An index led by a
    /// decimal serves nothing: SQLite compares decimals through a function of the column, the
    /// LMDB and in-memory stores look up integers, strings, Booleans and dates (and UUIDs) only,
    /// and the XML store uses no index.
    private static func indexWarnings(_ entity: Entity, in model: Model) -> [ModelLintWarning] {
        var warnings: [ModelLintWarning] = []
        for (i, index) in entity.indexes.enumerated() {
            let columns = index.properties.joined(separator: ", ")
            if let first = index.properties.first, let attribute = entity.attribute(named: first),
                attribute.type == .decimal
            {
                warnings.append(
                    ModelLintWarning(
                        .indexUnusable, version: model.versionIdentifier, entity: entity.name, property: index.name,
                        message:
                            "the index \(index.name) (\(columns)) is led by the decimal attribute \(first), and no built-in store uses such an index (SQLite compares decimals through a function of the column); remove it, or lead it with another attribute"
                    ))
            }
            let longer = entity.indexes.indices.first { j in
                j != i && entity.indexes[j].properties.starts(with: index.properties)
                    && (entity.indexes[j].properties.count > index.properties.count || j < i)
            }
            if let other = longer.map({ entity.indexes[$0] }) {
                warnings.append(
                    ModelLintWarning(
                        .indexRepeatsAnother, version: model.versionIdentifier, entity: entity.name,
                        property: index.name,
                        message:
                            "the index \(index.name) (\(columns)) repeats what the index \(other.name) (\(other.properties.joined(separator: ", "))) gives; remove it"
                    ))
            } else if let constraint = entity.uniqueConstraints.first(where: { $0.starts(with: index.properties) }) {
                warnings.append(
                    ModelLintWarning(
                        .indexRepeatsAnother, version: model.versionIdentifier, entity: entity.name,
                        property: index.name,
                        message:
                            "the index \(index.name) (\(columns)) repeats what the unique constraint (\(constraint.joined(separator: ", "))) gives, which stores index too; remove it"
                    ))
            }
        }
        return warnings
    }

    /// Unique constraints that can never fail while another holds: the same attributes, or
    /// more of them.
    private static func uniqueConstraintWarnings(_ entity: Entity, in model: Model) -> [ModelLintWarning] {
        var warnings: [ModelLintWarning] = []
        let sets = entity.uniqueConstraints.map(Set.init)
        for (i, constraint) in sets.enumerated() {
            let implying = sets.indices.first { j in
                j != i && sets[j].isSubset(of: constraint) && (sets[j].count < constraint.count || j < i)
            }
            guard let implying else { continue }
            let named = entity.uniqueConstraints[i].joined(separator: ", ")
            let other = entity.uniqueConstraints[implying].joined(separator: ", ")
            let message =
                sets[implying] == constraint
                ? "the unique constraint (\(named)) is declared twice; remove one"
                : "the unique constraint (\(named)) can never fail while (\(other)) is unique; remove it"
            warnings.append(
                ModelLintWarning(
                    .uniqueConstraintRepeatsAnother, version: model.versionIdentifier, entity: entity.name,
                    message: message))
        }
        return warnings
    }

    /// Delete rules that leave dangling references or delete objects others still hold.
    private static func deleteRuleWarnings(_ entity: Entity, in model: Model) -> [ModelLintWarning] {
        var warnings: [ModelLintWarning] = []
        for relationship in entity.relationships {
            let name = "\(entity.name).\(relationship.name)"
            let inverse = model.entity(named: relationship.destination)?.relationship(named: relationship.inverse)
            switch relationship.deleteRule {
            case .noAction:
                warnings.append(
                    ModelLintWarning(
                        .deleteRuleNoAction, version: model.versionIdentifier, entity: entity.name,
                        property: relationship.name,
                        message:
                            "\(name) has the delete rule noAction, so a deleted \(entity.name) stays in its targets' \(relationship.destination).\(relationship.inverse) until your code removes it; use nullify unless you do"
                    ))
            case .cascade where relationship.isToMany && inverse?.isToMany == true:
                warnings.append(
                    ModelLintWarning(
                        .cascadeAcrossManyToMany, version: model.versionIdentifier, entity: entity.name,
                        property: relationship.name,
                        message:
                            "\(name) cascades across a many-to-many relationship, so deleting one \(entity.name) deletes every \(relationship.destination) it holds, even those other objects still hold; use nullify, and delete the targets your code means to"
                    ))
            default:
                break
            }
        }
        return warnings
    }
}
